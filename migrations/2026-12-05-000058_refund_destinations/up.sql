-- Issue 65: a refund to pay has a due date and a destination.
-- `vence_em`: the day a refund to pay is due by (Brasília), written with it (`REFUND_DUE_DAYS`
-- after its day, decision 253); those made before take the default's 10 days. `NULL` for what the
-- platform or the PSP returned (and, during a rolling deploy, for a refund to pay an older
-- instance writes: read as due 10 days after its day).
-- `atraso_de`: the refund whose late payment this one corrects (paid with it, decision 253).
-- (Every ALTER before the UPDATE: the refunds' triggers leave events pending in this transaction.)
ALTER TABLE refunds
    ADD COLUMN vence_em date,
    ADD COLUMN atraso_de text REFERENCES refunds (id);
CREATE INDEX refunds_to_pay_due ON refunds (vence_em) WHERE status = 'a_pagar';

-- Where a contract's refunds to pay go: the customer's Pix key or bank account, as the seller or
-- the back office recorded it last.
CREATE TABLE refund_destinations (
    id_proposta bigint PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    tipo text NOT NULL CHECK (tipo IN ('pix', 'conta')),
    tipo_chave text CHECK (tipo_chave IN ('cpf', 'email', 'telefone', 'aleatoria')),
    chave text,
    banco text,
    agencia text,
    conta text,
    tipo_conta text CHECK (tipo_conta IN ('corrente', 'poupanca', 'pagamento')),
    registrado_por text NOT NULL,
    registrado_em timestamptz NOT NULL,
    CHECK (
        (tipo = 'pix' AND tipo_chave IS NOT NULL AND chave IS NOT NULL
            AND banco IS NULL AND agencia IS NULL AND conta IS NULL AND tipo_conta IS NULL)
        OR (tipo = 'conta' AND tipo_chave IS NULL AND chave IS NULL
            AND banco IS NOT NULL AND agencia IS NOT NULL AND conta IS NOT NULL AND tipo_conta IS NOT NULL)
    )
);

UPDATE refunds SET vence_em = (created_at AT TIME ZONE 'America/Sao_Paulo')::date + 10
WHERE meio = 'a_pagar';

-- Route 7's refunds show their due date: the documents with refunds to pay are built again.
INSERT INTO proposal_read_model_stale (id_proposta)
SELECT DISTINCT proposal_id FROM refunds WHERE meio = 'a_pagar'
ON CONFLICT DO NOTHING;
