-- The keys of creating requests (`Idempotency-Key`), per user: the request's fingerprint, and once
-- it succeeded, its answer, replayed to a retry. Purged 24 hours after first use.
CREATE TABLE idempotency_keys (
    user_id      BIGINT      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          TEXT        NOT NULL,
    fingerprint  TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    claimed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at TIMESTAMPTZ,
    status       SMALLINT,
    content_type TEXT,
    body         BYTEA,
    PRIMARY KEY (user_id, key),
    CONSTRAINT idempotency_keys_key_length CHECK (char_length(key) BETWEEN 1 AND 255),
    CONSTRAINT idempotency_keys_fingerprint_hex CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    CONSTRAINT idempotency_keys_answer CHECK ((completed_at IS NULL) = (status IS NULL) AND (status IS NULL) = (body IS NULL))
);

-- The purge's walk.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
