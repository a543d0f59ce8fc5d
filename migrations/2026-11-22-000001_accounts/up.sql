-- Users, the applications each may use, refresh-token families and sign-in throttling counters.

CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    email         TEXT        NOT NULL,
    password_hash TEXT        NOT NULL,
    name          TEXT,
    cpf           TEXT,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT users_email_lower CHECK (email = lower(email) AND email LIKE '%_@_%'),
    CONSTRAINT users_cpf_digits CHECK (cpf ~ '^[0-9]{11}$')
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE user_applications (
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application TEXT   NOT NULL,
    PRIMARY KEY (user_id, application),
    CONSTRAINT user_applications_application_check CHECK (application IN ('ECOMMERCE', 'PARCEIRO', 'BACKOFFICE'))
);

-- Each refresh token is usable once; all tokens descending from one sign-in share a family.
CREATE TABLE refresh_tokens (
    jti         UUID PRIMARY KEY,
    family_id   UUID        NOT NULL,
    user_id     BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application TEXT        NOT NULL,
    issued_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    revoked_at  TIMESTAMPTZ,
    CONSTRAINT refresh_tokens_application_check CHECK (application IN ('ECOMMERCE', 'PARCEIRO', 'BACKOFFICE'))
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id);
CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at);

-- Failed sign-ins per e-mail and per client address, shared by every instance of the service.
CREATE TABLE signin_throttle (
    scope             TEXT        NOT NULL,
    key               TEXT        NOT NULL,
    failures          INTEGER     NOT NULL,
    window_started_at TIMESTAMPTZ NOT NULL,
    blocked_until     TIMESTAMPTZ,
    PRIMARY KEY (scope, key),
    CONSTRAINT signin_throttle_scope_check CHECK (scope IN ('signin_email', 'signin_ip')),
    CONSTRAINT signin_throttle_failures_check CHECK (failures >= 0)
);
