-- The history's trigger reads the column: it goes first. The revocations registered through the
-- insurer stay revoked (the authorisation's `motivo` says so); their requests go with the kind.
DROP TRIGGER IF EXISTS debit_authorizations_history ON debit_authorizations;
ALTER TABLE debit_authorizations DROP COLUMN situacao_por;
DELETE FROM customer_requests WHERE tipo = 'revogacao_debito';
ALTER TABLE customer_requests DROP CONSTRAINT customer_requests_tipo;
ALTER TABLE customer_requests ADD CONSTRAINT customer_requests_tipo
    CHECK (tipo IN ('cancelamento', 'arrependimento'));
