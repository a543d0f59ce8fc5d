//! The background jobs: each loop in its own module, started by `serve` beside the HTTP server
//! and by `worker` without it. Every instance may run them: each claims its rows
//! (`FOR UPDATE SKIP LOCKED`), so that two instances never do one piece of work twice.

pub mod acceptance_sweep;
pub mod billing_run;
pub mod clock_sync;
pub mod deliveries;
pub mod expiry;
pub mod recovery;
pub mod retention_schedule;
pub mod worker;
