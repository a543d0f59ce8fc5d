-- The rule is strict again; the reasons already replaced stay replaced (the text is gone). Going
-- down forgets which proposals had their documents removed and which platform redactions were made
-- (the documents themselves are gone either way).
CREATE OR REPLACE FUNCTION proposal_history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'o histórico de propostas não pode ser alterado nem apagado'
        USING ERRCODE = 'insufficient_privilege';
END $$;
DROP FUNCTION history_without_reasons(JSONB);
DROP FUNCTION history_reason_marker();
DROP TABLE removed_documents;
DROP TABLE payment_customer_redactions;
