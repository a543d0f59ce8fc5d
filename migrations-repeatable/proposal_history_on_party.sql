-- The live definition of `proposal_history_on_party` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000016 last wrote it there.
-- Each party's signature (or refusal), by the party.
CREATE OR REPLACE FUNCTION proposal_history_on_party()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    SELECT s.proposal_id, coalesce(NEW.signed_at, now()), 'signatário: ' || NEW.role,
        CASE WHEN NEW.status = 'RECUSADO' THEN 'recusa' ELSE 'assinatura' END,
        jsonb_build_object('assinatura_' || NEW.role, jsonb_build_object('from', OLD.status, 'to', NEW.status))
    FROM signatures s WHERE s.id = NEW.signature_id;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER signature_parties_history AFTER UPDATE OF status ON signature_parties FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status) EXECUTE FUNCTION proposal_history_on_party();
