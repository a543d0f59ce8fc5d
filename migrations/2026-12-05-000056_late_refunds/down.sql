-- An operation that gave money back is part of its sale's history, never deleted: the older
-- constraint could not hold it, so going down stops while one exists.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM proposal_operations WHERE kind = 'devolucao_tardia') THEN
        RAISE EXCEPTION 'a migração 56 não pode ser desfeita: há devoluções tardias registradas (proposal_operations.kind = devolucao_tardia)';
    END IF;
END $$;

DROP INDEX charges_paid_after_the_end;
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix'));
