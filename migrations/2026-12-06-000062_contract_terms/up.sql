-- The contract's term (issue 67, decision 270): each product declares how many months a contract
-- runs and whether it renews automatically; each accepted contract keeps its terms, one row per
-- term (the first from the day the insurer received the proposal, each renewal's from the end of
-- the one before), and a certificate per term. The notices of the term's end (the renewal ahead,
-- or the end) are recorded with the arrears' notices, now of any accepted contract (the online
-- shop's too, which the service's own billing does not bill).

ALTER TABLE products
    ADD COLUMN vigencia_meses INTEGER NOT NULL DEFAULT 12
        CONSTRAINT products_vigencia_meses CHECK (vigencia_meses BETWEEN 1 AND 60),
    ADD COLUMN renovacao TEXT NOT NULL DEFAULT 'automatica'
        CONSTRAINT products_renovacao CHECK (renovacao IN ('automatica', 'nenhuma'));

CREATE TABLE contract_terms (
    id_proposta  BIGINT      NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    sequencia    INTEGER     NOT NULL CHECK (sequencia >= 1),
    inicio       DATE        NOT NULL,
    fim          DATE        NOT NULL,
    meses        INTEGER     NOT NULL CHECK (meses BETWEEN 1 AND 60),
    renovacao    TEXT        NOT NULL CHECK (renovacao IN ('automatica', 'nenhuma')),
    renovada_em  TIMESTAMPTZ,
    criada_em    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (id_proposta, sequencia),
    CONSTRAINT contract_terms_period CHECK (fim > inicio),
    CONSTRAINT contract_terms_renewed CHECK ((sequencia = 1) = (renovada_em IS NULL))
);
-- The pass reads the running contracts by their current term's end.
CREATE INDEX contract_terms_ending ON contract_terms (fim);

-- Every contract accepted so far gets the term its certificate printed: a year from the day the
-- proposal was received (else from the acceptance), renewing (what "prazo indeterminado" meant).
INSERT INTO contract_terms (id_proposta, sequencia, inicio, fim, meses, renovacao, criada_em)
SELECT c.id_proposta, 1, d.inicio, (d.inicio + INTERVAL '12 months')::date, 12, 'automatica', c.aceita_em
  FROM proposal_certificates c
  LEFT JOIN proposal_acceptances a ON a.id_proposta = c.id_proposta
 CROSS JOIN LATERAL (SELECT (COALESCE(a.recebida_em, c.aceita_em) AT TIME ZONE 'America/Sao_Paulo')::date AS inicio) d
 WHERE c.tipo = 'certificado';

-- Their documents show the term from the next `migrate` (which builds the marked ones); so do the
-- averbações migration 000061 moved in, which it did not mark.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM contract_terms UNION SELECT id_proposta FROM averbacoes
ON CONFLICT DO NOTHING;

-- A certificate per term: the first term's keeps its row.
ALTER TABLE proposal_certificates ADD COLUMN vigencia INTEGER NOT NULL DEFAULT 1
    CONSTRAINT proposal_certificates_vigencia CHECK (vigencia >= 1);
ALTER TABLE proposal_certificates DROP CONSTRAINT proposal_certificates_pkey;
ALTER TABLE proposal_certificates ADD CONSTRAINT proposal_certificates_pkey PRIMARY KEY (id_proposta, tipo, vigencia);

-- The term's notices join the arrears': of any accepted contract, naming the term they are about.
ALTER TABLE billing_notices
    DROP CONSTRAINT billing_notices_id_proposta_fkey,
    ADD CONSTRAINT billing_notices_id_proposta_fkey FOREIGN KEY (id_proposta) REFERENCES proposals (id) ON DELETE CASCADE,
    DROP CONSTRAINT billing_notices_tipo_check,
    ADD CONSTRAINT billing_notices_tipo_check
        CHECK (tipo IN ('atraso', 'aviso_encerramento', 'encerramento', 'renovacao', 'fim_vigencia')),
    ADD COLUMN vigencia INTEGER CHECK (vigencia >= 1),
    ADD CONSTRAINT billing_notices_term CHECK ((tipo IN ('renovacao', 'fim_vigencia')) = (vigencia IS NOT NULL));

-- The end at the term is an outside effect (a subscription cancelled, refunds), under the claim.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia', 'averbacao', 'cancelamento_averbacao',
        'encerramento_vigencia'));
