-- Pix Automático (issue 46): a partner's proposal paid by `PIX AUTOMÁTICO`, with the payer's
-- account when the seller has it; the contract's recurrence at the PSP, created at the last
-- signature; its charges sent to the PSP and settled by the Pix that paid them; refunds given
-- back by a `devolucao` of that Pix; and the operations that do each under the proposal's claim.

ALTER TABLE proposals
    DROP CONSTRAINT proposals_tipo_pagamento_check,
    ADD CONSTRAINT proposals_tipo_pagamento_check
        CHECK (tipo_pagamento IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA', 'PIX AUTOMÁTICO'));

-- The payer's account for jornada 1: its PSP (ISPB), `agencia` (optional) and `conta`, in the
-- columns the debit's account uses; none of them for jornada 2 (the customer reads the QR code).
ALTER TABLE proposal_payments
    ADD COLUMN ispb TEXT CONSTRAINT proposal_payments_ispb CHECK (ispb ~ '^[0-9A-Z]{8}$'),
    DROP CONSTRAINT proposal_payments_tipo_check,
    ADD CONSTRAINT proposal_payments_tipo_check
        CHECK (tipo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA', 'PIX AUTOMÁTICO')),
    ADD CONSTRAINT proposal_payments_pix_fields CHECK (
        (tipo = 'PIX AUTOMÁTICO') >= (ispb IS NOT NULL)
        AND (tipo <> 'PIX AUTOMÁTICO' OR (banco IS NULL AND (ispb IS NULL) = (conta IS NULL)
            AND (agencia IS NULL OR ispb IS NOT NULL))));

ALTER TABLE contract_billings
    DROP CONSTRAINT contract_billings_metodo_check,
    ADD CONSTRAINT contract_billings_metodo_check
        CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA', 'PIX AUTOMÁTICO'));

-- A Pix charge: `id_externo` is its txid once sent; `pix_e2e` the Pix that paid it, which a
-- refund gives back.
ALTER TABLE charges
    DROP CONSTRAINT charges_metodo_check,
    ADD CONSTRAINT charges_metodo_check
        CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA', 'PIX AUTOMÁTICO')),
    ADD COLUMN pix_e2e TEXT CONSTRAINT charges_pix_e2e CHECK (pix_e2e ~ '^[a-zA-Z0-9]{32}$');
-- The Pix charges to send or to try again, by due date.
CREATE INDEX charges_pix_unsettled ON charges (vencimento)
    WHERE metodo = 'PIX AUTOMÁTICO' AND status IN ('aberta', 'falhou');

-- The signed Pix sales, for the pass that creates the recurrences the signature could not.
CREATE INDEX proposals_pix_signed ON proposals (id)
    WHERE tipo_pagamento = 'PIX AUTOMÁTICO' AND status IN ('EM ANÁLISE', 'APROVADO');

-- The contract's recurrence at the PSP: one per proposal, written with the end of the operation
-- that created it; its status as the PSP last answered (read back after every notification).
CREATE TABLE pix_recurrences (
    id_proposta      BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    id_rec           TEXT        NOT NULL UNIQUE CHECK (id_rec ~ '^R[RN][0-9A-Z]{8}[0-9]{8}[a-zA-Z0-9]{11}$'),
    status           TEXT        NOT NULL CHECK (status IN ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
    pix_copia_e_cola TEXT        CHECK (char_length(pix_copia_e_cola) <= 1000),
    id_solic_rec     TEXT        CHECK (char_length(id_solic_rec) <= 35),
    motivo           TEXT        CHECK (char_length(motivo) <= 200),
    criada_em        TIMESTAMPTZ NOT NULL,
    alterada_em      TIMESTAMPTZ NOT NULL,
    alterada_por     TEXT        NOT NULL
);

-- The recurrence's creation and each charge's sending are operations with outside effects.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix'));

-- A refund of a Pix charge: a `devolucao` at the PSP, `invoice_id` the charge's txid.
ALTER TABLE refunds
    DROP CONSTRAINT refunds_meio,
    ADD CONSTRAINT refunds_meio CHECK (meio IN ('plataforma', 'a_pagar', 'pix')),
    DROP CONSTRAINT refunds_to_pay_status,
    ADD CONSTRAINT refunds_to_pay_status CHECK (meio <> 'a_pagar' OR status IN ('a_pagar', 'pago'));
