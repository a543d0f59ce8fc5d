-- E-commerce on the payment platform: the product's price there, the customer's saved payment
-- method, setup intents (never their client secret), subscriptions with the platform's object,
-- inbound platform events already handled, and the sandbox platform's own objects.

ALTER TABLE products ADD COLUMN price_id TEXT;
ALTER TABLE customers ADD COLUMN payment_method_id TEXT;

CREATE TABLE setup_intents (
    id          TEXT PRIMARY KEY,
    customer_id BIGINT      NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    status      TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX setup_intents_customer_idx ON setup_intents (customer_id);

-- A row is claimed (status 'pending') before the platform is called, so that of concurrent calls
-- only one reaches it; the partial unique index keeps one live subscription per customer and product.
CREATE TABLE subscriptions (
    id          BIGSERIAL PRIMARY KEY,
    proposal_id BIGINT      NOT NULL REFERENCES proposals (id),
    customer_id BIGINT      NOT NULL REFERENCES customers (id),
    product_id  BIGINT      NOT NULL REFERENCES products (id),
    platform_id TEXT,
    status      TEXT        NOT NULL,
    object      JSONB,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT subscriptions_platform_id_key UNIQUE (platform_id),
    CONSTRAINT subscriptions_status_check CHECK (status IN ('pending', 'incomplete', 'incomplete_expired', 'trialing', 'active',
        'past_due', 'canceled', 'unpaid', 'paused'))
);
CREATE UNIQUE INDEX subscriptions_one_live_per_customer_product ON subscriptions (customer_id, product_id)
    WHERE status IN ('pending', 'incomplete', 'trialing', 'active', 'past_due', 'unpaid', 'paused');

CREATE TABLE payment_events (
    event_id    TEXT PRIMARY KEY,
    kind        TEXT        NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The sandbox platform keeps its objects here, so that it behaves the same across restarts and
-- instances; an idempotency key answers the object it created the first time.
CREATE TABLE sandbox_payment_objects (
    id              TEXT PRIMARY KEY,
    kind            TEXT        NOT NULL,
    idempotency_key TEXT,
    object          JSONB       NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT sandbox_payment_objects_idempotency_key UNIQUE (kind, idempotency_key)
);
