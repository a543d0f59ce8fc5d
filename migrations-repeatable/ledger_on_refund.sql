-- The live definition of `ledger_on_refund` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000057 made the ledger it writes.
-- A refund: given back when the platform or the PSP returned it; owed back when the finance team
-- has to pay it, and given back by transfer when they do.
CREATE OR REPLACE FUNCTION ledger_on_refund() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
        VALUES (NEW.proposal_id, CASE WHEN NEW.meio = 'a_pagar' THEN 'a_devolver' ELSE 'devolvido' END,
                NEW.amount_cents, 'reembolso', NEW.id,
                CASE NEW.meio WHEN 'plataforma' THEN 'CARTÃO' WHEN 'pix' THEN 'PIX AUTOMÁTICO' ELSE 'TRANSFERÊNCIA' END,
                NEW.created_at);
    END IF;
    IF NEW.meio = 'a_pagar' AND NEW.status = 'pago' AND (TG_OP = 'INSERT' OR OLD.status <> 'pago') THEN
        INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
        VALUES (NEW.proposal_id, 'devolucao_paga', NEW.amount_cents, 'reembolso', NEW.id, 'TRANSFERÊNCIA', NEW.pago_em);
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER refunds_ledger AFTER INSERT OR UPDATE OF status ON refunds
    FOR EACH ROW EXECUTE FUNCTION ledger_on_refund();
