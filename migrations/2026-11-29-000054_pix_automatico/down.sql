-- Pix Automático's proposals cannot be kept under the older constraints: refused while any exists
-- (their recurrences and money are at the PSP; an operator ends them first).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM proposals WHERE tipo_pagamento = 'PIX AUTOMÁTICO') THEN
        RAISE EXCEPTION 'há propostas PIX AUTOMÁTICO: encerre-as antes de desfazer a migração 54';
    END IF;
END $$;

ALTER TABLE refunds
    DROP CONSTRAINT refunds_to_pay_status,
    ADD CONSTRAINT refunds_to_pay_status CHECK (meio = 'plataforma' OR status IN ('a_pagar', 'pago')),
    DROP CONSTRAINT refunds_meio,
    ADD CONSTRAINT refunds_meio CHECK (meio IN ('plataforma', 'a_pagar'));

DELETE FROM proposal_operations WHERE kind IN ('recorrencia_pix', 'cobranca_pix');
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato'));

DROP TABLE pix_recurrences;
DROP INDEX proposals_pix_signed;

DROP INDEX charges_pix_unsettled;
ALTER TABLE charges
    DROP COLUMN pix_e2e,
    DROP CONSTRAINT charges_metodo_check,
    ADD CONSTRAINT charges_metodo_check CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA'));

ALTER TABLE contract_billings
    DROP CONSTRAINT contract_billings_metodo_check,
    ADD CONSTRAINT contract_billings_metodo_check CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA'));

ALTER TABLE proposal_payments
    DROP CONSTRAINT proposal_payments_pix_fields,
    DROP CONSTRAINT proposal_payments_tipo_check,
    ADD CONSTRAINT proposal_payments_tipo_check CHECK (tipo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA')),
    DROP COLUMN ispb;

ALTER TABLE proposals
    DROP CONSTRAINT proposals_tipo_pagamento_check,
    ADD CONSTRAINT proposals_tipo_pagamento_check CHECK (tipo_pagamento IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA'));
