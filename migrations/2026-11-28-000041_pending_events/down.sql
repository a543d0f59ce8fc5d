-- The two kinds go with what holds them: subscriptions lose them (one asking for nothing else is
-- removed), their deliveries and numbering rows are deleted.
DELETE FROM hook_deliveries WHERE event_type IN ('PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA');
DELETE FROM proposal_event_sequences WHERE kind IN ('PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA');
DELETE FROM hook_subscriptions WHERE events <@ ARRAY['PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA']::TEXT[];
UPDATE hook_subscriptions
SET events = array_remove(array_remove(events, 'PENDENCIA_ABERTA'), 'PENDENCIA_RESPONDIDA')
WHERE events && ARRAY['PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA']::TEXT[];

ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO'));
ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE'));
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE']::TEXT[]);
