-- The assignments go; the clocks, the requests and the history's entries stay. The history's
-- triggers on the assignment and the requests (migrations-repeatable/proposal_history_on_acceptance.sql)
-- read the columns dropped here, so they go first; `migrate` makes them again after an up.
DROP TRIGGER IF EXISTS proposal_acceptances_history ON proposal_acceptances;
DROP TRIGGER IF EXISTS proposal_pending_requests_history ON proposal_pending_requests;
DROP FUNCTION IF EXISTS proposal_history_on_acceptance();
DROP INDEX IF EXISTS proposal_acceptances_analyst;
DROP INDEX IF EXISTS proposal_acceptances_queue;
ALTER TABLE proposal_acceptances
    DROP CONSTRAINT proposal_acceptances_assignment,
    DROP COLUMN atribuida_em,
    DROP COLUMN atribuida_por,
    DROP COLUMN analista;
