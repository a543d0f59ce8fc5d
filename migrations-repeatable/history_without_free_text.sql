-- The live definition of `history_without_free_text`, applied by `migrate` after the versioned
-- migrations (decision 169); decision 290 added it.
-- A history entry's changes without the free text the retention schedule drops at the health
-- horizon: a categorised decision's words (`motivo` beside `categoria_motivo`) and what a request
-- for documents asked (`itens`), each replaced by the marker. PL/pgSQL, so that it records no
-- dependency on the functions it calls: a migration's way down may drop and make them again.
CREATE OR REPLACE FUNCTION history_without_free_text(changes JSONB) RETURNS JSONB
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $function$
BEGIN
    IF changes ? 'itens' THEN
        RETURN jsonb_set(changes, '{itens}', jsonb_build_object(
            'from', 'null'::jsonb, 'to', jsonb_build_array(history_reason_marker())));
    ELSIF changes ? 'categoria_motivo' THEN
        RETURN history_without_reasons(changes);
    END IF;
    RETURN changes;
END $function$;
