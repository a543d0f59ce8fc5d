-- A customer's requests about a proposal (issue 29), each under a protocol number (Resolução CNSP
-- 408/2021 asks for one and for its keeping): who asked, when, what and why. The protocol is the
-- Brasília day followed by a number from one sequence, so every instance draws distinct ones.
CREATE SEQUENCE customer_request_numbers;

CREATE TABLE customer_requests (
    protocolo      TEXT        PRIMARY KEY,
    proposal_id    BIGINT      NOT NULL REFERENCES proposals (id),
    tipo           TEXT        NOT NULL,
    motivo         TEXT        NOT NULL,
    solicitado_por TEXT        NOT NULL,
    solicitado_em  TIMESTAMPTZ NOT NULL,
    CONSTRAINT customer_requests_tipo CHECK (tipo IN ('cancelamento'))
);
CREATE INDEX customer_requests_proposal ON customer_requests (proposal_id);

-- The request in the proposal's history (`solicitacao`), beside the status move it made, which
-- carries the reason.
CREATE FUNCTION proposal_history_on_request() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
    VALUES (NEW.proposal_id, NEW.solicitado_em, NEW.solicitado_por, 'solicitacao',
        jsonb_build_object(
            'protocolo', jsonb_build_object('from', NULL, 'to', NEW.protocolo),
            'tipo', jsonb_build_object('from', NULL, 'to', NEW.tipo)));
    RETURN NULL;
END $$;
CREATE TRIGGER customer_requests_history AFTER INSERT ON customer_requests
    FOR EACH ROW EXECUTE FUNCTION proposal_history_on_request();
