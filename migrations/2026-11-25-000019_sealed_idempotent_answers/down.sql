-- The earlier schema keeps answers in clear only, and SQL cannot open a sealed one: each sealed
-- or forgotten answer becomes a kept 409 that says the answer is no longer replayable, so a retry
-- after going down is neither run a second time nor answered with something else.
DROP INDEX idempotency_keys_subjects;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_answer;
UPDATE idempotency_keys
SET body = convert_to('{"status":"error","message":"A resposta desta Idempotency-Key não pode mais ser repetida.","code":"idempotencia_esquecida","document":[],"rowsAffected":[]}', 'UTF8'),
    content_type = 'application/json', status = 409, completed_at = coalesce(completed_at, now()),
    answer_sealed = NULL
WHERE answer_sealed IS NOT NULL OR forgotten_at IS NOT NULL;
ALTER TABLE idempotency_keys
    DROP COLUMN answer_sealed,
    DROP COLUMN subjects,
    DROP COLUMN forgotten_at,
    ADD CONSTRAINT idempotency_keys_answer CHECK ((completed_at IS NULL) = (status IS NULL) AND (status IS NULL) = (body IS NULL));
