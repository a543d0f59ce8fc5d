-- The numbers go; decision 267's derivation is what the code before this migration prints.
DROP INDEX proposal_certificates_numero_unique;
ALTER TABLE proposal_certificates DROP CONSTRAINT proposal_certificates_numero, DROP COLUMN numero;
DROP TABLE product_certificate_sequences;

-- The documents are written again without the certificate's part at the next `migrate`.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id FROM proposals
ON CONFLICT DO NOTHING;
