-- Replays (issue 28): a subscription's owner asks for a window of its deliveries again. The
-- deliveries are made due again in place (same message id and bytes, so the receiver
-- deduplicates) and remember the replay that did it, so that a second replay waits until the
-- first one's deliveries have settled.

CREATE TABLE hook_replays (
    id              BIGSERIAL   PRIMARY KEY,
    subscription_id BIGINT      NOT NULL REFERENCES hook_subscriptions (id) ON DELETE CASCADE,
    since           TIMESTAMPTZ NOT NULL,
    until           TIMESTAMPTZ NOT NULL,
    requested_by    TEXT        NOT NULL,
    requested_at    TIMESTAMPTZ NOT NULL,
    deliveries      INTEGER     NOT NULL DEFAULT 0,
    CONSTRAINT hook_replays_window CHECK (since < until),
    CONSTRAINT hook_replays_deliveries CHECK (deliveries >= 0)
);

CREATE INDEX hook_replays_subscription ON hook_replays (subscription_id);
CREATE INDEX hook_replays_requested ON hook_replays (requested_at);

ALTER TABLE hook_deliveries ADD COLUMN replay_id BIGINT REFERENCES hook_replays (id) ON DELETE SET NULL;

-- A replay of the subscription still running: one of its deliveries waits to be sent.
CREATE INDEX hook_deliveries_replaying ON hook_deliveries (subscription_id)
    WHERE replay_id IS NOT NULL AND state = 'PENDENTE';
-- The window a replay reads.
CREATE INDEX hook_deliveries_window ON hook_deliveries (subscription_id, created_at);
