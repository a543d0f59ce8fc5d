//! The PostgreSQL adapters against a real server, one binary (each test on its own fresh
//! database, `adapters_postgres::testing::TestDatabase`, so they run in parallel): the
//! repositories by area, and each data-moving migration up, down and up with rows.

// Tests poke the database directly, with SQL of their own (the adapter's is declared).
#![allow(clippy::disallowed_methods)]

mod accounts;
mod callback_partitions;
mod catalog_cache;
mod certificates;
mod delivery_partitions;
mod ended_sessions;
mod hooks;
mod idempotency;
mod masking;
mod migrations_with_rows;
mod monthly_partitions;
mod personal_data_map;
mod proposal_operations;
mod proposals;
mod rate_counters;
mod read_model;
mod repeatable_sql;
mod replicas;
mod retention;
mod sessions;
mod statements;
