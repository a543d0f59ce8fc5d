-- Every credential and subscription reads the shapes of before versions again.
ALTER TABLE hook_subscriptions DROP COLUMN api_version;
ALTER TABLE users DROP COLUMN api_version;
