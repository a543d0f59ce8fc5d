-- The document written as before (without the proposal's lock), and no refresh check.
CREATE OR REPLACE FUNCTION write_proposal_read_model(proposal BIGINT) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    document JSONB := proposal_document(proposal);
BEGIN
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
DROP FUNCTION proposal_copy_refreshable(BIGINT, TEXT);
