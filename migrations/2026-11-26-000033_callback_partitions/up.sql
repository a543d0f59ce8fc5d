-- The providers' callback records (`signature_callbacks`, `payment_events`: each event applied
-- once) in monthly partitions by `received_at`, as migration 000032 made for the history and the
-- attempts: retention drops whole months instead of deleting their rows.
--
-- An event is still applied once across months. A partitioned table's unique key must hold its
-- partition key, so `(event_id, received_at)` alone would let the same event in again next month;
-- a trigger looks for the event in every month first, under a lock on the event's id (so that two
-- deliveries of it on either side of a month's end cannot both pass). The retention keeps twice
-- the replay window (`RetentionPolicy::callback_replay_window`), so every event still accepted
-- is still remembered.

CREATE FUNCTION callback_applied_once() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    seen boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(TG_ARGV[0] || ':' || NEW.event_id, 0));
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE event_id = $1)', TG_ARGV[0]) INTO seen USING NEW.event_id;
    IF seen THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

-- Drops the month partitions of `parent` whose whole month ends at or before `cutoff`, and
-- answers how many rows they held (what the purge reports).
CREATE FUNCTION drop_month_partitions_counted(parent regclass, cutoff timestamptz) RETURNS bigint
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

ALTER TABLE signature_callbacks RENAME TO signature_callbacks_unpartitioned;
ALTER INDEX signature_callbacks_pkey RENAME TO signature_callbacks_unpartitioned_pkey;
ALTER INDEX signature_callbacks_received_idx RENAME TO signature_callbacks_unpartitioned_received_idx;
CREATE TABLE signature_callbacks (
    event_id    TEXT        NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, received_at)
) PARTITION BY RANGE (received_at);
CREATE INDEX signature_callbacks_received_idx ON signature_callbacks (received_at);
CREATE TABLE signature_callbacks_default PARTITION OF signature_callbacks DEFAULT;
CREATE TRIGGER signature_callbacks_once BEFORE INSERT ON signature_callbacks
    FOR EACH ROW EXECUTE FUNCTION callback_applied_once('signature_callbacks');
SELECT ensure_month_partition('signature_callbacks', 'received_at', month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(received_at) FROM signature_callbacks_unpartitioned))
        AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO signature_callbacks (event_id, received_at)
SELECT event_id, received_at FROM signature_callbacks_unpartitioned;
DROP TABLE signature_callbacks_unpartitioned;

ALTER TABLE payment_events RENAME TO payment_events_unpartitioned;
ALTER INDEX payment_events_pkey RENAME TO payment_events_unpartitioned_pkey;
ALTER INDEX payment_events_received_idx RENAME TO payment_events_unpartitioned_received_idx;
CREATE TABLE payment_events (
    event_id    TEXT        NOT NULL,
    kind        TEXT        NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, received_at)
) PARTITION BY RANGE (received_at);
CREATE INDEX payment_events_received_idx ON payment_events (received_at);
CREATE TABLE payment_events_default PARTITION OF payment_events DEFAULT;
CREATE TRIGGER payment_events_once BEFORE INSERT ON payment_events
    FOR EACH ROW EXECUTE FUNCTION callback_applied_once('payment_events');
SELECT ensure_month_partition('payment_events', 'received_at', month)
FROM generate_series(
    date_trunc('month', least(now(), (SELECT min(received_at) FROM payment_events_unpartitioned))
        AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
    now() + interval '3 months', interval '1 month') AS month;
INSERT INTO payment_events (event_id, kind, received_at)
SELECT event_id, kind, received_at FROM payment_events_unpartitioned;
DROP TABLE payment_events_unpartitioned;
