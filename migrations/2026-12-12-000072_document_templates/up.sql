-- Every document records the template it was printed from (issue 68, decision 282), as the
-- proposal already records the privacy notice's version and digest: the sealed proposal beside
-- its notices, each certificate and the shop's terms beside their PDF. Documents issued before
-- keep none (they were printed before templates were versioned).
ALTER TABLE proposal_notices
    ADD COLUMN modelo_versao TEXT,
    ADD COLUMN modelo_sha256 TEXT CONSTRAINT proposal_notices_modelo_sha256 CHECK (modelo_sha256 ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT proposal_notices_modelo CHECK ((modelo_versao IS NULL) = (modelo_sha256 IS NULL));

ALTER TABLE proposal_certificates
    ADD COLUMN modelo_versao TEXT,
    ADD COLUMN modelo_sha256 TEXT CONSTRAINT proposal_certificates_modelo_sha256 CHECK (modelo_sha256 ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT proposal_certificates_modelo CHECK (
        (modelo_versao IS NULL) = (modelo_sha256 IS NULL) AND (modelo_versao IS NULL OR pdf IS NOT NULL));
