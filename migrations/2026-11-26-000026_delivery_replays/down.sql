-- The deliveries keep their state and attempts; only which replay re-sent them is forgotten.
DROP INDEX hook_deliveries_window;
DROP INDEX hook_deliveries_replaying;
ALTER TABLE hook_deliveries DROP COLUMN replay_id;
DROP TABLE hook_replays;
