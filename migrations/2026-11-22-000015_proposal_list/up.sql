-- The back office's proposal list (GET /proposal/list): newest first with a keyset cursor on
-- (criado_em, id), in each scope; `q` by CPF or by words of the customer's name.

-- Both are trusted extensions (PostgreSQL 13+): a database owner may create them.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- How a name is compared: lower case, without accents. unaccent() is only STABLE (its dictionary
-- could change); naming the dictionary makes the result fixed, so the function may be indexed.
CREATE FUNCTION search_text(value TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN lower(public.unaccent('public.unaccent'::regdictionary, value));

-- Every scope's order: the back office's, the shop's (by flow), a partner's; and the filters
-- that would otherwise read the whole table in order to find few rows.
CREATE INDEX proposals_listed_idx ON proposals (criado_em DESC, id DESC);
CREATE INDEX proposals_flow_listed_idx ON proposals (fluxo, criado_em DESC, id DESC);
DROP INDEX proposals_partner_idx;
CREATE INDEX proposals_partner_listed_idx ON proposals (id_parceiro, criado_em DESC, id DESC);
CREATE INDEX proposals_status_listed_idx ON proposals (status, criado_em DESC, id DESC);
CREATE INDEX proposals_cpf_listed_idx ON proposals (cpf_cliente, criado_em DESC, id DESC);

-- Words of the name, anywhere in it.
CREATE INDEX proposal_customers_name_search_idx ON proposal_customers
    USING gin (search_text(nome_completo) gin_trgm_ops);
