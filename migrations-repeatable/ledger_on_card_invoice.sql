-- The live definition of `ledger_on_card_invoice` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000057 made the ledger it writes.
-- A card invoice the platform collected: due and received at once (the platform bills and collects;
-- an invoice it never collects is no money of the contract's).
CREATE OR REPLACE FUNCTION ledger_on_card_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
    VALUES (NEW.id_proposta, 'devido', NEW.valor, 'fatura', NEW.id_fatura, 'CARTÃO', NEW.pago_em),
           (NEW.id_proposta, 'recebido', NEW.valor, 'fatura', NEW.id_fatura, 'CARTÃO', NEW.pago_em);
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER card_invoices_ledger AFTER INSERT ON card_invoices
    FOR EACH ROW EXECUTE FUNCTION ledger_on_card_invoice();
