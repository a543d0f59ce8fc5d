-- Back to no notices: a contract ended for its premium keeps its move and its operation's record
-- as a contract cancellation (the kind the older code reads); the notices and the products'
-- rules are forgotten.
UPDATE proposal_operations SET kind = 'cancelamento_contrato' WHERE kind = 'encerramento_inadimplencia';
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia'));
DROP TABLE billing_notice_deliveries;
DROP TABLE billing_notices;
ALTER TABLE contract_billings DROP COLUMN encerramento_dias, DROP COLUMN primeira_parcela;
ALTER TABLE products DROP COLUMN cobranca_encerramento_dias, DROP COLUMN cobranca_primeira_parcela;
