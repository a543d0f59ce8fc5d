DROP INDEX IF EXISTS payment_events_received_idx;
DROP INDEX IF EXISTS signature_callbacks_received_idx;
DROP INDEX IF EXISTS signin_throttle_window_idx;
DROP INDEX IF EXISTS password_recovery_tokens_expires_idx;
