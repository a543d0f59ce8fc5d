-- Without withdrawals, one reads as what it also was: a cancellation at the customer's request
-- (its status event keeps the reason ARREPENDIMENTO); its refunds stay at the platform, which
-- is where their record lives.
DROP TABLE refunds;
UPDATE customer_requests SET tipo = 'cancelamento' WHERE tipo = 'arrependimento';
ALTER TABLE customer_requests DROP CONSTRAINT customer_requests_tipo;
ALTER TABLE customer_requests ADD CONSTRAINT customer_requests_tipo CHECK (tipo IN ('cancelamento'));
