-- Operations with an outside effect (issue 44): a send for signature, a subscription at the payment
-- platform, a cancellation, a withdrawal, a back-office move that closes an envelope. Each is
-- recorded, under the proposal's row lock, before the outside call: while one is pending, no other
-- operation and no status move touches the proposal; the outside call carries the operation's id
-- as its idempotency key; the status move and the operation's end commit together. A pending
-- operation whose request died is finished by the worker (`lease_until` is its claim on it).
CREATE TABLE proposal_operations (
    id           UUID        PRIMARY KEY,
    proposal_id  BIGINT      NOT NULL REFERENCES proposals (id) ON DELETE CASCADE,
    kind         TEXT        NOT NULL
        CONSTRAINT proposal_operations_kind
        CHECK (kind IN ('envio', 'assinatura_recorrente', 'cancelamento', 'arrependimento', 'mudanca_status')),
    state        TEXT        NOT NULL DEFAULT 'pending'
        CONSTRAINT proposal_operations_state CHECK (state IN ('pending', 'done', 'failed')),
    requested_by TEXT        NOT NULL,
    -- What the operation needs to be finished by someone else: the reason asked (a cancellation's,
    -- a withdrawal's, a move's) and, for a move, its target status.
    reason       TEXT,
    target       TEXT,
    started_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ,
    outcome      TEXT,
    attempts     INTEGER     NOT NULL DEFAULT 0,
    lease_until  TIMESTAMPTZ,
    CONSTRAINT proposal_operations_finished CHECK ((state = 'pending') = (finished_at IS NULL))
);
-- One pending operation per proposal, whoever asks.
CREATE UNIQUE INDEX proposal_operations_one_pending ON proposal_operations (proposal_id) WHERE state = 'pending';
-- The worker's and the metrics' look at the pending ones, oldest first.
CREATE INDEX proposal_operations_pending_since ON proposal_operations (started_at) WHERE state = 'pending';
CREATE INDEX proposal_operations_of_proposal ON proposal_operations (proposal_id, started_at);
