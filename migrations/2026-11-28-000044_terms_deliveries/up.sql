-- The online shop's terms (issue 45; Decreto 7.962/2013 art. 4): when a sale is paid, the customer
-- receives the proposal's terms and the regret notice, issued once and delivered with a record,
-- as the certificate is. The certificates' table keeps both documents, each by its kind.
ALTER TABLE proposal_certificates
    ADD COLUMN tipo TEXT NOT NULL DEFAULT 'certificado'
        CONSTRAINT proposal_certificates_tipo CHECK (tipo IN ('certificado', 'termos'));
ALTER TABLE proposal_certificates ALTER COLUMN tipo DROP DEFAULT;
ALTER TABLE proposal_certificates DROP CONSTRAINT proposal_certificates_pkey;
ALTER TABLE proposal_certificates ADD CONSTRAINT proposal_certificates_pkey PRIMARY KEY (id_proposta, tipo);
COMMENT ON TABLE proposal_certificates IS
    'The documents the customer receives after the sale, each issued once and delivered with a record: '
    'the certificate (on APROVADO) and, for the online shop, the terms with the regret notice (on payment).';
