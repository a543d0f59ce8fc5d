-- The live definition of `proposal_history_on_request` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000028 last wrote it there.
-- The request in the proposal's history (`solicitacao`), beside the status move it made, which
-- carries the reason.
CREATE OR REPLACE FUNCTION proposal_history_on_request()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.proposal_id, NEW.solicitado_em, NEW.solicitado_por, 'solicitacao',
        jsonb_build_object(
            'protocolo', jsonb_build_object('from', NULL, 'to', NEW.protocolo),
            'tipo', jsonb_build_object('from', NULL, 'to', NEW.tipo)));
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER customer_requests_history AFTER INSERT ON customer_requests FOR EACH ROW EXECUTE FUNCTION proposal_history_on_request();
