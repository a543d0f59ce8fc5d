-- Password-recovery tokens (only their SHA-256 is kept) and the per-address limit of requests.

CREATE TABLE password_recovery_tokens (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ,
    CONSTRAINT password_recovery_tokens_hash_key UNIQUE (token_hash),
    CONSTRAINT password_recovery_tokens_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT password_recovery_tokens_expiry_check CHECK (expires_at > created_at)
);
CREATE INDEX password_recovery_tokens_user_idx ON password_recovery_tokens (user_id, created_at);

ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check CHECK (scope IN ('signin_email', 'signin_ip', 'recovery_ip'));
