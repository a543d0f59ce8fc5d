-- Without `EXPIRADO`, an expired proposal reads as what it became for its customer: cancelled,
-- with its event (the history keeps what happened, in its own words). The rows move first (both
-- the new and the old checks accept `CANCELADO`) and their deferred triggers (the read model)
-- fire before the tables are altered.
UPDATE proposal_events SET to_status = 'CANCELADO' WHERE to_status = 'EXPIRADO';
UPDATE proposal_events SET from_status = 'CANCELADO' WHERE from_status = 'EXPIRADO';
UPDATE proposals SET status = 'CANCELADO' WHERE status = 'EXPIRADO';
SET CONSTRAINTS ALL IMMEDIATE;

DROP INDEX signatures_deadline;
ALTER TABLE signatures DROP COLUMN prazo_em;

ALTER TABLE proposal_events DROP CONSTRAINT proposal_events_status_check;
ALTER TABLE proposal_events ADD CONSTRAINT proposal_events_status_check CHECK (
    from_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO')
    AND to_status IN ('NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO'));

ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check CHECK (status IN (
    'NOVO', 'AGUARDANDO ASSINATURA', 'EM ANÁLISE', 'APROVADO', 'REPROVADO', 'CANCELADO'));

DROP INDEX proposals_one_open_per_cpf_product;
CREATE UNIQUE INDEX proposals_one_open_per_cpf_product ON proposals (cpf_cliente, id_produto)
    WHERE status NOT IN ('APROVADO', 'REPROVADO', 'CANCELADO');
