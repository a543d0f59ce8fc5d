-- The live definition of `history_action`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000017 last wrote it there.
-- The action a history trigger records: the transaction's own (`SET LOCAL sales.history_action`)
-- when it set one, else the trigger's.
CREATE OR REPLACE FUNCTION history_action(default_action TEXT) RETURNS TEXT
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN coalesce(nullif(current_setting('sales.history_action', true), ''), default_action);
