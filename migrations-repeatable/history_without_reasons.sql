-- The live definition of `history_without_reasons`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000020 last wrote it there.
-- A history entry's changes with the reason's text (`motivo`) replaced by the marker.
CREATE OR REPLACE FUNCTION history_without_reasons(changes JSONB) RETURNS JSONB
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN changes ? 'motivo' THEN jsonb_set(changes, '{motivo}', jsonb_build_object(
            'from', CASE WHEN changes -> 'motivo' ->> 'from' IS NULL THEN 'null'::jsonb ELSE to_jsonb(history_reason_marker()) END,
            'to', CASE WHEN changes -> 'motivo' ->> 'to' IS NULL THEN 'null'::jsonb ELSE to_jsonb(history_reason_marker()) END))
        ELSE changes
    END;
