ALTER TABLE proposal_certificates
    DROP CONSTRAINT proposal_certificates_modelo,
    DROP COLUMN modelo_sha256,
    DROP COLUMN modelo_versao;
ALTER TABLE proposal_notices
    DROP CONSTRAINT proposal_notices_modelo,
    DROP COLUMN modelo_sha256,
    DROP COLUMN modelo_versao;
