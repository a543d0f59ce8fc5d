CREATE OR REPLACE FUNCTION proposal_read_model_on_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Every part but the parties names its proposal in the column given as the trigger's argument.
    PERFORM refresh_proposal_read_model(
        (to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) ->> TG_ARGV[0])::BIGINT);
    RETURN NULL;
END $$;
