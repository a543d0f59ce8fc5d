-- Back to reading the held subscriptions by a scan of every subscription (correct, slower).
DROP INDEX subscriptions_held;
