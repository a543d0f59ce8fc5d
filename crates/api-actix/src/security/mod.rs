//! Implementations of the domain's security ports (token signing, password hashing, secrets, the
//! measuring switch of the session check) and the keys of webhook secrets at rest.

pub mod hook_keys;
pub mod jwt;
pub mod no_session_check;
pub mod password;
pub mod secrets;
