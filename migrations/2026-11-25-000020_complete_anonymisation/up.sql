-- Anonymisation completes (decision 128): the documents of proposals that never became a contract
-- are deleted and remembered as removed, and the reasons people wrote about the customer are
-- replaced in the history by a marker, the one change the history's append-only rule admits.

-- The proposals whose documents anonymisation deleted: their routes answer 404 `documento_removido`.
CREATE TABLE removed_documents (
    proposal_id BIGINT      PRIMARY KEY REFERENCES proposals (id) ON DELETE CASCADE,
    removed_by  TEXT        NOT NULL,
    removed_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The payment platform's customers of anonymised people: requested in the anonymisation's
-- transaction, answered once the platform's API was called (`error` when it refused).
CREATE TABLE payment_customer_redactions (
    platform_customer_id TEXT        PRIMARY KEY,
    requested_by         TEXT        NOT NULL,
    requested_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    answered_at          TIMESTAMPTZ,
    error                TEXT
);

-- The marker a removed reason becomes.
CREATE FUNCTION history_reason_marker() RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN '[removido na anonimização]';

-- A history entry's changes with the reason's text (`motivo`) replaced by the marker.
CREATE FUNCTION history_without_reasons(changes JSONB) RETURNS JSONB
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN changes ? 'motivo' THEN jsonb_set(changes, '{motivo}', jsonb_build_object(
            'from', CASE WHEN changes -> 'motivo' ->> 'from' IS NULL THEN 'null'::jsonb ELSE to_jsonb(history_reason_marker()) END,
            'to', CASE WHEN changes -> 'motivo' ->> 'to' IS NULL THEN 'null'::jsonb ELSE to_jsonb(history_reason_marker()) END))
        ELSE changes
    END;

-- Append-only, except for one update: inside an anonymisation (`sales.history_action`), an entry
-- may become exactly itself with its reasons replaced by the marker; nothing else of it, and no
-- delete or truncate, ever.
CREATE OR REPLACE FUNCTION proposal_history_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('sales.history_action', true) = 'anonimizacao'
       AND (NEW.id, NEW.proposal_id, NEW.at, NEW.changed_by, NEW.action)
           IS NOT DISTINCT FROM (OLD.id, OLD.proposal_id, OLD.at, OLD.changed_by, OLD.action)
       AND NEW.changes = history_without_reasons(OLD.changes) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'o histórico de propostas não pode ser alterado nem apagado'
        USING ERRCODE = 'insufficient_privilege';
END $$;
