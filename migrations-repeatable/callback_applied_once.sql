-- The live definition of `callback_applied_once` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000033 last wrote it there.
CREATE OR REPLACE FUNCTION callback_applied_once()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    seen boolean;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(TG_ARGV[0] || ':' || NEW.event_id, 0));
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE event_id = $1)', TG_ARGV[0]) INTO seen USING NEW.event_id;
    IF seen THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $function$;

CREATE OR REPLACE TRIGGER payment_events_once BEFORE INSERT ON payment_events FOR EACH ROW EXECUTE FUNCTION callback_applied_once('payment_events');

CREATE OR REPLACE TRIGGER signature_callbacks_once BEFORE INSERT ON signature_callbacks FOR EACH ROW EXECUTE FUNCTION callback_applied_once('signature_callbacks');
