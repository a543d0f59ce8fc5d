//! The black-box tests in one binary (one link; the helpers they share are the `black_box_tests`
//! library): the built service driven over HTTP, each test against a fresh PostgreSQL database.

mod acceptance;
mod browser;
mod cancellation;
mod catalog;
mod console;
mod customer_privacy;
mod customers;
mod delivery_log;
mod ecommerce;
mod event_catalog;
mod history;
mod hooks;
mod idempotency;
mod input_bounds;
mod mother_name;
mod observability;
mod operation_claims;
mod privacy;
mod proposal_list;
mod proposals;
mod rate_limits;
mod read_replicas;
mod recovery;
mod sandbox_access;
mod security_headers;
mod service;
mod sessions;
mod sign_in;
mod signing;
mod signing_deadlines;
mod social_name;
mod subscriptions;
mod throttling;
mod tokens;
mod withdrawal;
