-- The live definition of `ledger_on_charge` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000057 made the ledger it writes.
-- A charge: due when created; received at what its rail reported (a payroll discount, a debit
-- returned paid, a Pix settled), after its contract's end too; cancelled when it ends unpaid.
CREATE OR REPLACE FUNCTION ledger_on_charge() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
        VALUES (NEW.id_proposta, 'devido', NEW.valor, 'cobranca', NEW.id::text, NEW.metodo, NEW.criada_em);
    END IF;
    IF NEW.status = 'paga' AND (TG_OP = 'INSERT' OR OLD.status <> 'paga') THEN
        INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
        VALUES (NEW.id_proposta, 'recebido', coalesce(NEW.valor_pago, NEW.valor), 'cobranca', NEW.id::text,
                NEW.metodo, NEW.pago_em);
    ELSIF TG_OP = 'UPDATE' AND NEW.status = 'cancelada' AND OLD.status IN ('aberta', 'falhou') THEN
        INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
        VALUES (NEW.id_proposta, 'cancelado', NEW.valor, 'cobranca', NEW.id::text, NEW.metodo, NEW.alterada_em);
    END IF;
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER charges_ledger AFTER INSERT OR UPDATE OF status ON charges
    FOR EACH ROW EXECUTE FUNCTION ledger_on_charge();
