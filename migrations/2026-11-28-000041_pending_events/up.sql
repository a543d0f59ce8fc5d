-- Two events of the acceptance clock (issue 45): a request for documents opened by the back office
-- (PENDENCIA_ABERTA) and answered by the seller (PENDENCIA_RESPONDIDA), each numbered per proposal.
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
            'TESTE']::TEXT[]);

ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
        'TESTE'));

ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO',
        'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA'));
