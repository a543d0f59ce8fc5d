-- The blocks go: a blocked person's data is then shown and used as anyone's (take care: the hold
-- is the law's, not this table's). The triggers of migrations-repeatable/refuse_blocked_person.sql
-- read the table dropped here, so they go first; `migrate` makes them again after an up.
DROP TRIGGER IF EXISTS proposals_refuse_blocked ON proposals;
DROP TRIGGER IF EXISTS customers_refuse_blocked ON customers;
DROP FUNCTION IF EXISTS refuse_blocked_person();
ALTER TABLE proposal_read_models DROP COLUMN bloqueado;
DROP TABLE personal_data_blocks;
