-- Event subscriptions (webhooks) and their transactional outbox: one delivery row per event and
-- matching subscription, written in the transaction of the status change, and one attempt row per
-- request sent.

CREATE TABLE hook_subscriptions (
    id                    BIGSERIAL PRIMARY KEY,
    uuid                  UUID        NOT NULL,
    -- Whose: a partner's (its proposals), the shop's (e-commerce proposals) or the back office's (all).
    owner_application     TEXT        NOT NULL,
    partner_id            BIGINT      REFERENCES partners (id),
    created_by            TEXT        NOT NULL,
    endpoint              TEXT        NOT NULL,
    events                TEXT[]      NOT NULL,
    status                TEXT        NOT NULL,
    -- Signing secrets, encrypted (XChaCha20-Poly1305; nonce first, the uuid as associated data).
    secret_sealed         BYTEA       NOT NULL,
    previous_secret_sealed BYTEA,
    previous_secret_until TIMESTAMPTZ,
    inactive_reason       TEXT,
    last_success_at       TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    deleted_at            TIMESTAMPTZ,
    CONSTRAINT hook_subscriptions_uuid_key UNIQUE (uuid),
    CONSTRAINT hook_subscriptions_owner_check CHECK (
        (owner_application = 'PARCEIRO' AND partner_id IS NOT NULL)
        OR (owner_application IN ('ECOMMERCE', 'BACKOFFICE') AND partner_id IS NULL)),
    CONSTRAINT hook_subscriptions_status_check CHECK (status IN ('ATIVO', 'INATIVO')),
    CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'TESTE']::TEXT[])
);

-- The subscriptions a status change fans out to.
CREATE INDEX hook_subscriptions_active ON hook_subscriptions (owner_application, partner_id)
    WHERE status = 'ATIVO' AND deleted_at IS NULL;

CREATE TABLE hook_deliveries (
    id                BIGSERIAL PRIMARY KEY,
    subscription_id   BIGINT      NOT NULL REFERENCES hook_subscriptions (id) ON DELETE CASCADE,
    proposal_event_id BIGINT      REFERENCES proposal_events (id) ON DELETE SET NULL,
    -- The webhook-id header, the same on every attempt.
    message_id        TEXT        NOT NULL,
    event_type        TEXT        NOT NULL,
    -- The exact bytes sent (and signed) on every attempt.
    body              TEXT        NOT NULL,
    state             TEXT        NOT NULL DEFAULT 'PENDENTE',
    -- Attempts started; the number of the one in flight fences its lease.
    attempts          INTEGER     NOT NULL DEFAULT 0,
    next_attempt_at   TIMESTAMPTZ NOT NULL,
    leased_until      TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at      TIMESTAMPTZ,
    CONSTRAINT hook_deliveries_message_id_key UNIQUE (message_id),
    CONSTRAINT hook_deliveries_state_check CHECK (state IN ('PENDENTE', 'ENTREGUE', 'ESGOTADA', 'CANCELADA')),
    CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'TESTE'))
);

-- What the workers scan: pending rows by subscription in the order they are claimed (due time,
-- then id), so a claim reads only the rows it takes however long the backlog.
CREATE INDEX hook_deliveries_due ON hook_deliveries (subscription_id, next_attempt_at, id)
    WHERE state = 'PENDENTE';
-- The deliveries in flight (a lease is cleared when the attempt is recorded): counting them per
-- subscription stays cheap however long the backlog.
CREATE INDEX hook_deliveries_leased ON hook_deliveries (subscription_id)
    WHERE state = 'PENDENTE' AND leased_until IS NOT NULL;
CREATE INDEX hook_deliveries_listing ON hook_deliveries (subscription_id, id DESC);
CREATE INDEX hook_deliveries_created ON hook_deliveries (created_at);

CREATE TABLE hook_attempts (
    id              BIGSERIAL PRIMARY KEY,
    delivery_id     BIGINT      NOT NULL REFERENCES hook_deliveries (id) ON DELETE CASCADE,
    number          INTEGER     NOT NULL,
    attempted_at    TIMESTAMPTZ NOT NULL,
    response_status INTEGER,
    duration_ms     BIGINT      NOT NULL,
    error           TEXT,
    next_attempt_at TIMESTAMPTZ
);

CREATE INDEX hook_attempts_delivery ON hook_attempts (delivery_id, number);

