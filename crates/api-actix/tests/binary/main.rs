//! The built `sales-api` binary, run as a process (one test binary): its command line (`migrate`,
//! `user`, `reconcile`), production mode's refusals, a graceful shutdown, the webhook worker
//! processes, the expiry worker and the export of traces.

mod support;

mod graceful_shutdown;
mod migrate_cli;
mod production_mode;
mod reconcile_cli;
mod tracing_export;
mod user_cli;
mod webhook_processes;
mod worker_expiry;
