-- The ledger is written from the facts it enters (charges, refunds, card invoices): going down
-- drops it and the card invoices read from the platform (`reconcile payments` reads them again);
-- going up again enters every charge and refund anew. Route 7's documents lose it when rebuilt.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT id_proposta FROM ledger_entries
ON CONFLICT DO NOTHING;
DROP TRIGGER refunds_ledger ON refunds;
DROP TRIGGER charges_ledger ON charges;
DROP TABLE ledger_entries;
DROP TABLE ledger_checks;
DROP TABLE card_invoices;
DROP FUNCTION ledger_on_refund();
DROP FUNCTION ledger_on_card_invoice();
DROP FUNCTION ledger_on_charge();
DROP FUNCTION ledger_entries_never_change();
