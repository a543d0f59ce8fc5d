-- A part's read-model trigger names its proposal by reading one column: through to_jsonb(NEW) it
-- built a JSON document of the whole row first (36 columns for the customer's copy) to read one
-- number. The column is read directly now; which column is the part's (`id_proposta` for the
-- customer's copy and the payment, `proposal_id` for the signature), given as the trigger's
-- argument as before. Each branch is its own statement, so that a row without the other column
-- is never asked for it.
CREATE OR REPLACE FUNCTION proposal_read_model_on_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_ARGV[0] = 'proposal_id' THEN
        IF TG_OP = 'DELETE' THEN
            PERFORM refresh_proposal_read_model(OLD.proposal_id);
        ELSE
            PERFORM refresh_proposal_read_model(NEW.proposal_id);
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM refresh_proposal_read_model(OLD.id_proposta);
    ELSE
        PERFORM refresh_proposal_read_model(NEW.id_proposta);
    END IF;
    RETURN NULL;
END $$;
