-- The live definition of `history_reason_marker`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000020 last wrote it there.
-- The marker a removed reason becomes.
CREATE OR REPLACE FUNCTION history_reason_marker() RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN '[removido na anonimização]';
