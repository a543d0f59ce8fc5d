//! Sign-in, tokens and throttling.

pub mod bodies;
pub mod model;
pub mod password;
pub mod ports;
pub mod sign_in;
pub mod throttle;

#[cfg(test)]
mod sign_in_tests;
