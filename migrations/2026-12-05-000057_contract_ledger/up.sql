-- One ledger per contract (issue 65): every amount due, received, given back and owed back is an
-- entry, written by the database in the same transaction as the fact that causes it (a charge
-- created, paid or cancelled; a card invoice paid; a refund made, owed or paid) and never updated
-- or deleted. Balances are derived: due = devido - cancelado; received = recebido; refunded =
-- devolvido + devolucao_paga; owed back = a_devolver - devolucao_paga. Written by triggers so that
-- every writer of a fact writes its entry, an instance of the previous version during a rolling
-- deploy included.

-- The card invoices the payment platform reports paid: read after each of its `invoice.paid`
-- events, at a settlement and by `reconcile payments`, each recorded once.
CREATE TABLE card_invoices (
    id_fatura      TEXT        PRIMARY KEY,
    id_proposta    BIGINT      NOT NULL REFERENCES proposals (id),
    id_assinatura  TEXT        NOT NULL,
    valor          BIGINT      NOT NULL CHECK (valor >= 0),
    pago_em        TIMESTAMPTZ NOT NULL,
    registrada_em  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX card_invoices_proposal ON card_invoices (id_proposta);

CREATE TABLE ledger_entries (
    id            BIGSERIAL   PRIMARY KEY,
    id_proposta   BIGINT      NOT NULL REFERENCES proposals (id),
    tipo          TEXT        NOT NULL CONSTRAINT ledger_entries_tipo
        CHECK (tipo IN ('devido', 'cancelado', 'recebido', 'devolvido', 'a_devolver', 'devolucao_paga')),
    valor         BIGINT      NOT NULL CHECK (valor >= 0),
    -- What caused it: a charge of the service's billing, a card invoice, or a refund.
    origem        TEXT        NOT NULL CONSTRAINT ledger_entries_origem
        CHECK (origem IN ('cobranca', 'fatura', 'reembolso')),
    id_origem     TEXT        NOT NULL,
    -- The rail the money moved on (the charge's method, `CARTÃO`, `PIX AUTOMÁTICO`, `TRANSFERÊNCIA`).
    trilho        TEXT        NOT NULL,
    ocorrido_em   TIMESTAMPTZ NOT NULL,
    registrado_em TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- A fact is entered once: a second payment of one charge could not be counted twice.
    CONSTRAINT ledger_entries_once UNIQUE (origem, id_origem, tipo)
);
CREATE INDEX ledger_entries_proposal ON ledger_entries (id_proposta);

-- The nightly check of the ledger against the facts (`sales-api ledger check`): one a day, taken by
-- the first instance; its summary is the metric every instance answers.
CREATE TABLE ledger_checks (
    dia                  DATE        PRIMARY KEY,
    iniciada_em          TIMESTAMPTZ NOT NULL,
    concluida_em         TIMESTAMPTZ,
    contratos            BIGINT,
    contratos_divergentes BIGINT,
    lancamentos_inseridos BIGINT
);

-- The triggers that write the entries with each fact, and the one that keeps them from changing,
-- are in migrations-repeatable/ (ledger_*.sql), applied by `migrate` after this migration.

-- Every charge and refund stored before enters the ledger as it happened.
INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
SELECT id_proposta, 'devido', valor, 'cobranca', id::text, metodo, criada_em FROM charges;
INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
SELECT id_proposta, 'recebido', coalesce(valor_pago, valor), 'cobranca', id::text, metodo, pago_em
FROM charges WHERE status = 'paga';
-- A charge cancelled with its contract and paid afterwards (its motivo says so) was cancelled first.
INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
SELECT id_proposta, 'cancelado', valor, 'cobranca', id::text, metodo, alterada_em
FROM charges
WHERE status = 'cancelada' OR (status = 'paga' AND motivo LIKE '%depois do encerramento do contrato%');
INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
SELECT proposal_id, CASE WHEN meio = 'a_pagar' THEN 'a_devolver' ELSE 'devolvido' END, amount_cents, 'reembolso', id,
       CASE meio WHEN 'plataforma' THEN 'CARTÃO' WHEN 'pix' THEN 'PIX AUTOMÁTICO' ELSE 'TRANSFERÊNCIA' END, created_at
FROM refunds;
INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em)
SELECT proposal_id, 'devolucao_paga', amount_cents, 'reembolso', id, 'TRANSFERÊNCIA', pago_em
FROM refunds WHERE meio = 'a_pagar' AND status = 'pago';

-- Route 7 shows the ledger: the documents of the proposals with entries gain it when `migrate`
-- builds the marked ones again.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT id_proposta FROM ledger_entries
ON CONFLICT DO NOTHING;
