-- Ended sessions as the record of who was signed in, to which application, from when to when and
-- how it ended, in monthly partitions by `ended_at` (UTC), dropped whole once past
-- ENDED_SESSIONS_RETENTION_DAYS (decision 157). `sessions` keeps only what a token can still
-- present (it is read by id on every request): the hourly housekeeping moves a session here once
-- its last refresh token has expired, where before it deleted it (the sessions already expired
-- move at its next run). The months are made from the oldest end a session has recorded.
CREATE TABLE ended_sessions (
    id                UUID        NOT NULL,
    user_id           BIGINT      NOT NULL CONSTRAINT ended_sessions_user_id_fkey REFERENCES users (id) ON DELETE CASCADE,
    application       TEXT        NOT NULL,
    credentials_epoch INTEGER     NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    -- The expiry of its last refresh token.
    expires_at        TIMESTAMPTZ NOT NULL,
    -- When it ended, where that was recorded (a sign-out, a reused refresh token); otherwise its
    -- expiry, the latest it could have held.
    ended_at          TIMESTAMPTZ NOT NULL,
    -- `signout`, `reuse`, `credentials` (a reset, a disable or a change of applications moved
    -- the user's credentials on) or `expiry`.
    end_reason        TEXT        NOT NULL,
    PRIMARY KEY (id, ended_at),
    CONSTRAINT ended_sessions_application_check CHECK (application IN ('ECOMMERCE', 'PARCEIRO', 'BACKOFFICE')),
    CONSTRAINT ended_sessions_end_reason_check CHECK (end_reason IN ('signout', 'reuse', 'credentials', 'expiry'))
) PARTITION BY RANGE (ended_at);
CREATE INDEX ended_sessions_user ON ended_sessions (user_id, ended_at);
CREATE TABLE ended_sessions_default PARTITION OF ended_sessions DEFAULT;

SELECT ensure_month_partition('ended_sessions', 'ended_at', month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(COALESCE(ended_at, expires_at)) FROM sessions)) AT TIME ZONE 'UTC')
        AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
