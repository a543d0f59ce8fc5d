-- What the insurance contract law makes of an unpaid premium (Lei 15.040/2024 arts. 20–21,
-- issue 67, decision 266): each product says whether an unpaid first instalment ends the
-- contract (the law's rule, art. 20 caput) or is noticed like any other, and how many days after
-- the suspension the contract ends (never fewer than 30, art. 21); each contract keeps them as
-- they were at its acceptance. The notices sent about a contract (late, the end ahead, the end
-- made) and each channel's delivery, with the receipt that starts the notice's days (or the
-- frustration, art. 20 §3).

ALTER TABLE products
    ADD COLUMN cobranca_primeira_parcela TEXT NOT NULL DEFAULT 'resolve'
        CONSTRAINT products_cobranca_primeira_parcela CHECK (cobranca_primeira_parcela IN ('resolve', 'suspende')),
    ADD COLUMN cobranca_encerramento_dias INTEGER NOT NULL DEFAULT 30
        CONSTRAINT products_cobranca_encerramento CHECK (cobranca_encerramento_dias BETWEEN 30 AND 180);

-- The contracts accepted before kept no such rule: their first instalment is noticed like any
-- other (nothing ends a contract its terms did not say would end).
ALTER TABLE contract_billings
    ADD COLUMN primeira_parcela TEXT NOT NULL DEFAULT 'suspende'
        CONSTRAINT contract_billings_primeira_parcela CHECK (primeira_parcela IN ('resolve', 'suspende')),
    ADD COLUMN encerramento_dias INTEGER NOT NULL DEFAULT 30
        CONSTRAINT contract_billings_encerramento CHECK (encerramento_dias BETWEEN 30 AND 180);

-- One notice of each kind open per contract (`fechado_em` set when the arrears is paid, so that a
-- later one starts over); `recebido_em` is the earliest delivery proven, `frustrado_em` set when
-- every delivery failed or none could be made.
CREATE TABLE billing_notices (
    id           BIGSERIAL   PRIMARY KEY,
    id_proposta  BIGINT      NOT NULL REFERENCES contract_billings (id_proposta) ON DELETE CASCADE,
    tipo         TEXT        NOT NULL CHECK (tipo IN ('atraso', 'aviso_encerramento', 'encerramento')),
    periodo      INTEGER     CHECK (periodo >= 1),
    vencimento   DATE,
    valor        BIGINT      CHECK (valor >= 0),
    criado_em    TIMESTAMPTZ NOT NULL,
    recebido_em  TIMESTAMPTZ,
    frustrado_em TIMESTAMPTZ,
    fechado_em   TIMESTAMPTZ
);
CREATE UNIQUE INDEX billing_notices_one_open ON billing_notices (id_proposta, tipo) WHERE fechado_em IS NULL;
-- The open notices no channel delivered, which the metrics count at every scrape.
CREATE INDEX billing_notices_frustrated ON billing_notices (id_proposta) WHERE frustrado_em IS NOT NULL AND fechado_em IS NULL;

-- Each channel's delivery of a notice: `destino` masked (what was proven is that it went to the
-- address or phone the proposal keeps), the provider's id, and the receipt or the failure.
CREATE TABLE billing_notice_deliveries (
    id          BIGSERIAL   PRIMARY KEY,
    id_aviso    BIGINT      NOT NULL REFERENCES billing_notices (id) ON DELETE CASCADE,
    canal       TEXT        NOT NULL CHECK (canal IN ('email', 'sms', 'whatsapp')),
    destino     TEXT        NOT NULL CHECK (char_length(destino) <= 120),
    id_externo  TEXT        CHECK (char_length(id_externo) <= 120),
    status      TEXT        NOT NULL CHECK (status IN ('enviado', 'entregue', 'falhou')),
    motivo      TEXT        CHECK (char_length(motivo) <= 200),
    enviado_em  TIMESTAMPTZ NOT NULL,
    entregue_em TIMESTAMPTZ,
    falhou_em   TIMESTAMPTZ,
    CONSTRAINT billing_notice_deliveries_once UNIQUE (id_aviso, canal),
    CONSTRAINT billing_notice_deliveries_delivered CHECK ((status = 'entregue') = (entregue_em IS NOT NULL))
);
-- The text messages whose receipt the pass asks the provider for.
CREATE INDEX billing_notice_deliveries_awaiting ON billing_notice_deliveries (id) WHERE status = 'enviado';

-- Ending a contract for its unpaid premium is an operation with outside effects (the PSP's
-- recurrence cancelled, a refund), under the proposal's claim like every other.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia'));
