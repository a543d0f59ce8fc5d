//! Who signs in, and what the tokens say about them.

use crate::auth::password::PasswordHash;
use crate::values::{Application, Email};
use chrono::{DateTime, Utc};
use uuid::Uuid;

pub type UserId = i64;

/// A user as the sign-in needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserAccount {
    pub id: UserId,
    pub email: Email,
    pub password_hash: PasswordHash,
    pub applications: Vec<Application>,
}

impl UserAccount {
    pub fn may_use(&self, application: Application) -> bool {
        self.applications.contains(&application)
    }
}

/// What an access token proves: this user (and its e-mail, recorded as who changed a record),
/// signed in to this application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub user_id: UserId,
    pub email: String,
    pub application: Application,
}

/// The claims of a verified refresh token that matter to the rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshClaims {
    pub user_id: UserId,
    pub application: Application,
    pub jti: Uuid,
}

/// A freshly signed pair, and what the store must remember about its refresh token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    pub refresh: RefreshTokenRecord,
}

/// One refresh token as stored: each is usable once; all tokens of one sign-in share a family, so a
/// reused token revokes the whole chain that descends from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshTokenRecord {
    pub jti: Uuid,
    pub family_id: Uuid,
    pub user_id: UserId,
    pub application: Application,
    pub expires_at: DateTime<Utc>,
}

/// The result of presenting a refresh token to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumeOutcome {
    /// First use: the token is now spent.
    Consumed { family_id: Uuid },
    /// Already used or revoked: the store has revoked its whole family.
    Reused,
    /// Never issued here (or purged).
    Unknown,
}

/// Which counter a failed sign-in moves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ThrottleKey {
    Email(String),
    ClientAddress(String),
    /// Password-recovery requests per client address.
    RecoveryAddress(String),
}

impl ThrottleKey {
    pub fn scope(&self) -> &'static str {
        match self {
            ThrottleKey::Email(_) => "signin_email",
            ThrottleKey::ClientAddress(_) => "signin_ip",
            ThrottleKey::RecoveryAddress(_) => "recovery_ip",
        }
    }

    pub fn value(&self) -> &str {
        match self {
            ThrottleKey::Email(v) | ThrottleKey::ClientAddress(v) | ThrottleKey::RecoveryAddress(v) => v,
        }
    }
}
