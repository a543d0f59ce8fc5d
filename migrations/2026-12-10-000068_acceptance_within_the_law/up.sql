-- The acceptance within the law (issue 68, decision 278): Lei 15.040/2024, art. 49, gives the
-- insurer at most 25 days from the proposal's receipt to refuse it, its silence accepts it, and
-- documents or clarifications are asked once, the count standing still meanwhile. A product may
-- still give its analysts a shorter target of their own (aceite_revisao_dias): past it an
-- undecided proposal is overdue for a person, and silence accepts it at the deadline all the same.

-- What each product and each open clock held before, so that the down migration gives it back.
CREATE TABLE __acceptance_before_the_law (
    id_produto BIGINT REFERENCES products (id) ON DELETE CASCADE,
    id_proposta BIGINT REFERENCES proposals (id) ON DELETE CASCADE,
    dias INTEGER,
    tacito BOOLEAN NOT NULL,
    suspensoes INTEGER NOT NULL,
    prazo_em TIMESTAMPTZ,
    CONSTRAINT acceptance_before_the_law_one CHECK ((id_produto IS NULL) <> (id_proposta IS NULL))
);

-- The schema first: a table with pending trigger events (the read model's guard, deferred) takes
-- no more DDL in this transaction.
ALTER TABLE products
    ADD COLUMN aceite_revisao_dias INTEGER,
    DROP CONSTRAINT products_aceite_dias_range,
    DROP CONSTRAINT products_aceite_suspensoes_range;
ALTER TABLE proposal_acceptances ADD COLUMN revisao_em TIMESTAMPTZ;
-- The sweep's ranges: silence accepts a running clock past its deadline, overdue or not; one not
-- yet overdue becomes so past its target.
DROP INDEX proposal_acceptances_running;
CREATE INDEX proposal_acceptances_running ON proposal_acceptances (prazo_em)
    WHERE decidida_em IS NULL AND suspensa_desde IS NULL;
CREATE INDEX proposal_acceptances_review ON proposal_acceptances (revisao_em)
    WHERE decidida_em IS NULL AND suspensa_desde IS NULL AND vencida_em IS NULL;

INSERT INTO __acceptance_before_the_law (id_produto, dias, tacito, suspensoes)
SELECT id, aceite_dias, aceite_tacito, aceite_suspensoes
FROM products
WHERE NOT aceite_tacito OR aceite_dias > 25 OR aceite_suspensoes > 1;

-- The open clocks silence did not accept, or of a product that gave itself more than 25 days or
-- more than one request. One silence did not accept gets the law's deadline, 25 days from the
-- receipt moved by the time it stood suspended for answered requests (an open request moves it
-- when answered), and keeps its deadline as the analysts' target; one of a longer product loses
-- the days beyond 25 (a clock migration 40 counted from the deploy keeps that start). Each keeps
-- at most one request. One already past its new deadline is accepted by the next sweep: the law
-- accepted it then.
INSERT INTO __acceptance_before_the_law (id_proposta, tacito, suspensoes, prazo_em)
SELECT a.id_proposta, a.tacito, a.suspensoes_permitidas, a.prazo_em
FROM proposal_acceptances a
JOIN proposals p ON p.id = a.id_proposta
JOIN products pr ON pr.id = p.id_produto
WHERE a.decidida_em IS NULL
  AND (NOT a.tacito OR pr.aceite_dias > 25 OR a.suspensoes_permitidas > 1);

WITH moved AS (
    SELECT a.id_proposta,
           a.recebida_em + interval '25 days'
               + COALESCE(sum(r.respondida_em - r.pedida_em) FILTER (WHERE r.respondida_em IS NOT NULL),
                          interval '0') AS prazo_lei,
           a.prazo_em - make_interval(days => GREATEST(pr.aceite_dias - 25, 0)) AS prazo_encurtado
    FROM proposal_acceptances a
    JOIN __acceptance_before_the_law b ON b.id_proposta = a.id_proposta
    JOIN proposals p ON p.id = a.id_proposta
    JOIN products pr ON pr.id = p.id_produto
    LEFT JOIN proposal_pending_requests r ON r.id_proposta = a.id_proposta
    GROUP BY a.id_proposta, a.recebida_em, a.prazo_em, pr.aceite_dias
)
UPDATE proposal_acceptances a
SET revisao_em = CASE WHEN NOT a.tacito AND a.prazo_em < m.prazo_lei THEN a.prazo_em END,
    prazo_em = CASE WHEN a.tacito THEN GREATEST(m.prazo_encurtado, a.recebida_em + interval '1 day')
                    ELSE m.prazo_lei END,
    tacito = TRUE,
    suspensoes_permitidas = LEAST(a.suspensoes_permitidas, 1)
FROM moved m
WHERE m.id_proposta = a.id_proposta;

-- A product decided by a person keeps its days as the analysts' target (when fewer than 25) and
-- is accepted by silence at 25; any other keeps its days up to 25.
UPDATE products
SET aceite_revisao_dias = CASE WHEN NOT aceite_tacito AND aceite_dias < 25 THEN aceite_dias END,
    aceite_dias = CASE WHEN aceite_tacito THEN LEAST(aceite_dias, 25) ELSE 25 END,
    aceite_tacito = TRUE,
    aceite_suspensoes = LEAST(aceite_suspensoes, 1)
WHERE NOT aceite_tacito OR aceite_dias > 25 OR aceite_suspensoes > 1;

ALTER TABLE products
    ADD CONSTRAINT products_aceite_dias_range CHECK (aceite_dias BETWEEN 1 AND 25),
    ADD CONSTRAINT products_aceite_tacito_lei CHECK (aceite_tacito),
    ADD CONSTRAINT products_aceite_suspensoes_range CHECK (aceite_suspensoes BETWEEN 0 AND 1),
    ADD CONSTRAINT products_aceite_revisao_dias_range
        CHECK (aceite_revisao_dias IS NULL OR aceite_revisao_dias BETWEEN 1 AND aceite_dias - 1);

-- Their documents show the clock as it is now from the next `migrate` (which builds the marked).
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM __acceptance_before_the_law WHERE id_proposta IS NOT NULL
ON CONFLICT DO NOTHING;
