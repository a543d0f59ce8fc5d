-- Back to payroll discounts asked of the employer with each charge: the averbações and the
-- operations that made them are forgotten (the older code has no kind to read them as); the
-- charges made under them stay.
DELETE FROM proposal_operations WHERE kind IN ('averbacao', 'cancelamento_averbacao');
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia'));
DROP TABLE averbacoes;
