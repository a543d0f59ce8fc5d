-- Kept answers hold secrets (webhook signing secrets, the setup intent's client secret) and
-- personal data: they are now stored sealed by the service (`answer_sealed`, under
-- HOOKS_ENCRYPTION_KEY, bound to the user and key), with the people they concern as keyed digests
-- (`subjects`), so that anonymising a CPF finds and erases them (`forgotten_at`). The request's
-- fingerprint becomes a keyed digest too. Rows written before this stay readable as they are
-- (`body` in clear, a plain SHA-256 fingerprint) until the purge removes them within 24 hours;
-- anonymisation finds those by their clear text.
ALTER TABLE idempotency_keys
    ADD COLUMN answer_sealed BYTEA,
    ADD COLUMN subjects      BYTEA[] NOT NULL DEFAULT '{}',
    ADD COLUMN forgotten_at  TIMESTAMPTZ,
    DROP CONSTRAINT idempotency_keys_answer,
    ADD CONSTRAINT idempotency_keys_answer CHECK (
        (completed_at IS NULL) = (status IS NULL)
        AND (body IS NULL OR answer_sealed IS NULL)
        AND (status IS NOT NULL OR (body IS NULL AND answer_sealed IS NULL))
        -- A completed answer is kept (in clear from before, or sealed) unless it was forgotten.
        AND (status IS NULL OR forgotten_at IS NOT NULL OR body IS NOT NULL OR answer_sealed IS NOT NULL)
        AND (forgotten_at IS NULL OR (body IS NULL AND answer_sealed IS NULL AND cardinality(subjects) = 0)));

-- Anonymisation's search: the rows whose digests include the person's.
CREATE INDEX idempotency_keys_subjects ON idempotency_keys USING gin (subjects);
