-- Back to a status change and the test event only. The new kinds' deliveries are deleted; a
-- subscription keeps the kinds it still may ask for, and one that asked only for new kinds keeps
-- the test event (it stays, with its secret and its log, and receives nothing else).

DROP TABLE proposal_event_sequences;

DELETE FROM hook_deliveries WHERE event_type NOT IN ('ALTERAÇÃO_STATUS', 'TESTE');

ALTER TABLE hook_subscriptions DROP CONSTRAINT hook_subscriptions_events_check;

UPDATE hook_subscriptions
SET events = coalesce(
        nullif(ARRAY(SELECT e FROM unnest(events) AS e WHERE e IN ('ALTERAÇÃO_STATUS', 'TESTE')), '{}'),
        ARRAY['TESTE']::TEXT[])
WHERE NOT events <@ ARRAY['ALTERAÇÃO_STATUS', 'TESTE']::TEXT[];

ALTER TABLE hook_subscriptions
    ADD CONSTRAINT hook_subscriptions_events_check CHECK (
        cardinality(events) > 0 AND events <@ ARRAY['ALTERAÇÃO_STATUS', 'TESTE']::TEXT[]);

ALTER TABLE hook_deliveries
    DROP CONSTRAINT hook_deliveries_event_type_check,
    ADD CONSTRAINT hook_deliveries_event_type_check CHECK (event_type IN ('ALTERAÇÃO_STATUS', 'TESTE'));
