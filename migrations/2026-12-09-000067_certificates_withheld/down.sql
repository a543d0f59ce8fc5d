-- The withheld certificates wait again: the delivery pass before this migration mails every
-- certificate not sent.
DROP INDEX proposal_certificates_undelivered;
CREATE INDEX proposal_certificates_undelivered ON proposal_certificates (aceita_em) WHERE enviado_em IS NULL;
ALTER TABLE proposal_certificates
    DROP CONSTRAINT proposal_certificates_retido_ou_enviado,
    DROP CONSTRAINT proposal_certificates_retido,
    DROP COLUMN retido_motivo,
    DROP COLUMN retido_em;
