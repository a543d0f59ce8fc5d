-- The money of a partner's sale (issue 46): each product's dunning policy, each accepted
-- contract's billing (from its acceptance, with the policy as it was then) and its charges, one
-- per period, and the event that tells partners a charge or a billing changed.

-- When the first charge falls due, when a failed one is tried again (days after the due date),
-- how long one may stay unpaid before the contract is late, and then suspended.
ALTER TABLE products
    ADD COLUMN cobranca_primeiro_vencimento_dias INTEGER NOT NULL DEFAULT 10
        CONSTRAINT products_cobranca_primeiro_vencimento CHECK (cobranca_primeiro_vencimento_dias BETWEEN 1 AND 30),
    ADD COLUMN cobranca_retentativas_dias INTEGER[] NOT NULL DEFAULT '{1,3,5}'
        CONSTRAINT products_cobranca_retentativas CHECK (cardinality(cobranca_retentativas_dias) <= 5
            AND 0 < ALL (cobranca_retentativas_dias) AND 60 >= ALL (cobranca_retentativas_dias)),
    ADD COLUMN cobranca_carencia_dias INTEGER NOT NULL DEFAULT 5
        CONSTRAINT products_cobranca_carencia CHECK (cobranca_carencia_dias BETWEEN 0 AND 60),
    ADD COLUMN cobranca_suspensao_dias INTEGER NOT NULL DEFAULT 30,
    ADD CONSTRAINT products_cobranca_suspensao CHECK (
        cobranca_suspensao_dias > cobranca_carencia_dias AND cobranca_suspensao_dias <= 180);

-- One billing per accepted contract paid by debit or payroll discount, written in the move into
-- APROVADO's transaction. `proximo_periodo` and `proximo_vencimento` are the next charge to
-- create; `encerrada_em` is set when the contract leaves APROVADO (its open charges cancelled).
CREATE TABLE contract_billings (
    id_proposta         BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    metodo              TEXT        NOT NULL CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA')),
    valor               BIGINT      NOT NULL CHECK (valor >= 0),
    aceita_em           TIMESTAMPTZ NOT NULL,
    primeiro_vencimento DATE        NOT NULL,
    proximo_periodo     INTEGER     NOT NULL DEFAULT 1 CHECK (proximo_periodo >= 1),
    proximo_vencimento  DATE        NOT NULL,
    retentativas_dias   INTEGER[]   NOT NULL,
    carencia_dias       INTEGER     NOT NULL CHECK (carencia_dias >= 0),
    suspensao_dias      INTEGER     NOT NULL,
    situacao            TEXT        NOT NULL DEFAULT 'em_dia' CHECK (situacao IN ('em_dia', 'em_atraso', 'suspenso')),
    situacao_desde      TIMESTAMPTZ NOT NULL,
    situacao_por        TEXT        NOT NULL,
    encerrada_em        TIMESTAMPTZ,
    CONSTRAINT contract_billings_suspensao CHECK (suspensao_dias > carencia_dias)
);
-- The run's range: the running billings by the next charge's due date; a million contracts
-- cost it only those due.
CREATE INDEX contract_billings_due ON contract_billings (proximo_vencimento) WHERE encerrada_em IS NULL;
-- The contracts late or suspended, judged on every run.
CREATE INDEX contract_billings_behind ON contract_billings (id_proposta)
    WHERE encerrada_em IS NULL AND situacao <> 'em_dia';

-- One charge per contract and period.
CREATE TABLE charges (
    id                BIGSERIAL   PRIMARY KEY,
    id_proposta       BIGINT      NOT NULL REFERENCES contract_billings (id_proposta) ON DELETE CASCADE,
    periodo           INTEGER     NOT NULL CHECK (periodo >= 1),
    vencimento        DATE        NOT NULL,
    valor             BIGINT      NOT NULL CHECK (valor >= 0),
    metodo            TEXT        NOT NULL CHECK (metodo IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA')),
    status            TEXT        NOT NULL DEFAULT 'aberta' CHECK (status IN ('aberta', 'paga', 'falhou', 'cancelada')),
    tentativas        INTEGER     NOT NULL DEFAULT 0 CHECK (tentativas >= 0),
    proxima_tentativa DATE,
    id_externo        TEXT,
    motivo            TEXT        CHECK (char_length(motivo) <= 200),
    pago_em           TIMESTAMPTZ,
    valor_pago        BIGINT      CHECK (valor_pago >= 0),
    criada_em         TIMESTAMPTZ NOT NULL,
    alterada_em       TIMESTAMPTZ NOT NULL,
    alterada_por      TEXT        NOT NULL,
    CONSTRAINT charges_once_per_period UNIQUE (id_proposta, periodo),
    CONSTRAINT charges_paid CHECK ((status = 'paga') = (pago_em IS NOT NULL))
);
-- The unpaid charges by due date: the contracts behind, and the files for the banks.
CREATE INDEX charges_unpaid ON charges (vencimento) WHERE status IN ('aberta', 'falhou');

-- The contracts accepted before this migration start their billing now: their first charge falls
-- due 10 days from today (Brasília), what came before was collected outside this service.
INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
    retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
SELECT p.id, p.tipo_pagamento, p.valor, coalesce(c.aceita_em, p.alterado_em),
    (now() AT TIME ZONE 'America/Sao_Paulo')::date + 10, (now() AT TIME ZONE 'America/Sao_Paulo')::date + 10,
    pr.cobranca_retentativas_dias, pr.cobranca_carencia_dias, pr.cobranca_suspensao_dias, now(), 'migracao'
FROM proposals p
JOIN products pr ON pr.id = p.id_produto
LEFT JOIN proposal_certificates c ON c.id_proposta = p.id AND c.tipo = 'certificado'
WHERE p.status = 'APROVADO' AND p.fluxo = 'PARCEIRO' AND p.tipo_pagamento IN ('DÉBITO EM CONTA', 'DESCONTO EM FOLHA');

-- COBRANCA_ALTERADA: a charge created or changed, or the contract's billing status moved.
ALTER TABLE hook_subscriptions
    DROP CONSTRAINT hook_subscriptions_events_check,
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA', 'PROPOSTA_ENVIADA',
            'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
            'COBRANCA_ALTERADA', 'TESTE']::TEXT[]);
ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'PROPOSTA_CRIADA',
        'PROPOSTA_ENVIADA', 'ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO', 'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA',
        'COBRANCA_ALTERADA', 'TESTE'));
ALTER TABLE proposal_event_sequences
    DROP CONSTRAINT proposal_event_sequences_kind_check,
    ADD CONSTRAINT proposal_event_sequences_kind_check CHECK (kind IN ('ASSINATURA_REGISTRADA', 'PAGAMENTO_ALTERADO',
        'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA', 'COBRANCA_ALTERADA'));

-- Their documents show the billing from the next `migrate` (which builds the marked ones).
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT id_proposta FROM contract_billings ON CONFLICT DO NOTHING;
