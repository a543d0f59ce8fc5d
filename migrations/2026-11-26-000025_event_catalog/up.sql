-- The event catalog (issue 28): besides a status change and the test event, a subscription may ask
-- for a proposal's creation, its sendings for signature, each party's signature or refusal, and
-- its subscription's state on the payment platform.

ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE']::TEXT[]);

ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE'));

-- The number of a proposal's events of a kind, for the kinds that count nothing of their own (a
-- status change numbers its proposal_events row; a sending is the proposal's resends plus one; a
-- creation is 1). The row's lock orders concurrent events of one proposal and kind.
CREATE TABLE proposal_event_sequences (
    proposal_id   BIGINT  NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL,
    last_sequence INTEGER NOT NULL,
    PRIMARY KEY (proposal_id, kind),
    CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO')),
    CONSTRAINT proposal_event_sequences_positive CHECK (last_sequence > 0)
);
