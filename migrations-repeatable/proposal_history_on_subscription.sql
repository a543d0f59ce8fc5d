-- The live definition of `proposal_history_on_subscription` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000030 last wrote it there.
-- The history names a change of the subscription's status and of its latest invoice's.
CREATE OR REPLACE FUNCTION proposal_history_on_subscription()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    changes JSONB := '{}'::jsonb;
BEGIN
    IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
        changes := changes || jsonb_build_object('assinatura_pagamento', jsonb_build_object(
            'from', CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, 'to', NEW.status));
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.latest_invoice_status IS DISTINCT FROM NEW.latest_invoice_status THEN
        changes := changes || jsonb_build_object('fatura_pagamento', jsonb_build_object(
            'from', OLD.latest_invoice_status, 'to', NEW.latest_invoice_status));
    END IF;
    INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
    VALUES (NEW.proposal_id, 'plataforma de pagamento', 'pagamento', changes);
    RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER subscriptions_history_create AFTER INSERT ON subscriptions FOR EACH ROW EXECUTE FUNCTION proposal_history_on_subscription();

CREATE OR REPLACE TRIGGER subscriptions_history_update AFTER UPDATE OF status, latest_invoice_status ON subscriptions FOR EACH ROW WHEN (old.status IS DISTINCT FROM new.status OR old.latest_invoice_status IS DISTINCT FROM new.latest_invoice_status) EXECUTE FUNCTION proposal_history_on_subscription();
