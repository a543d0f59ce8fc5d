-- The live definition of `proposal_copy_refreshable`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000037 last wrote it there.
-- Frozen means frozen (issue 44). A proposal's copy of its customer follows the seller's
-- corrections (route 3, and route 5's refresh of the registration's other proposals) only while
-- the proposal is NOVO and no operation holds it: a send that has claimed it renders its document
-- from the copy as it is then. The check runs under the proposal's row lock, which every move and
-- every claim holds until it commits, so what it reads has committed (a VOLATILE function reads
-- each statement anew).
CREATE OR REPLACE FUNCTION proposal_copy_refreshable(proposal bigint, new_status text)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM 1 FROM proposals WHERE id = proposal AND status = new_status FOR SHARE;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    RETURN NOT EXISTS (
        SELECT 1 FROM proposal_operations WHERE proposal_id = proposal AND state = 'pending');
END $function$;
