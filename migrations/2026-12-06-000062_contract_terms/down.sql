-- Back to certificates of 12 months and no terms: the renewals' certificates, the term's notices
-- and the ends at term's operations are forgotten (the older code has nothing to read them as);
-- the contracts ended at their term stay CANCELADO, as their history says.
UPDATE proposal_operations SET kind = 'cancelamento_contrato' WHERE kind = 'encerramento_vigencia';
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia', 'averbacao', 'cancelamento_averbacao'));

DELETE FROM billing_notices WHERE tipo IN ('renovacao', 'fim_vigencia');
-- Notices of contracts the older code does not bill (none but the term's were written).
DELETE FROM billing_notices n WHERE NOT EXISTS (SELECT 1 FROM contract_billings b WHERE b.id_proposta = n.id_proposta);
ALTER TABLE billing_notices
    DROP CONSTRAINT billing_notices_term,
    DROP COLUMN vigencia,
    DROP CONSTRAINT billing_notices_tipo_check,
    ADD CONSTRAINT billing_notices_tipo_check CHECK (tipo IN ('atraso', 'aviso_encerramento', 'encerramento')),
    DROP CONSTRAINT billing_notices_id_proposta_fkey,
    ADD CONSTRAINT billing_notices_id_proposta_fkey
        FOREIGN KEY (id_proposta) REFERENCES contract_billings (id_proposta) ON DELETE CASCADE;

DELETE FROM proposal_certificates WHERE vigencia > 1;
ALTER TABLE proposal_certificates DROP CONSTRAINT proposal_certificates_pkey;
ALTER TABLE proposal_certificates DROP COLUMN vigencia;
ALTER TABLE proposal_certificates ADD CONSTRAINT proposal_certificates_pkey PRIMARY KEY (id_proposta, tipo);

INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT id_proposta FROM contract_terms ON CONFLICT DO NOTHING;
DROP TABLE contract_terms;
ALTER TABLE products DROP COLUMN vigencia_meses, DROP COLUMN renovacao;
