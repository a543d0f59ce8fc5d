//! Implementations of the domain's security ports: token signing and password hashing.

pub mod jwt;
pub mod password;
pub mod secrets;
