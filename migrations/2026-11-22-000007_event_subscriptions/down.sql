DROP TABLE hook_attempts;
DROP TABLE hook_deliveries;
DROP TABLE hook_subscriptions;
