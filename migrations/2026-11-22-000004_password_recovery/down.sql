DELETE FROM signin_throttle WHERE scope = 'recovery_ip';
ALTER TABLE signin_throttle DROP CONSTRAINT signin_throttle_scope_check;
ALTER TABLE signin_throttle ADD CONSTRAINT signin_throttle_scope_check CHECK (scope IN ('signin_email', 'signin_ip'));
DROP TABLE password_recovery_tokens;
