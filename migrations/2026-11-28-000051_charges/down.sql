-- The event kind goes with what holds it (a subscription asking for nothing else is removed);
-- the billings and charges go whole, and the products' policies.
DELETE FROM hook_deliveries WHERE event_type = 'COBRANCA_ALTERADA';
DELETE FROM proposal_event_sequences WHERE kind = 'COBRANCA_ALTERADA';
DELETE FROM hook_subscriptions WHERE events <@ ARRAY['COBRANCA_ALTERADA']::TEXT[];
UPDATE hook_subscriptions SET events = array_remove(events, 'COBRANCA_ALTERADA')
WHERE 'COBRANCA_ALTERADA' = ANY (events);

ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO',
        'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA'));
ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
        'TESTE'));
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
            'TESTE']::TEXT[]);

DROP TABLE charges;
DROP TABLE contract_billings;
ALTER TABLE products
    DROP CONSTRAINT products_cobranca_suspensao,
    DROP COLUMN cobranca_suspensao_dias,
    DROP COLUMN cobranca_carencia_dias,
    DROP COLUMN cobranca_retentativas_dias,
    DROP COLUMN cobranca_primeiro_vencimento_dias;
