-- The contract after the signature (issue 45): each product's acceptance policy, each proposal's
-- acceptance clock from the moment it enters EM ANÁLISE, the back office's requests for documents
-- that suspend it (with the seller's answers and files), and the development clock every instance
-- judges by.

-- The policy (Circular SUSEP 642/2021 lets each product set its time to decide, the cases that
-- suspend it and whether silence accepts): 15 days, tacit, one suspension unless set otherwise.
ALTER TABLE products
    ADD COLUMN aceite_dias INTEGER NOT NULL DEFAULT 15
        CONSTRAINT products_aceite_dias_range CHECK (aceite_dias BETWEEN 1 AND 90),
    ADD COLUMN aceite_tacito BOOLEAN NOT NULL DEFAULT TRUE,
    ADD COLUMN aceite_suspensoes INTEGER NOT NULL DEFAULT 1
        CONSTRAINT products_aceite_suspensoes_range CHECK (aceite_suspensoes BETWEEN 0 AND 10);

-- One clock per proposal, written when it enters EM ANÁLISE with the product's policy as it was
-- then; `decidida_em` when it leaves it; `vencida_em` when a proposal without tacit acceptance
-- passed its deadline undecided (overdue).
CREATE TABLE proposal_acceptances (
    id_proposta BIGINT PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    recebida_em TIMESTAMPTZ NOT NULL,
    prazo_em TIMESTAMPTZ NOT NULL,
    tacito BOOLEAN NOT NULL,
    suspensoes_permitidas INTEGER NOT NULL CONSTRAINT proposal_acceptances_suspensoes CHECK (suspensoes_permitidas >= 0),
    suspensa_desde TIMESTAMPTZ,
    decidida_em TIMESTAMPTZ,
    vencida_em TIMESTAMPTZ,
    CONSTRAINT proposal_acceptances_deadline_after CHECK (prazo_em > recebida_em)
);
-- The sweep's range: the clocks that are running (neither decided, suspended nor overdue), by
-- deadline; a million proposals in analysis cost it only the due ones.
CREATE INDEX proposal_acceptances_running ON proposal_acceptances (prazo_em)
    WHERE decidida_em IS NULL AND suspensa_desde IS NULL AND vencida_em IS NULL;
-- The overdue list and its metric.
CREATE INDEX proposal_acceptances_overdue ON proposal_acceptances (prazo_em)
    WHERE decidida_em IS NULL AND vencida_em IS NOT NULL;

-- A request for documents by the back office, and the seller's answer.
CREATE TABLE proposal_pending_requests (
    id BIGSERIAL PRIMARY KEY,
    id_proposta BIGINT NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    itens TEXT[] NOT NULL CONSTRAINT proposal_pending_requests_itens CHECK (cardinality(itens) BETWEEN 1 AND 20),
    nota TEXT CONSTRAINT proposal_pending_requests_nota CHECK (char_length(nota) <= 1000),
    pedida_por TEXT NOT NULL,
    pedida_em TIMESTAMPTZ NOT NULL,
    resposta TEXT CONSTRAINT proposal_pending_requests_resposta CHECK (char_length(resposta) <= 1000),
    respondida_por TEXT,
    respondida_em TIMESTAMPTZ,
    CONSTRAINT proposal_pending_requests_answered CHECK ((respondida_em IS NULL) = (respondida_por IS NULL))
);
CREATE INDEX proposal_pending_requests_proposal ON proposal_pending_requests (id_proposta, id);
-- At most one open request per proposal: the clock is suspended once at a time.
CREATE UNIQUE INDEX proposal_pending_requests_one_open ON proposal_pending_requests (id_proposta)
    WHERE respondida_em IS NULL;

-- The files of an answer (PDF, JPEG, PNG; at most 5 MB each, checked by the service by content).
CREATE TABLE proposal_pending_files (
    id BIGSERIAL PRIMARY KEY,
    id_pendencia BIGINT NOT NULL REFERENCES proposal_pending_requests (id) ON DELETE CASCADE,
    nome TEXT NOT NULL CONSTRAINT proposal_pending_files_nome CHECK (char_length(nome) BETWEEN 1 AND 200),
    tipo TEXT NOT NULL CONSTRAINT proposal_pending_files_tipo CHECK (tipo IN ('application/pdf', 'image/jpeg', 'image/png')),
    tamanho INTEGER NOT NULL CONSTRAINT proposal_pending_files_tamanho CHECK (tamanho BETWEEN 1 AND 5242880),
    sha256 TEXT NOT NULL,
    conteudo BYTEA,
    enviado_em TIMESTAMPTZ NOT NULL
);
CREATE INDEX proposal_pending_files_request ON proposal_pending_files (id_pendencia, id);

-- The development clock (`POST /sandbox/clock`): one row, read by every instance, the worker and
-- the command line. Production never reads it.
CREATE TABLE sandbox_clock (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CONSTRAINT sandbox_clock_one_row CHECK (singleton),
    deslocamento_segundos BIGINT NOT NULL DEFAULT 0,
    alterado_em TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO sandbox_clock DEFAULT VALUES;

-- The proposals already in analysis get their clock: received when they entered EM ANÁLISE (their
-- latest event into it, or their last change), with the deadline counted from this migration, so
-- that nothing is accepted by silence for time that passed before their product had a policy.
INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas)
SELECT p.id, received.at, greatest(received.at, now()) + make_interval(days => pr.aceite_dias),
       pr.aceite_tacito, pr.aceite_suspensoes
FROM proposals p
JOIN products pr ON pr.id = p.id_produto
CROSS JOIN LATERAL (
    SELECT coalesce(
        (SELECT max(e.changed_at) FROM proposal_events e
         WHERE e.proposal_id = p.id AND e.to_status = 'EM ANÁLISE'),
        p.alterado_em) AS at
) received
WHERE p.status = 'EM ANÁLISE';
-- Their documents gain the clock when `migrate` builds the marked ones again.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM proposal_acceptances
ON CONFLICT DO NOTHING;
