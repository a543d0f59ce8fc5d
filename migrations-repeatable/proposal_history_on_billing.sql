-- The live definition of `proposal_history_on_billing` and its triggers, applied by `migrate`
-- after the versioned migrations (decision 169); migration 000051 added what it reads.
-- The contract's money in the proposal's history: a charge paid, failed or cancelled
-- (`cobranca`: its period and status before and after; its creation and its attempts are in
-- route 7 and the events), and the billing's status moved (`cobranca_situacao`: late, suspended,
-- up to date again).
CREATE OR REPLACE FUNCTION proposal_history_on_billing()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_TABLE_NAME = 'charges' THEN
        INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterada_em, NEW.alterada_por, 'cobranca',
            jsonb_build_object('periodo', jsonb_build_object('from', NULL, 'to', NEW.periodo),
                               'status', jsonb_build_object('from', OLD.status, 'to', NEW.status)));
    ELSE
        INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.situacao_desde, NEW.situacao_por, 'cobranca_situacao',
            jsonb_build_object('situacao', jsonb_build_object('from', OLD.situacao, 'to', NEW.situacao)));
    END IF;
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER charges_history AFTER UPDATE OF status ON charges
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION proposal_history_on_billing();
CREATE OR REPLACE TRIGGER contract_billings_history AFTER UPDATE OF situacao ON contract_billings
    FOR EACH ROW WHEN (OLD.situacao IS DISTINCT FROM NEW.situacao) EXECUTE FUNCTION proposal_history_on_billing();
