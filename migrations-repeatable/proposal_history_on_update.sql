-- The live definition of `proposal_history_on_update` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000017 last wrote it there.
CREATE OR REPLACE FUNCTION proposal_history_on_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['status', 'alterado_em', 'alterado_por', 'criado_em'], ARRAY['cpf_cliente']);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id, NEW.alterado_por, history_action(CASE
            WHEN (OLD.key_documento IS NULL AND NEW.key_documento IS NOT NULL)
              OR (OLD.key_assinatura_requisicao IS NULL AND NEW.key_assinatura_requisicao IS NOT NULL) THEN 'envio'
            WHEN NEW.reenvios <> OLD.reenvios THEN 'reenvio'
            ELSE 'alteracao'
        END), changed);
    END IF;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER proposals_history_update AFTER UPDATE ON proposals FOR EACH ROW WHEN (old.* IS DISTINCT FROM new.*) EXECUTE FUNCTION proposal_history_on_update();
