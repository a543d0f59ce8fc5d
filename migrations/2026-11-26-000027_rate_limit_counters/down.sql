-- Counters of the last minutes only: nothing to keep.
DROP TABLE rate_limit_counters;
