DELETE FROM signin_throttle WHERE scope = 'signin_pair';
ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check
    CHECK (scope IN ('signin_email', 'signin_ip', 'recovery_ip'));

DROP TRIGGER users_credentials_changed ON users;
DROP TRIGGER sessions_ended ON sessions;
DROP FUNCTION notify_sessions_changed();

-- An ended session's tokens are revoked, as they were before sessions existed.
UPDATE refresh_tokens r SET revoked_at = coalesce(r.revoked_at, s.ended_at)
FROM sessions s WHERE s.id = r.session_id AND s.ended_at IS NOT NULL;
ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_session_fkey;
ALTER INDEX refresh_tokens_session_idx RENAME TO refresh_tokens_family_idx;
ALTER TABLE refresh_tokens RENAME COLUMN session_id TO family_id;
DROP TABLE sessions;

ALTER TABLE users DROP COLUMN disabled_at, DROP COLUMN credentials_epoch;
