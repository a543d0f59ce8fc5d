-- The averbação of each payroll contract (issue 67, decision 268): the discount and its margin
-- registered with the consignment platform before any payroll is asked to discount it. A
-- `DESCONTO EM FOLHA` contract is billed only while its averbação is `ativa`.
CREATE TABLE averbacoes (
    id_proposta   BIGINT      PRIMARY KEY REFERENCES contract_billings (id_proposta) ON DELETE CASCADE,
    -- The platform's id; none only for the discounts asked of the employer before this table
    -- (moved here as active: their charges were being made).
    id_externo    TEXT        CHECK (char_length(id_externo) BETWEEN 1 AND 120),
    situacao      TEXT        NOT NULL CHECK (situacao IN ('pendente', 'ativa', 'recusada', 'cancelada')),
    margem        BIGINT      CHECK (margem >= 0),
    motivo        TEXT        CHECK (char_length(motivo) <= 200),
    solicitada_em TIMESTAMPTZ NOT NULL,
    situacao_em   TIMESTAMPTZ NOT NULL,
    alterada_por  TEXT        NOT NULL,
    CONSTRAINT averbacoes_pending_has_id CHECK (situacao <> 'pendente' OR id_externo IS NOT NULL)
);
-- The pending ones every pass reads back, and the live ones it cancels when their contract ends.
CREATE INDEX averbacoes_live ON averbacoes (id_proposta) WHERE situacao IN ('pendente', 'ativa');

INSERT INTO averbacoes (id_proposta, id_externo, situacao, motivo, solicitada_em, situacao_em, alterada_por)
SELECT id_proposta, NULL, 'ativa', 'desconto pedido ao empregador antes do registro de averbações',
       aceita_em, aceita_em, 'migracao'
  FROM contract_billings
 WHERE metodo = 'DESCONTO EM FOLHA' AND encerrada_em IS NULL;

-- The request and the cancellation are outside effects, under the proposal's claim.
ALTER TABLE proposal_operations
    DROP CONSTRAINT proposal_operations_kind,
    ADD CONSTRAINT proposal_operations_kind CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento',
        'arrependimento', 'mudanca_status', 'recusa', 'cancelamento_contrato', 'recorrencia_pix', 'cobranca_pix',
        'devolucao_tardia', 'encerramento_inadimplencia', 'averbacao', 'cancelamento_averbacao'));
