-- Dated contract versions (issue 49). A user's credential may be pinned to a version, which its
-- requests read when they name none; never pinned (NULL) it reads `2026-11-29`, what every
-- credential read before versions existed. A subscription receives its events in the version it
-- was created under; every subscription made before is of `2026-11-29` for the same reason. The
-- names are checked by the service (crates/contract-versions); the database keeps their form.
ALTER TABLE users ADD COLUMN api_version text
    CONSTRAINT users_api_version_check CHECK (api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');
ALTER TABLE hook_subscriptions ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-29'
    CONSTRAINT hook_subscriptions_api_version_check CHECK (api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');
