-- A certificate is mailed only while its contract is in force (issue 68, decision 277): one
-- whose contract ended before the delivery pass reached it is withheld, with when and why, and
-- the pass takes it no more.
ALTER TABLE proposal_certificates
    ADD COLUMN retido_em TIMESTAMPTZ,
    ADD COLUMN retido_motivo TEXT CHECK (char_length(retido_motivo) <= 200),
    ADD CONSTRAINT proposal_certificates_retido CHECK ((retido_em IS NULL) = (retido_motivo IS NULL)),
    ADD CONSTRAINT proposal_certificates_retido_ou_enviado CHECK (retido_em IS NULL OR enviado_em IS NULL);

-- The delivery pass reads the waiting ones by this index: a withheld one waits no more.
DROP INDEX proposal_certificates_undelivered;
CREATE INDEX proposal_certificates_undelivered ON proposal_certificates (aceita_em)
    WHERE enviado_em IS NULL AND retido_em IS NULL;

-- The certificates still waiting whose contract is no longer in force: withheld now.
UPDATE proposal_certificates c
SET retido_em = now(),
    retido_motivo = 'contrato ' || p.status || ' antes do envio',
    reservado_ate = NULL
FROM proposals p
WHERE p.id = c.id_proposta
  AND c.tipo = 'certificado'
  AND c.enviado_em IS NULL
  AND p.status <> 'APROVADO';
