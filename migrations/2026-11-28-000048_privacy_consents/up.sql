-- Consents where the legal basis is the person's consent (issue 47; LGPD art. 7, I and art. 8):
-- each consent given or revoked for a purpose is one row, never updated (art. 8, § 2: the proof
-- is ours; § 5: revocable at any time, the revocation a row of its own). Anonymising the person
-- replaces `cpf` with a value that is never a CPF: the trail stays, tied to no one.
CREATE TABLE privacy_consents (
    id              BIGSERIAL   PRIMARY KEY,
    cpf             TEXT        NOT NULL,
    finalidade      TEXT        NOT NULL CHECK (finalidade IN ('ofertas', 'ofertas_parceiro')),
    concedido       BOOLEAN     NOT NULL,
    registrado_em   TIMESTAMPTZ NOT NULL DEFAULT now(),
    registrado_por  TEXT        NOT NULL
);
CREATE INDEX privacy_consents_cpf ON privacy_consents (cpf, id);
COMMENT ON TABLE privacy_consents IS
    'Consents given or revoked per purpose (LGPD art. 8), one row each, oldest first by id.';
