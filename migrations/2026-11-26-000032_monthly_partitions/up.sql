-- What only grows, in monthly partitions (PostgreSQL's declarative partitioning): the proposals'
-- history (kept by law: its old months can be detached and archived whole) and the webhooks'
-- attempts (kept HOOKS_RETENTION_DAYS: whole months are dropped, not deleted row by row).
--
-- Each table gets a partition per calendar month (UTC), named <table>_YYYY_MM, made ahead by the
-- hourly housekeeping (`ensure_month_partition`, three months ahead), and a DEFAULT partition
-- that catches a row outside every month made (a provider's odd timestamp, a housekeeping that
-- did not run): no write ever fails for want of a partition, and the month's partition, when
-- made, takes those rows over.

-- The partition of `parent` (partitioned by range on `key`) for the month holding `month` (UTC),
-- made when missing, with the rows its DEFAULT partition held for that month moved into it; the
-- parent's statement-level TRUNCATE triggers are repeated on it (row triggers are cloned by
-- PostgreSQL itself). Answers whether it made one.
CREATE FUNCTION ensure_month_partition(parent regclass, key text, month timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    first timestamptz := date_trunc('month', month AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    next timestamptz := (date_trunc('month', month AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    base text := (SELECT relname FROM pg_class WHERE oid = parent);
    name text := base || '_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
    fallback text := base || '_default';
    guard record;
BEGIN
    IF to_regclass(quote_ident(name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- Every instance's housekeeping makes partitions: one at a time, the others then find it.
    PERFORM pg_advisory_xact_lock(hashtext('ensure_month_partition'));
    IF to_regclass(quote_ident(name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name, base);
    IF to_regclass(quote_ident(fallback)) IS NOT NULL THEN
        -- The one delete the history's append-only rule lets through: a row moving to its month.
        PERFORM set_config('sales.partition_move', 'on', true);
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) '
                       'INSERT INTO %I SELECT * FROM moved', fallback, key, key, name)
            USING first, next;
        PERFORM set_config('sales.partition_move', 'off', true);
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   base, name, first, next);
    FOR guard IN
        SELECT t.tgname, t.tgfoid::regproc AS function FROM pg_trigger t
        WHERE t.tgrelid = parent AND NOT t.tgisinternal AND (t.tgtype & 32) <> 0
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION %s()',
                       guard.tgname, name, guard.function);
    END LOOP;
    RETURN true;
END $$;

-- Drops the month partitions of `parent` whose whole month ends at or before `cutoff`; answers
-- how many.
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

-- The history's append-only rule, as before, and on every partition: the anonymisation's marker
-- (migration 000020) and a row moving from the DEFAULT partition to its month are the only
-- changes let through.
CREATE OR REPLACE FUNCTION proposal_history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('sales.history_action', true) = 'anonimizacao'
       AND (NEW.id, NEW.proposal_id, NEW.at, NEW.changed_by, NEW.action)
           IS NOT DISTINCT FROM (OLD.id, OLD.proposal_id, OLD.at, OLD.changed_by, OLD.action)
       AND NEW.changes = history_without_reasons(OLD.changes) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'proposal_history_default'
       AND current_setting('sales.partition_move', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'o histórico de propostas não pode ser alterado nem apagado'
        USING ERRCODE = 'insufficient_privilege';
END $$;

-- The history.
ALTER TABLE proposal_history RENAME TO proposal_history_unpartitioned;
ALTER INDEX proposal_history_pkey RENAME TO proposal_history_unpartitioned_pkey;
ALTER INDEX proposal_history_proposal_idx RENAME TO proposal_history_unpartitioned_proposal_idx;
ALTER TABLE proposal_history_unpartitioned
    RENAME CONSTRAINT proposal_history_proposal_id_fkey TO proposal_history_unpartitioned_proposal_id_fkey;
CREATE TABLE proposal_history (
    id          BIGINT      NOT NULL DEFAULT nextval('proposal_history_id_seq'),
    proposal_id BIGINT      NOT NULL CONSTRAINT proposal_history_proposal_id_fkey REFERENCES proposals (id),
    at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    changed_by  TEXT        NOT NULL,
    action      TEXT        NOT NULL,
    -- {field: {"from": value | null, "to": value | null}}
    changes     JSONB       NOT NULL,
    PRIMARY KEY (id, at)
) PARTITION BY RANGE (at);
ALTER SEQUENCE proposal_history_id_seq OWNED BY proposal_history.id;
CREATE INDEX proposal_history_proposal_idx ON proposal_history (proposal_id, id);
CREATE TRIGGER proposal_history_append_only BEFORE UPDATE OR DELETE ON proposal_history
    FOR EACH ROW EXECUTE FUNCTION proposal_history_is_append_only();
CREATE TRIGGER proposal_history_no_truncate BEFORE TRUNCATE ON proposal_history
    FOR EACH STATEMENT EXECUTE FUNCTION proposal_history_is_append_only();
CREATE TABLE proposal_history_default PARTITION OF proposal_history DEFAULT;
CREATE TRIGGER proposal_history_no_truncate BEFORE TRUNCATE ON proposal_history_default
    FOR EACH STATEMENT EXECUTE FUNCTION proposal_history_is_append_only();
SELECT ensure_month_partition('proposal_history', 'at', month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(at) FROM proposal_history_unpartitioned)) AT TIME ZONE 'UTC')
        AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO proposal_history (id, proposal_id, at, changed_by, action, changes)
SELECT id, proposal_id, at, changed_by, action, changes FROM proposal_history_unpartitioned;
DROP TABLE proposal_history_unpartitioned;

-- The webhooks' attempts.
ALTER TABLE hook_attempts RENAME TO hook_attempts_unpartitioned;
ALTER INDEX hook_attempts_pkey RENAME TO hook_attempts_unpartitioned_pkey;
ALTER INDEX hook_attempts_delivery RENAME TO hook_attempts_unpartitioned_delivery;
ALTER TABLE hook_attempts_unpartitioned
    RENAME CONSTRAINT hook_attempts_delivery_id_fkey TO hook_attempts_unpartitioned_delivery_id_fkey;
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
    date_trunc('month', least(now(), (SELECT min(attempted_at) FROM hook_attempts_unpartitioned)) AT TIME ZONE 'UTC')
        AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO hook_attempts (id, delivery_id, number, attempted_at, response_status, duration_ms, error, next_attempt_at)
SELECT id, delivery_id, number, attempted_at, response_status, duration_ms, error, next_attempt_at
FROM hook_attempts_unpartitioned;
DROP TABLE hook_attempts_unpartitioned;
