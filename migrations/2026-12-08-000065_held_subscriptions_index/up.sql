-- The collection pass (decision 271) reads the held subscriptions of accepted proposals after
-- every acceptance sweep, on every instance: driven from this index of the few subscriptions the
-- platform holds (`trialing`), in the order they were created, it reads nothing of the others.
CREATE INDEX subscriptions_held ON subscriptions (id) WHERE status = 'trialing' AND platform_id IS NOT NULL;
