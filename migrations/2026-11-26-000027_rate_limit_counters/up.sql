-- Rate limits (issue 28): one counter per caller and window of a minute, shared by every
-- instance. Each instance counts in memory and adds its counts here a few times a second; rows
-- are gone two windows after theirs ends (a caller's address is kept no longer than that).
CREATE UNLOGGED TABLE rate_limit_counters (
    subject      TEXT    NOT NULL,
    -- The window's first second, Unix time.
    window_start BIGINT  NOT NULL,
    hits         BIGINT  NOT NULL,
    PRIMARY KEY (subject, window_start),
    CONSTRAINT rate_limit_counters_hits CHECK (hits >= 0)
);

CREATE INDEX rate_limit_counters_window ON rate_limit_counters (window_start);
