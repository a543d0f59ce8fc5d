-- The right of regret (issue 29; CDC art. 49): a withdrawal is a customer's request under a
-- protocol like a cancellation, and the refunds it made are kept with it (their platform ids and
-- amounts in cents), for the customer, the back office and the LGPD export.
ALTER TABLE customer_requests DROP CONSTRAINT customer_requests_tipo;
ALTER TABLE customer_requests ADD CONSTRAINT customer_requests_tipo
    CHECK (tipo IN ('cancelamento', 'arrependimento'));

CREATE TABLE refunds (
    id           TEXT        PRIMARY KEY,
    protocolo    TEXT        NOT NULL REFERENCES customer_requests (protocolo),
    proposal_id  BIGINT      NOT NULL REFERENCES proposals (id),
    invoice_id   TEXT        NOT NULL,
    amount_cents BIGINT      NOT NULL CHECK (amount_cents >= 0),
    status       TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX refunds_proposal ON refunds (proposal_id);
