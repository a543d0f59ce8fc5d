-- The live definition of `proposal_history_on_customer` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000021 last wrote it there.
-- The search column follows the name: a correction of the name is one change in the history,
-- not two.
CREATE OR REPLACE FUNCTION proposal_history_on_customer()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id_proposta', 'id_cliente', 'alterado_em', 'alterado_por', 'criado_em', 'nome_busca'], NULL);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, history_action('correcao'), changed);
    END IF;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposal_customers_history AFTER UPDATE ON proposal_customers FOR EACH ROW WHEN (old.* IS DISTINCT FROM new.*) EXECUTE FUNCTION proposal_history_on_customer();
