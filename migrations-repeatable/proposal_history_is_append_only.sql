-- The live definition of `proposal_history_is_append_only` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000032 last wrote it there.
-- The history's append-only rule, as before, and on every partition: the anonymisation's marker
-- (migration 000020), the retention schedule's marker on free text (decision 290) and a row
-- moving from the DEFAULT partition to its month are the only changes let through.
CREATE OR REPLACE FUNCTION proposal_history_is_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    -- The one rewrite each action admits: the anonymisation's markers on every reason and on what
    -- requests for documents asked, the retention schedule's on the free text about the person at
    -- the health horizon (decision 290). Any other action matches no case and is refused.
    IF TG_OP = 'UPDATE'
       AND (NEW.id, NEW.proposal_id, NEW.at, NEW.changed_by, NEW.action)
           IS NOT DISTINCT FROM (OLD.id, OLD.proposal_id, OLD.at, OLD.changed_by, OLD.action)
       -- In parentheses: PL/pgSQL ends an IF's condition at the first THEN outside them.
       AND NEW.changes = (CASE current_setting('sales.history_action', true)
               WHEN 'anonimizacao' THEN history_without_reasons(history_without_free_text(OLD.changes))
               WHEN 'retencao' THEN history_without_free_text(OLD.changes)
           END) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'proposal_history_default'
       AND current_setting('sales.partition_move', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'o histórico de propostas não pode ser alterado nem apagado'
        USING ERRCODE = 'insufficient_privilege';
END $function$;

CREATE OR REPLACE TRIGGER proposal_history_append_only BEFORE DELETE OR UPDATE ON proposal_history FOR EACH ROW EXECUTE FUNCTION proposal_history_is_append_only();

CREATE OR REPLACE TRIGGER proposal_history_no_truncate BEFORE TRUNCATE ON proposal_history FOR EACH STATEMENT EXECUTE FUNCTION proposal_history_is_append_only();

CREATE OR REPLACE TRIGGER proposal_history_no_truncate BEFORE TRUNCATE ON proposal_history_default FOR EACH STATEMENT EXECUTE FUNCTION proposal_history_is_append_only();
