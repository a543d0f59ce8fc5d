-- The document as sent for signature (route 12's first call), kept with its SHA-256: what the
-- parties were shown never changes after, whatever later happens to the rows it was made from.
CREATE TABLE sealed_documents (
    proposal_id BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    pdf         BYTEA       NOT NULL,
    sha256      TEXT        NOT NULL,
    sealed_by   TEXT        NOT NULL,
    sealed_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT sealed_documents_sha256_hex CHECK (sha256 ~ '^[0-9a-f]{64}$')
);
