-- Refunds beyond the right of regret (issue 45): a refusal returns everything paid, a cancellation
-- after the sale the unused period. Each refund says why (motivo), how the money goes back (meio:
-- a platform refund, or a payment the finance team makes), what of it was paid and what is the
-- IPCA correction (nominal_cents, correcao), and, once a refund to pay is paid, the bank's
-- reference. A refusal is no customer request: its refunds have no protocol. An instance still
-- running the code before this migration (a rolling deploy) writes a withdrawal's refund as it
-- did: the defaults and a missing `nominal_cents` (the whole amount) read it as what it is.
ALTER TABLE refunds
    ALTER COLUMN protocolo DROP NOT NULL,
    ALTER COLUMN invoice_id DROP NOT NULL,
    ADD COLUMN motivo TEXT NOT NULL DEFAULT 'ARREPENDIMENTO'
        CONSTRAINT refunds_motivo CHECK (motivo IN ('ARREPENDIMENTO', 'RECUSA', 'CANCELAMENTO')),
    ADD COLUMN meio TEXT NOT NULL DEFAULT 'plataforma'
        CONSTRAINT refunds_meio CHECK (meio IN ('plataforma', 'a_pagar')),
    ADD COLUMN nominal_cents BIGINT,
    ADD COLUMN correcao JSONB,
    ADD COLUMN referencia TEXT,
    ADD COLUMN pago_em TIMESTAMPTZ,
    ADD COLUMN pago_por TEXT;
-- The withdrawals' refunds returned what was paid, uncorrected. (The read model's guard, when
-- already on the table, marks at once: an ALTER TABLE may not follow pending trigger events.)
SET CONSTRAINTS ALL IMMEDIATE;
UPDATE refunds SET nominal_cents = amount_cents;
ALTER TABLE refunds
    ADD CONSTRAINT refunds_nominal CHECK (nominal_cents BETWEEN 0 AND amount_cents),
    -- A refund to pay is to pay or paid, and paid exactly when it carries its payment.
    ADD CONSTRAINT refunds_to_pay_status CHECK (meio = 'plataforma' OR status IN ('a_pagar', 'pago')),
    ADD CONSTRAINT refunds_paid CHECK ((status = 'pago') = (pago_em IS NOT NULL AND referencia IS NOT NULL)),
    ADD CONSTRAINT refunds_platform_invoice CHECK (meio = 'a_pagar' OR invoice_id IS NOT NULL);
-- The finance team's list: the refunds still to pay, oldest first.
CREATE INDEX refunds_to_pay ON refunds (created_at) WHERE status = 'a_pagar';

-- The refusal and the cancellation after the sale are operations with outside effects.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato'));

-- Route 7 shows every refund of the proposal: the documents of those with one gain them when
-- `migrate` builds the marked ones again.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT proposal_id FROM refunds
ON CONFLICT DO NOTHING;
