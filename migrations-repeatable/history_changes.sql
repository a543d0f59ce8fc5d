-- The live definition of `history_changes`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000016 last wrote it there.
-- The members of `new` that differ from `old`, as {from, to}, leaving out `ignored` and masking
-- `personal` (every member when `personal` is null).
CREATE OR REPLACE FUNCTION history_changes(old JSONB, new JSONB, ignored TEXT[], personal TEXT[]) RETURNS JSONB
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce((
        SELECT jsonb_object_agg(n.key, CASE
            WHEN personal IS NULL OR n.key = ANY (personal) THEN jsonb_build_object(
                'from', history_masked(n.key, old ->> n.key), 'to', history_masked(n.key, n.value #>> '{}'))
            ELSE jsonb_build_object('from', old -> n.key, 'to', n.value)
        END)
        FROM jsonb_each(new) AS n
        WHERE NOT n.key = ANY (ignored) AND (old -> n.key) IS DISTINCT FROM n.value
    ), '{}'::jsonb);
