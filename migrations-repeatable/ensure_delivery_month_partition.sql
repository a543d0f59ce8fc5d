-- The live definition of `ensure_delivery_month_partition`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000034 last wrote it there.
-- The month of deliveries holding `month`, and its attempts' month, made when missing. Deliveries
-- of the month caught by the DEFAULT partition move to it; the delete of that move would cascade
-- to their attempts, so those are kept aside and put back once their delivery is in its month.
CREATE OR REPLACE FUNCTION ensure_delivery_month_partition(month timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
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
END $function$;
