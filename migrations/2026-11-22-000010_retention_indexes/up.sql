-- The hourly housekeeping (domain::retention) finds what has expired by these, a batch at a time,
-- instead of reading whole tables. refresh_tokens already has its expires_at index.
CREATE INDEX password_recovery_tokens_expires_idx ON password_recovery_tokens (expires_at);
CREATE INDEX signin_throttle_window_idx ON signin_throttle (window_started_at);
CREATE INDEX signature_callbacks_received_idx ON signature_callbacks (received_at);
CREATE INDEX payment_events_received_idx ON payment_events (received_at);
