-- The live definition of `ledger_entries_never_change` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000057 made the ledger it writes.
CREATE OR REPLACE FUNCTION ledger_entries_never_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'lançamentos do razão não se alteram nem se apagam (ledger_entries %)', TG_OP;
END $$;
CREATE OR REPLACE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_never_change();
CREATE OR REPLACE TRIGGER ledger_entries_not_truncated BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_never_change();
