-- Back to one table of deliveries and attempts partitioned by `attempted_at` (migration 000032),
-- every row kept.

ALTER SEQUENCE hook_deliveries_id_seq OWNED BY NONE;
ALTER SEQUENCE hook_attempts_id_seq OWNED BY NONE;
CREATE TABLE hook_deliveries_moving AS SELECT * FROM hook_deliveries;
CREATE TABLE hook_attempts_moving AS SELECT * FROM hook_attempts;
DROP TABLE hook_attempts;
DROP TABLE hook_deliveries;
DROP FUNCTION ensure_delivery_month_partition(timestamptz);

CREATE TABLE hook_deliveries (
    id                BIGINT      PRIMARY KEY DEFAULT nextval('hook_deliveries_id_seq'),
    subscription_id   BIGINT      NOT NULL REFERENCES hook_subscriptions (id) ON DELETE CASCADE,
    proposal_event_id BIGINT      REFERENCES proposal_events (id) ON DELETE SET NULL,
    message_id        TEXT        NOT NULL,
    event_type        TEXT        NOT NULL,
    body              TEXT        NOT NULL,
    state             TEXT        NOT NULL DEFAULT 'PENDENTE',
    attempts          INTEGER     NOT NULL DEFAULT 0,
    next_attempt_at   TIMESTAMPTZ NOT NULL,
    leased_until      TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at      TIMESTAMPTZ,
    replay_id         BIGINT      REFERENCES hook_replays (id) ON DELETE SET NULL,
    CONSTRAINT hook_deliveries_message_id_key UNIQUE (message_id),
    CONSTRAINT hook_deliveries_state_check CHECK (state IN ('PENDENTE', 'ENTREGUE', 'ESGOTADA', 'CANCELADA')),
    CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE'))
);
ALTER SEQUENCE hook_deliveries_id_seq OWNED BY hook_deliveries.id;
INSERT INTO hook_deliveries SELECT * FROM hook_deliveries_moving;
CREATE INDEX hook_deliveries_due ON hook_deliveries (subscription_id, next_attempt_at, id)
    WHERE state = 'PENDENTE';
CREATE INDEX hook_deliveries_leased ON hook_deliveries (subscription_id)
    WHERE state = 'PENDENTE' AND leased_until IS NOT NULL;
CREATE INDEX hook_deliveries_listing ON hook_deliveries (subscription_id, id DESC);
CREATE INDEX hook_deliveries_created ON hook_deliveries (created_at);
CREATE INDEX hook_deliveries_replaying ON hook_deliveries (subscription_id)
    WHERE replay_id IS NOT NULL AND state = 'PENDENTE';
CREATE INDEX hook_deliveries_window ON hook_deliveries (subscription_id, created_at);
-- The rule the row lock held becomes the index again (the newest waiting test stays, as in
-- migration 000018).
UPDATE hook_deliveries d
SET state = 'CANCELADA', leased_until = NULL
WHERE d.event_type = 'TESTE' AND d.state = 'PENDENTE'
  AND EXISTS (SELECT 1 FROM hook_deliveries n
              WHERE n.subscription_id = d.subscription_id AND n.event_type = 'TESTE'
                AND n.state = 'PENDENTE' AND n.id > d.id);
CREATE UNIQUE INDEX hook_deliveries_one_pending_test ON hook_deliveries (subscription_id)
    WHERE event_type = 'TESTE' AND state = 'PENDENTE';

CREATE TABLE hook_attempts (
    id              BIGINT      NOT NULL DEFAULT nextval('hook_attempts_id_seq'),
    delivery_id     BIGINT      NOT NULL
        CONSTRAINT hook_attempts_delivery_id_fkey REFERENCES hook_deliveries (id) ON DELETE CASCADE,
    number          INTEGER     NOT NULL,
    attempted_at    TIMESTAMPTZ NOT NULL,
    response_status INTEGER,
    duration_ms     BIGINT      NOT NULL,
    error           TEXT,
    next_attempt_at TIMESTAMPTZ,
    PRIMARY KEY (id, attempted_at)
) PARTITION BY RANGE (attempted_at);
ALTER SEQUENCE hook_attempts_id_seq OWNED BY hook_attempts.id;
CREATE INDEX hook_attempts_delivery ON hook_attempts (delivery_id, number);
CREATE TABLE hook_attempts_default PARTITION OF hook_attempts DEFAULT;
SELECT ensure_month_partition('hook_attempts', 'attempted_at', month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(attempted_at) FROM hook_attempts_moving)) AT TIME ZONE 'UTC')
        AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO hook_attempts (id, delivery_id, number, attempted_at, response_status, duration_ms, error, next_attempt_at)
SELECT id, delivery_id, number, attempted_at, response_status, duration_ms, error, next_attempt_at
FROM hook_attempts_moving;
DROP TABLE hook_attempts_moving;
DROP TABLE hook_deliveries_moving;

-- Migration 000032's and 000033's functions, as they were.
CREATE FUNCTION drop_month_partitions_before(parent regclass, cutoff timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    part record;
    dropped integer := 0;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent AND c.relname ~ '_\d{4}_\d{2}$'
    LOOP
        IF (to_timestamp(right(part.relname, 7), 'YYYY_MM')::timestamp AT TIME ZONE 'UTC') + interval '1 month'
           <= cutoff THEN
            EXECUTE format('DROP TABLE %I', part.relname);
            dropped := dropped + 1;
        END IF;
    END LOOP;
    RETURN dropped;
END $$;

CREATE OR REPLACE FUNCTION drop_month_partitions_counted(parent regclass, cutoff timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    part record;
    held bigint;
    dropped bigint := 0;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent AND c.relname ~ '_\d{4}_\d{2}$'
    LOOP
        IF (to_timestamp(right(part.relname, 7), 'YYYY_MM')::timestamp AT TIME ZONE 'UTC') + interval '1 month'
           <= cutoff THEN
            EXECUTE format('SELECT count(*) FROM %I', part.relname) INTO held;
            EXECUTE format('DROP TABLE %I', part.relname);
            dropped := dropped + held;
        END IF;
    END LOOP;
    RETURN dropped;
END $$;
