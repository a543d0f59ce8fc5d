-- What a proposal's document showed the customer (issue 47; LGPD art. 9): the document sent for
-- signature prints the privacy notice in force and the product's terms; beside its seal, the
-- notice's version and SHA-256, the terms' SHA-256 (of the template the document filled in),
-- when it was sealed and the channel the signing request went through. Written with the seal,
-- once. Proposals sealed before this migration have no row: what they showed was not recorded
-- (their sealed PDF, kept by its SHA-256, still says what they printed).
CREATE TABLE proposal_notices (
    id_proposta    BIGINT      PRIMARY KEY REFERENCES proposals (id),
    aviso_versao   TEXT        NOT NULL,
    aviso_sha256   TEXT        NOT NULL CHECK (aviso_sha256 ~ '^[0-9a-f]{64}$'),
    termos_sha256  TEXT        NOT NULL CHECK (termos_sha256 ~ '^[0-9a-f]{64}$'),
    canal          TEXT        NOT NULL CHECK (canal IN ('sms', 'whatsapp')),
    exibidos_em    TIMESTAMPTZ NOT NULL DEFAULT now()
);
COMMENT ON TABLE proposal_notices IS
    'The privacy notice and terms each proposal''s sealed document showed: versions by SHA-256, when and by which channel.';
