-- Without the record of operations, a pending one could not be finished: the down refuses while
-- any is pending (let the worker finish it first); what ended is a record only, and goes.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM proposal_operations WHERE state = 'pending') THEN
        RAISE EXCEPTION 'proposal_operations: há operações pendentes; deixe o worker concluí-las antes de reverter';
    END IF;
END $$;
DROP TABLE proposal_operations;
