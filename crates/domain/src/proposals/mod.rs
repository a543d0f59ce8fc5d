//! Proposals and customers: creation (routes 3, 5, 6), lookup (7), checks (4, 8, 9), the list.

pub mod beneficiaries;
pub mod bodies;
pub mod lifecycle;
pub mod model;
pub mod operations;
pub mod ports;
pub mod reasons;
pub mod regret;
pub mod requests;
pub mod search;
pub mod service;
pub mod settlement;
pub mod signing;
pub mod withdrawal;

#[cfg(test)]
mod signing_tests;

#[cfg(test)]
mod service_tests;
