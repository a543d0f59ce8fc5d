-- The list's name search compares a stored normalised name (decision 129): `search_text()` runs
-- once when a name is written, not once per word for every candidate row on every search.
ALTER TABLE proposal_customers
    ADD COLUMN nome_busca TEXT NOT NULL GENERATED ALWAYS AS (search_text(nome_completo)) STORED;

DROP INDEX proposal_customers_name_search_idx;
CREATE INDEX proposal_customers_name_search_idx ON proposal_customers USING gin (nome_busca gin_trgm_ops);

-- The search column follows the name: a correction of the name is one change in the history,
-- not two.
CREATE OR REPLACE FUNCTION proposal_history_on_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed JSONB := history_changes(to_jsonb(OLD), to_jsonb(NEW),
        ARRAY['id_proposta', 'id_cliente', 'alterado_em', 'alterado_por', 'criado_em', 'nome_busca'], NULL);
BEGIN
    IF changed <> '{}'::jsonb THEN
        INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
        VALUES (NEW.id_proposta, NEW.alterado_por, history_action('correcao'), changed);
    END IF;
    RETURN NULL;
END $$;
