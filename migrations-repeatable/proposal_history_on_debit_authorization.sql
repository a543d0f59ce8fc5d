-- The live definition of `proposal_history_on_debit_authorization` and its trigger, applied by
-- `migrate` after the versioned migrations (decision 169); migration 000053 added what it reads.
-- The authorisation of the debits refused by the bank, or revoked at the bank or through the
-- insurer (`autorizacao_debito`: its status before and after, and why), by whoever changed it.
CREATE OR REPLACE FUNCTION proposal_history_on_debit_authorization()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.id_proposta, NEW.situacao_em, NEW.situacao_por, 'autorizacao_debito',
        jsonb_build_object('situacao', jsonb_build_object('from', OLD.situacao, 'to', NEW.situacao),
                           'motivo', jsonb_build_object('from', OLD.motivo, 'to', NEW.motivo)));
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER debit_authorizations_history AFTER UPDATE OF situacao ON debit_authorizations
    FOR EACH ROW WHEN (OLD.situacao IS DISTINCT FROM NEW.situacao)
    EXECUTE FUNCTION proposal_history_on_debit_authorization();
