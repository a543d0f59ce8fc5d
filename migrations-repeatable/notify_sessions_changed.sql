-- The live definition of `notify_sessions_changed` and its triggers, applied by `migrate` after the versioned
-- migrations (decision 169); migration 000011 last wrote it there.
-- Every instance keeps recent answers of "does this session hold?" and drops them when this
-- channel speaks (one notification per transaction). Only an end matters: a session never comes
-- back, so its opening, its refreshes and a user's unrelated changes stay quiet.
CREATE OR REPLACE FUNCTION notify_sessions_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM pg_notify('sessions_changed', '');
    RETURN NULL;
END
$function$;

CREATE OR REPLACE TRIGGER sessions_ended AFTER DELETE OR UPDATE OF ended_at OR TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_sessions_changed();

CREATE OR REPLACE TRIGGER users_credentials_changed AFTER DELETE OR UPDATE OF credentials_epoch, disabled_at OR TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION notify_sessions_changed()
;
