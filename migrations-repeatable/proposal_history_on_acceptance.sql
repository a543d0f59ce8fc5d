-- The live definition of `proposal_history_on_acceptance` and its triggers, applied by `migrate`
-- after the versioned migrations (decision 169); migration 000045 added what it reads.
-- The analyst's work in the proposal's history: an assignment (`atribuicao`, who took it from
-- whom), a request for documents (`pendencia`, its items; for the proponent's, its category and
-- recipient, whose items a seller does not read, decision 289) and its answer
-- (`pendencia_resposta`, the request's id: the note is personal and goes with the person, so it
-- stays out).
CREATE OR REPLACE FUNCTION proposal_history_on_acceptance()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_TABLE_NAME = 'proposal_acceptances' THEN
        IF NEW.analista IS DISTINCT FROM OLD.analista AND NEW.atribuida_por IS NOT NULL THEN
            INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
            VALUES (NEW.id_proposta, NEW.atribuida_em, NEW.atribuida_por, 'atribuicao',
                jsonb_build_object('analista', jsonb_build_object('from', OLD.analista, 'to', NEW.analista)));
        END IF;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.pedida_em, NEW.pedida_por, 'pendencia',
            jsonb_build_object('itens', jsonb_build_object('from', NULL, 'to', to_jsonb(NEW.itens)))
            -- A request for the proponent names its category and recipient (a seller's is always
            -- documentation, decision 289). Read through to_jsonb(NEW) so that the body still runs
            -- below migration 000075.
            || CASE WHEN to_jsonb(NEW) ->> 'destinatario' IS DISTINCT FROM 'proponente' THEN '{}'::jsonb
               ELSE jsonb_build_object(
                   'categoria_motivo', jsonb_build_object('from', NULL, 'to', to_jsonb(NEW) ->> 'categoria_motivo'),
                   'destinatario', jsonb_build_object('from', NULL, 'to', to_jsonb(NEW) ->> 'destinatario')) END);
    ELSIF NEW.respondida_em IS NOT NULL AND OLD.respondida_em IS NULL THEN
        INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.respondida_em, NEW.respondida_por, 'pendencia_resposta',
            jsonb_build_object('pedido', jsonb_build_object('from', NULL, 'to', NEW.id)));
    END IF;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposal_acceptances_history AFTER UPDATE ON proposal_acceptances
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_acceptance();
CREATE OR REPLACE TRIGGER proposal_pending_requests_history AFTER INSERT OR UPDATE ON proposal_pending_requests
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_acceptance();
