//! The business core of the sales back end: value types and their rules, the use cases, and the
//! port traits that the adapters (PostgreSQL, payment platform, signature provider, mailer)
//! implement. It knows nothing of HTTP, SQL or any outside service.

pub mod access;
pub mod auth;
pub mod catalog;
pub mod clock;
pub mod customers;
pub mod ecommerce;
#[cfg(test)]
mod ecommerce_tests;
pub mod health;
pub mod hooks;
pub mod mail;
pub mod proposals;
pub mod recovery;
pub mod signature;
pub mod store;
pub mod users;
pub mod validation;
pub mod values;
