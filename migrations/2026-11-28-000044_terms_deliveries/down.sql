-- The terms' records go (the customers keep what was mailed); the certificates stay, one per proposal.
DELETE FROM proposal_certificates WHERE tipo = 'termos';
ALTER TABLE proposal_certificates DROP CONSTRAINT proposal_certificates_pkey;
ALTER TABLE proposal_certificates ADD CONSTRAINT proposal_certificates_pkey PRIMARY KEY (id_proposta);
ALTER TABLE proposal_certificates DROP COLUMN tipo;
COMMENT ON TABLE proposal_certificates IS NULL;
