-- The archived sessions go back to `sessions` as they were (a session that ended by expiry or
-- by its user's credentials had no end recorded there); all are past their expiry, so the next
-- housekeeping deletes them, as it did before.
INSERT INTO sessions (id, user_id, application, credentials_epoch, created_at, expires_at, ended_at, end_reason)
SELECT id, user_id, application, credentials_epoch, created_at, expires_at,
       CASE WHEN end_reason IN ('signout', 'reuse') THEN ended_at END,
       CASE WHEN end_reason IN ('signout', 'reuse') THEN end_reason END
FROM ended_sessions
ON CONFLICT (id) DO NOTHING;
DROP TABLE ended_sessions;
