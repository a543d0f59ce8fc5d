-- The live definition of `search_text`, applied by `migrate` after the versioned migrations
-- (decision 169); migration 000015 last wrote it there.
-- How a name is compared: lower case, without accents. unaccent() is only STABLE (its dictionary
-- could change); naming the dictionary makes the result fixed, so the function may be indexed.
CREATE OR REPLACE FUNCTION search_text(value TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN lower(public.unaccent('public.unaccent'::regdictionary, value));
