-- The live definition of `history_masked`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000016 last wrote it there.
-- A personal value as the history keeps it: a CPF's check digits, a name's initials, an e-mail's
-- first letter and domain, a phone's last four digits, a birth date's year; anything else personal
-- only as changed. The rules are `domain::masking`'s (decision 170): this is their spelling where
-- the history is written, and a test compares the two for every field they name.
CREATE OR REPLACE FUNCTION history_masked(field TEXT, value TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN value IS NULL THEN NULL
        WHEN field IN ('cpf', 'cpf_cliente') THEN '***.***.***-' || right(value, 2)
        WHEN field = 'nome_completo' THEN
            (SELECT string_agg(left(word, 1) || '.', ' ') FROM regexp_split_to_table(btrim(value), '\s+') AS word)
        WHEN field = 'email' THEN left(value, 1) || '***@' || split_part(value, '@', 2)
        WHEN field IN ('celular', 'telefone_fixo') THEN '****' || right(value, 4)
        WHEN field = 'data_nascimento' THEN '**/**/' || left(value, 4)
        ELSE '***'
    END;
