-- The webhook deliveries in monthly partitions by `created_at` (UTC), and their attempts moved to
-- their delivery's month (partitioned by `delivery_created_at` instead of `attempted_at`), so
-- that a month of deliveries and its attempts drop together as tables once past
-- HOOKS_RETENTION_DAYS (decision 156).
--
-- What a partitioned table cannot hold across months is held elsewhere:
-- - `message_id` was unique: it is 122 random bits made by `gen_random_uuid()` per delivery (a
--   replay sends the same row again), so the index that only checked it goes;
-- - one test event waiting per subscription (migration 000018's partial unique index) is held
--   under the subscription's row lock, by the only two writes that make a test pending (a new
--   test and a retry of one).

-- One way to drop old months for every partitioned table: migration 000033's, counting the rows
-- dropped, now detaching each month first, since the attempts' foreign key lets a referenced
-- month of deliveries go only that way (and finds none of its attempts left, their month dropped
-- before it).
DROP FUNCTION drop_month_partitions_before(regclass, timestamptz);
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
            EXECUTE format('ALTER TABLE %s DETACH PARTITION %I', parent, part.relname);
            EXECUTE format('DROP TABLE %I', part.relname);
            dropped := dropped + held;
        END IF;
    END LOOP;
    RETURN dropped;
END $$;

-- The month of deliveries holding `month`, and its attempts' month, made when missing. Deliveries
-- of the month caught by the DEFAULT partition move to it; the delete of that move would cascade
-- to their attempts, so those are kept aside and put back once their delivery is in its month.
CREATE FUNCTION ensure_delivery_month_partition(month timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    first timestamptz := date_trunc('month', month AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    next timestamptz := (date_trunc('month', month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    name text := 'hook_deliveries_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    carried boolean;
    made boolean;
BEGIN
    PERFORM ensure_month_partition('hook_attempts', 'delivery_created_at', month);
    IF to_regclass(quote_ident(name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('ensure_month_partition'));
    carried := EXISTS (SELECT 1 FROM hook_attempts WHERE delivery_created_at >= first AND delivery_created_at < next);
    IF carried THEN
        CREATE TEMP TABLE hook_attempts_carried ON COMMIT DROP AS
            SELECT * FROM hook_attempts WHERE delivery_created_at >= first AND delivery_created_at < next;
    END IF;
    made := ensure_month_partition('hook_deliveries', 'created_at', month);
    IF carried THEN
        INSERT INTO hook_attempts SELECT * FROM hook_attempts_carried;
        DROP TABLE hook_attempts_carried;
    END IF;
    RETURN made;
END $$;

-- The rows aside while the tables are made again; the id sequences stay (they outlive the tables).
ALTER SEQUENCE hook_deliveries_id_seq OWNED BY NONE;
ALTER SEQUENCE hook_attempts_id_seq OWNED BY NONE;
CREATE TABLE hook_deliveries_moving AS SELECT * FROM hook_deliveries;
CREATE TABLE hook_attempts_moving AS SELECT * FROM hook_attempts;
DROP TABLE hook_attempts;
DROP TABLE hook_deliveries;

CREATE TABLE hook_deliveries (
    id                BIGINT      NOT NULL DEFAULT nextval('hook_deliveries_id_seq'),
    subscription_id   BIGINT      NOT NULL
        CONSTRAINT hook_deliveries_subscription_id_fkey REFERENCES hook_subscriptions (id) ON DELETE CASCADE,
    proposal_event_id BIGINT
        CONSTRAINT hook_deliveries_proposal_event_id_fkey REFERENCES proposal_events (id) ON DELETE SET NULL,
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
    replay_id         BIGINT
        CONSTRAINT hook_deliveries_replay_id_fkey REFERENCES hook_replays (id) ON DELETE SET NULL,
    PRIMARY KEY (id, created_at),
    CONSTRAINT hook_deliveries_state_check CHECK (state IN ('PENDENTE', 'ENTREGUE', 'ESGOTADA', 'CANCELADA')),
    CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'TESTE'))
) PARTITION BY RANGE (created_at);
ALTER SEQUENCE hook_deliveries_id_seq OWNED BY hook_deliveries.id;
-- The indexes of before (migrations 000007, 000018 and 000026), on every month.
CREATE INDEX hook_deliveries_due ON hook_deliveries (subscription_id, next_attempt_at, id)
    WHERE state = 'PENDENTE';
CREATE INDEX hook_deliveries_leased ON hook_deliveries (subscription_id)
    WHERE state = 'PENDENTE' AND leased_until IS NOT NULL;
CREATE INDEX hook_deliveries_listing ON hook_deliveries (subscription_id, id DESC);
CREATE INDEX hook_deliveries_created ON hook_deliveries (created_at);
CREATE INDEX hook_deliveries_replaying ON hook_deliveries (subscription_id)
    WHERE replay_id IS NOT NULL AND state = 'PENDENTE';
CREATE INDEX hook_deliveries_window ON hook_deliveries (subscription_id, created_at);
CREATE TABLE hook_deliveries_default PARTITION OF hook_deliveries DEFAULT;

CREATE TABLE hook_attempts (
    id                  BIGINT      NOT NULL DEFAULT nextval('hook_attempts_id_seq'),
    delivery_id         BIGINT      NOT NULL,
    -- The delivery's month is the attempt's: they drop together.
    delivery_created_at TIMESTAMPTZ NOT NULL,
    number              INTEGER     NOT NULL,
    attempted_at        TIMESTAMPTZ NOT NULL,
    response_status     INTEGER,
    duration_ms         BIGINT      NOT NULL,
    error               TEXT,
    next_attempt_at     TIMESTAMPTZ,
    PRIMARY KEY (id, delivery_created_at),
    CONSTRAINT hook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id, delivery_created_at)
        REFERENCES hook_deliveries (id, created_at) ON UPDATE CASCADE ON DELETE CASCADE
) PARTITION BY RANGE (delivery_created_at);
ALTER SEQUENCE hook_attempts_id_seq OWNED BY hook_attempts.id;
CREATE INDEX hook_attempts_delivery ON hook_attempts (delivery_id, number);
CREATE TABLE hook_attempts_default PARTITION OF hook_attempts DEFAULT;

SELECT ensure_delivery_month_partition(month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(created_at) FROM hook_deliveries_moving)) AT TIME ZONE 'UTC')
        AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO hook_deliveries (id, subscription_id, proposal_event_id, message_id, event_type, body, state, attempts,
                             next_attempt_at, leased_until, created_at, delivered_at, replay_id)
SELECT id, subscription_id, proposal_event_id, message_id, event_type, body, state, attempts,
       next_attempt_at, leased_until, created_at, delivered_at, replay_id
FROM hook_deliveries_moving;
INSERT INTO hook_attempts (id, delivery_id, delivery_created_at, number, attempted_at, response_status, duration_ms,
                           error, next_attempt_at)
SELECT a.id, a.delivery_id, d.created_at, a.number, a.attempted_at, a.response_status, a.duration_ms,
       a.error, a.next_attempt_at
FROM hook_attempts_moving a JOIN hook_deliveries_moving d ON d.id = a.delivery_id;
DROP TABLE hook_attempts_moving;
DROP TABLE hook_deliveries_moving;
