-- Money received after its contract ended (issue 65): a Pix the PSP settled, or a debit the bank
-- returned paid, for a charge cancelled with the contract, is recorded paid and marked to be given
-- back. Giving it back is an operation with an outside effect (a `devolucao` at the PSP), under
-- the proposal's claim like every other: its kind.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia'));

-- The charges paid after the end and not given back yet: what the billing's pass reads, a handful
-- among a million.
CREATE INDEX charges_paid_after_the_end ON charges (id) WHERE status = 'paga' AND motivo LIKE '%: a devolver';
