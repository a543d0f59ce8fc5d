-- The live definition of `proposal_history_on_status` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000016 last wrote it there.
-- Status moves, by whom and why; a back-office refusal or cancellation also with the category a
-- seller reads instead of the words (decision 283; read through `to_jsonb` so that the body works
-- on either side of migration 000073).
CREATE OR REPLACE FUNCTION proposal_history_on_status()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.proposal_id, NEW.changed_at, NEW.changed_by, 'status',
        jsonb_build_object('status', jsonb_build_object('from', NEW.from_status, 'to', NEW.to_status))
        || CASE WHEN NEW.reason IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('motivo', jsonb_build_object('from', NULL, 'to', NEW.reason)) END
        || CASE WHEN to_jsonb(NEW) ->> 'reason_category' IS NULL THEN '{}'::jsonb
                ELSE jsonb_build_object('categoria_motivo',
                    jsonb_build_object('from', NULL, 'to', to_jsonb(NEW) ->> 'reason_category')) END);
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposal_events_history AFTER INSERT ON proposal_events FOR EACH ROW EXECUTE FUNCTION proposal_history_on_status();
