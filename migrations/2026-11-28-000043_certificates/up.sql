-- The certificate (issue 45). Each product carries what its certificate says besides the proposal:
-- the insurer (a product may be another insurer's), its SUSEP process, the coverage and its
-- capital, and where to complain. A product without them cannot have its certificates issued
-- (they wait, logged, until the catalog has them).
ALTER TABLE products
    ADD COLUMN seguradora TEXT,
    ADD COLUMN seguradora_cnpj TEXT CONSTRAINT products_seguradora_cnpj CHECK (seguradora_cnpj ~ '^[0-9A-Z]{12}[0-9]{2}$'),
    ADD COLUMN processo_susep TEXT,
    ADD COLUMN cobertura TEXT,
    ADD COLUMN capital_segurado BIGINT CONSTRAINT products_capital_segurado CHECK (capital_segurado > 0),
    ADD COLUMN sac TEXT,
    ADD COLUMN ouvidoria TEXT;

-- One certificate per accepted proposal: due from the move into APROVADO (written in its
-- transaction), issued once (the PDF and its SHA-256, never rendered again), delivered once
-- (when, to which address). A worker's lease keeps two instances from mailing it twice.
CREATE TABLE proposal_certificates (
    id_proposta  BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    aceita_em    TIMESTAMPTZ NOT NULL,
    pdf          BYTEA,
    sha256       TEXT,
    emitido_em   TIMESTAMPTZ,
    enviado_para TEXT,
    enviado_em   TIMESTAMPTZ,
    reservado_ate TIMESTAMPTZ,
    CONSTRAINT proposal_certificates_issued CHECK (
        (pdf IS NULL) = (sha256 IS NULL) AND (pdf IS NULL) = (emitido_em IS NULL)),
    CONSTRAINT proposal_certificates_delivered CHECK (
        (enviado_em IS NULL) = (enviado_para IS NULL) AND (enviado_em IS NULL OR sha256 IS NOT NULL))
);
-- The pass over the certificates not yet delivered, oldest first.
CREATE INDEX proposal_certificates_undelivered ON proposal_certificates (aceita_em) WHERE enviado_em IS NULL;

-- The contracts accepted before this migration are due their certificate too: the law's, never
-- delivered.
INSERT INTO proposal_certificates (id_proposta, aceita_em)
SELECT p.id, coalesce(
    (SELECT max(e.changed_at) FROM proposal_events e WHERE e.proposal_id = p.id AND e.to_status = 'APROVADO'),
    p.alterado_em)
FROM proposals p
WHERE p.status = 'APROVADO';
