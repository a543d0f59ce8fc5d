//! HTTP plumbing shared by the routes: envelopes, errors, body reading, callers.

pub mod auth;
pub mod body;
pub mod body_deadline;
pub mod callback;
pub mod contract_version;
pub mod envelope;
pub mod error;
pub mod html;
pub mod idempotency;
pub mod middleware;
pub mod rate_limit;
pub mod read_your_writes;
