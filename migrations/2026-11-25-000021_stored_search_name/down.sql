CREATE OR REPLACE FUNCTION proposal_history_on_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id_proposta', 'id_cliente', 'alterado_em', 'alterado_por', 'criado_em'], NULL);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, history_action('correcao'), changed);
    END IF;
    RETURN NULL;
END $$;

DROP INDEX proposal_customers_name_search_idx;
ALTER TABLE proposal_customers DROP COLUMN nome_busca;
CREATE INDEX proposal_customers_name_search_idx ON proposal_customers
    USING gin (search_text(nome_completo) gin_trgm_ops);
