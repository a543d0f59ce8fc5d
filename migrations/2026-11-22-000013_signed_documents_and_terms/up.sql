-- The signed version of a proposal's document (the sealed bytes followed by the evidence page),
-- made once when the last party signs, and the provider's own signed copy kept beside it; what
-- the provider reported of each signature; and the contract text of each product.

CREATE TABLE signed_documents (
    proposal_id     BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    pdf             BYTEA       NOT NULL,
    sha256          TEXT        NOT NULL,
    made_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT signed_documents_sha256_hex CHECK (sha256 ~ '^[0-9a-f]{64}$')
);

-- The provider's own signed copy, by envelope (our document key): its closing event can arrive
-- before or after the last signature's callback made ours.
CREATE TABLE provider_signed_copies (
    document_key TEXT        PRIMARY KEY,
    pdf          BYTEA       NOT NULL,
    sha256       TEXT        NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT provider_signed_copies_sha256_hex CHECK (sha256 ~ '^[0-9a-f]{64}$')
);

ALTER TABLE signature_parties
    ADD COLUMN ip             TEXT,
    ADD COLUMN user_agent     TEXT,
    ADD COLUMN authentication TEXT;

ALTER TABLE products
    ADD COLUMN termos TEXT,
    ADD CONSTRAINT products_termos_length CHECK (termos IS NULL OR char_length(termos) <= 20000);
