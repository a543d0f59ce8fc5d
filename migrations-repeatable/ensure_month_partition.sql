-- The live definition of `ensure_month_partition`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000032 last wrote it there.
-- The partition of `parent` (partitioned by range on `key`) for the month holding `month` (UTC),
-- made when missing, with the rows its DEFAULT partition held for that month moved into it; the
-- parent's statement-level TRUNCATE triggers are repeated on it (row triggers are cloned by
-- PostgreSQL itself). Answers whether it made one.
CREATE OR REPLACE FUNCTION ensure_month_partition(parent regclass, key text, month timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
END $function$;
