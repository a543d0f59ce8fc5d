-- Signing deadlines (issue 29): a proposal sent for signature and not signed by its deadline
-- expires (`EXPIRADO`, a finished state: the customer may open another proposal for the product).
-- The deadline is set when the envelope is created (`SIGNATURE_DEADLINE_DAYS`) and given to the
-- provider too; envelopes created before this had none at the provider, so their proposals keep
-- none (nothing expires on deploy).
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN (
    'NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO', 'EXPIRADO'));
ALTER TABLE proposal_events DROP CONSTRAINT proposal_events_status_check;
ALTER TABLE proposal_events ADD CONSTRAINT proposal_events_status_check CHECK (
    from_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO', 'EXPIRADO')
    AND to_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO', 'EXPIRADO'));

-- The one-open-proposal rule: an expired proposal is finished.
DROP INDEX proposals_one_open_per_cpf_product;
CREATE UNIQUE INDEX proposals_one_open_per_cpf_product ON proposals (cpf_cliente, id_produto)
    WHERE status NOT IN ('APROVADO', 'REPROVADO', 'CANCELADO', 'EXPIRADO');

ALTER TABLE signatures ADD COLUMN prazo_em TIMESTAMPTZ;
-- What the expiry worker looks for: the envelopes with a deadline, soonest first.
CREATE INDEX signatures_deadline ON signatures (prazo_em) WHERE prazo_em IS NOT NULL;
