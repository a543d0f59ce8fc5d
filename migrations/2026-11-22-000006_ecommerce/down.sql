DROP TABLE sandbox_payment_objects;
DROP TABLE payment_events;
DROP TABLE subscriptions;
DROP TABLE setup_intents;
ALTER TABLE customers DROP COLUMN payment_method_id;
ALTER TABLE products DROP COLUMN price_id;
