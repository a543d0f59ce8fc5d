-- The clocks, requests and files go, and with them the member of every document that holds one.
UPDATE proposal_read_models SET documento = documento - 'acceptance' WHERE documento ? 'acceptance';
DROP TABLE sandbox_clock;
DROP TABLE proposal_pending_files;
DROP TABLE proposal_pending_requests;
DROP TABLE proposal_acceptances;
ALTER TABLE products DROP COLUMN aceite_dias, DROP COLUMN aceite_tacito, DROP COLUMN aceite_suspensoes;
