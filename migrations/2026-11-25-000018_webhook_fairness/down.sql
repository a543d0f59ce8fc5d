-- The tests cancelled on the way up stay cancelled: they were superseded.
DROP INDEX hook_deliveries_one_pending_test;
