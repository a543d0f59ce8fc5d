//! Implementations of the domain's security ports (token signing, password hashing, secrets) and
//! the keys of webhook secrets at rest.

pub mod hook_keys;
pub mod jwt;
pub mod password;
pub mod secrets;
