-- The customer's revocation of the debits through the insurer (issue 46; Resolução CMN
-- 4.790/2020, art. 9): a request under a protocol, like a cancellation; who last changed an
-- authorisation (the bank, or the person who registered the customer's request), so that each
-- change reaches the proposal's history (`autorizacao_debito`, the trigger in
-- migrations-repeatable/proposal_history_on_debit_authorization.sql).
ALTER TABLE customer_requests DROP CONSTRAINT customer_requests_tipo;
ALTER TABLE customer_requests ADD CONSTRAINT customer_requests_tipo
    CHECK (tipo IN ('cancelamento', 'arrependimento', 'revogacao_debito'));

ALTER TABLE debit_authorizations ADD COLUMN situacao_por TEXT NOT NULL DEFAULT 'sistema:cobranca';
-- Those refused or revoked before were so by the bank's retorno.
UPDATE debit_authorizations SET situacao_por = 'banco' WHERE situacao <> 'ativa';
