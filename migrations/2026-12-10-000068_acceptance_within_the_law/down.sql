-- The schema first (see the up migration): the constraints of the law go, the target's column
-- and index stay until the rows are given back.
ALTER TABLE products
    DROP CONSTRAINT products_aceite_dias_range,
    DROP CONSTRAINT products_aceite_tacito_lei,
    DROP CONSTRAINT products_aceite_suspensoes_range,
    DROP CONSTRAINT products_aceite_revisao_dias_range;
DROP INDEX proposal_acceptances_review;
DROP INDEX proposal_acceptances_running;
CREATE INDEX proposal_acceptances_running ON proposal_acceptances (prazo_em)
    WHERE decidida_em IS NULL AND suspensa_desde IS NULL AND vencida_em IS NULL;

-- The open clocks started since with an analysts' target: again not accepted by silence, due at
-- that target; then the policies and open clocks as they were before the law's bounds.
UPDATE proposal_acceptances a
SET tacito = FALSE,
    prazo_em = a.revisao_em
WHERE a.revisao_em IS NOT NULL
  AND a.decidida_em IS NULL
  AND NOT EXISTS (SELECT 1 FROM __acceptance_before_the_law b WHERE b.id_proposta = a.id_proposta);

UPDATE proposal_acceptances a
SET tacito = b.tacito,
    suspensoes_permitidas = b.suspensoes,
    prazo_em = b.prazo_em
FROM __acceptance_before_the_law b
WHERE b.id_proposta = a.id_proposta;

-- A product decided by a person since (a target) is again one silence does not accept.
UPDATE products
SET aceite_dias = aceite_revisao_dias,
    aceite_tacito = FALSE
WHERE aceite_revisao_dias IS NOT NULL;

UPDATE products p
SET aceite_dias = b.dias,
    aceite_tacito = b.tacito,
    aceite_suspensoes = b.suspensoes
FROM __acceptance_before_the_law b
WHERE b.id_produto = p.id;

INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM __acceptance_before_the_law WHERE id_proposta IS NOT NULL
UNION SELECT id_proposta FROM proposal_acceptances WHERE revisao_em IS NOT NULL
ON CONFLICT DO NOTHING;

-- The guard's deferred events fire now, so that the columns may go.
SET CONSTRAINTS ALL IMMEDIATE;
ALTER TABLE products
    ADD CONSTRAINT products_aceite_dias_range CHECK (aceite_dias BETWEEN 1 AND 90),
    ADD CONSTRAINT products_aceite_suspensoes_range CHECK (aceite_suspensoes BETWEEN 0 AND 10),
    DROP COLUMN aceite_revisao_dias;
ALTER TABLE proposal_acceptances DROP COLUMN revisao_em;
DROP TABLE __acceptance_before_the_law;
