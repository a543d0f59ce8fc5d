-- The live definition of `drop_month_partitions_counted`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000034 last wrote it there.
CREATE OR REPLACE FUNCTION drop_month_partitions_counted(parent regclass, cutoff timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
END $function$;
