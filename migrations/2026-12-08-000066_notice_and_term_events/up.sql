-- AVISO_REGISTRADO (a notice to the customer sent, or its receipt learned) and VIGENCIA_RENOVADA
-- (the contract renewed): two event kinds a subscription may ask for (decision 273).
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
            'COBRANCA_ALTERADA', 'AVISO_REGISTRADO', 'VIGENCIA_RENOVADA', 'TESTE']::TEXT[]);
ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
        'COBRANCA_ALTERADA', 'AVISO_REGISTRADO', 'VIGENCIA_RENOVADA', 'TESTE'));
ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO',
        'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA', 'COBRANCA_ALTERADA', 'AVISO_REGISTRADO', 'VIGENCIA_RENOVADA'));
