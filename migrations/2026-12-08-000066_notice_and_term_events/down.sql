-- The two kinds go with what holds them (a subscription asking for nothing else is removed, as
-- migration 51's down does for its kind): their deliveries and their sequences.
DELETE FROM hook_deliveries WHERE event_type IN ('AVISO_REGISTRADO', 'VIGENCIA_RENOVADA');
DELETE FROM proposal_event_sequences WHERE kind IN ('AVISO_REGISTRADO', 'VIGENCIA_RENOVADA');
DELETE FROM hook_subscriptions WHERE events <@ ARRAY['AVISO_REGISTRADO', 'VIGENCIA_RENOVADA']::TEXT[];
UPDATE hook_subscriptions SET events = array_remove(array_remove(events, 'AVISO_REGISTRADO'), 'VIGENCIA_RENOVADA')
WHERE events && ARRAY['AVISO_REGISTRADO', 'VIGENCIA_RENOVADA']::TEXT[];

ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO',
        'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA', 'COBRANCA_ALTERADA'));
ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
        'COBRANCA_ALTERADA', 'TESTE'));
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
            'COBRANCA_ALTERADA', 'TESTE']::TEXT[]);
