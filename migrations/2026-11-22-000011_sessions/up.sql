-- Sessions that end in seconds on every instance (a sign-out, a reused refresh token, a password
-- reset, a disable, a change of applications).
--
-- Each sign-in opens a session; its access and refresh tokens carry its id (`sid`). A session
-- holds while it has not ended and the user's credentials are still of the generation it opened
-- under: a reset, a disable or a change of applications moves `users.credentials_epoch` on,
-- which ends every session of the user at once, including one a sign-in racing the change opened.
ALTER TABLE users
    ADD COLUMN credentials_epoch INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN disabled_at       TIMESTAMPTZ;

CREATE TABLE sessions (
    id                UUID PRIMARY KEY,
    user_id           BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application       TEXT        NOT NULL,
    credentials_epoch INTEGER     NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The expiry of its latest refresh token: after it nothing of the session can work.
    expires_at        TIMESTAMPTZ NOT NULL,
    ended_at          TIMESTAMPTZ,
    end_reason        TEXT,
    CONSTRAINT sessions_application_check CHECK (application IN ('ECOMMERCE', 'PARCEIRO', 'BACKOFFICE')),
    CONSTRAINT sessions_end_reason_check CHECK (end_reason IN ('signout', 'reuse')),
    CONSTRAINT sessions_ended_with_reason CHECK ((ended_at IS NULL) = (end_reason IS NULL))
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- The refresh-token families of before become sessions (their access tokens carry no `sid`, so
-- they stop verifying: their holders sign in again).
INSERT INTO sessions (id, user_id, application, credentials_epoch, created_at, expires_at, ended_at, end_reason)
SELECT family_id, min(user_id), min(application), 0, min(issued_at), max(expires_at),
       CASE WHEN bool_and(revoked_at IS NOT NULL) THEN max(revoked_at) END,
       CASE WHEN bool_and(revoked_at IS NOT NULL) THEN 'reuse' END
FROM refresh_tokens GROUP BY family_id;

ALTER TABLE refresh_tokens RENAME COLUMN family_id TO session_id;
ALTER INDEX refresh_tokens_family_idx RENAME TO refresh_tokens_session_idx;
ALTER TABLE refresh_tokens
    ADD CONSTRAINT refresh_tokens_session_fkey FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE;

-- Every instance keeps recent answers of "does this session hold?" and drops them when this
-- channel speaks (one notification per transaction). Only an end matters: a session never comes
-- back, so its opening, its refreshes and a user's unrelated changes stay quiet.
CREATE FUNCTION notify_sessions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('sessions_changed', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER sessions_ended AFTER UPDATE OF ended_at OR DELETE OR TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION notify_sessions_changed();
CREATE TRIGGER users_credentials_changed AFTER UPDATE OF credentials_epoch, disabled_at OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION notify_sessions_changed();

-- Sign-in counters per (e-mail, client address), beside the per-e-mail and per-address ones.
ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check
    CHECK (scope IN ('signin_pair', 'signin_email', 'signin_ip', 'recovery_ip'));
