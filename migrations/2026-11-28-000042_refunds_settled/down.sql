-- Before 42 a refund was a withdrawal's, under its protocol. A refusal's or a cancellation's, or a
-- refund to pay, has no place there: rather than forget money owed or paid, the rollback stops.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM refunds WHERE motivo <> 'ARREPENDIMENTO' OR meio <> 'plataforma' OR protocolo IS NULL) THEN
        RAISE EXCEPTION 'refunds de recusa, cancelamento ou a pagar existem: exporte-os e trate-os antes de desfazer a migração 42';
    END IF;
    IF EXISTS (SELECT 1 FROM proposal_operations WHERE kind IN ('recusa', 'cancelamento_contrato')) THEN
        RAISE EXCEPTION 'operações de recusa ou cancelamento do contrato existem: a migração 42 não é desfeita';
    END IF;
END $$;
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status'));
-- Refunds are no part of a document below 42: the guard (the repeatable migration's) leaves them.
DROP TRIGGER IF EXISTS refunds_read_model_guard ON refunds;
DROP INDEX refunds_to_pay;
UPDATE proposal_read_models SET documento = documento - 'refunds' WHERE documento ? 'refunds';
ALTER TABLE refunds
    DROP CONSTRAINT refunds_nominal,
    DROP CONSTRAINT refunds_to_pay_status,
    DROP CONSTRAINT refunds_paid,
    DROP CONSTRAINT refunds_platform_invoice,
    DROP COLUMN motivo,
    DROP COLUMN meio,
    DROP COLUMN nominal_cents,
    DROP COLUMN correcao,
    DROP COLUMN referencia,
    DROP COLUMN pago_em,
    DROP COLUMN pago_por,
    ALTER COLUMN protocolo SET NOT NULL,
    ALTER COLUMN invoice_id SET NOT NULL;
