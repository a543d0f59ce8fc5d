-- Frozen means frozen (issue 44). A proposal's copy of its customer follows the seller's
-- corrections (route 3, and route 5's refresh of the registration's other proposals) only while
-- the proposal is NOVO and no operation holds it: a send that has claimed it renders its document
-- from the copy as it is then. The check runs under the proposal's row lock, which every move and
-- every claim holds until it commits, so what it reads has committed (a VOLATILE function reads
-- each statement anew).
CREATE FUNCTION proposal_copy_refreshable(proposal BIGINT, new_status TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM 1 FROM proposals WHERE id = proposal AND status = new_status FOR SHARE;
    IF NOT FOUND THEN
        RETURN FALSE;
    END IF;
    RETURN NOT EXISTS (
        SELECT 1 FROM proposal_operations WHERE proposal_id = proposal AND state = 'pending');
END $$;

-- Every write of a proposal's document takes the same lock first, then builds the document
-- from what has committed: two transactions writing one proposal's parts (a correction and a
-- cancellation) no longer leave the document of the one that read first.
CREATE OR REPLACE FUNCTION write_proposal_read_model(proposal BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    document JSONB;
BEGIN
    PERFORM 1 FROM proposals WHERE id = proposal FOR SHARE;
    document := proposal_document(proposal);
    IF document IS NULL THEN
        DELETE FROM proposal_read_models WHERE id_proposta = proposal;
        RETURN;
    END IF;
    INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento)
    SELECT p.id, p.identificador, p.fluxo, p.id_parceiro, document FROM proposals p WHERE p.id = proposal
    ON CONFLICT (id_proposta) DO UPDATE SET
        identificador = EXCLUDED.identificador, fluxo = EXCLUDED.fluxo,
        id_parceiro = EXCLUDED.id_parceiro, documento = EXCLUDED.documento;
END $$;
