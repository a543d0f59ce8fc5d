//! What the sign-in needs from the outside world. Adapters implement these; the contract of each
//! method is written on it.

use crate::auth::model::{
    ConsumeOutcome, Principal, RefreshClaims, RefreshTokenRecord, ThrottleKey, TokenPair, UserAccount, UserId,
};
use crate::auth::password::{Password, PasswordHash};
use crate::store::StoreError;
use crate::values::Email;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// The user with this e-mail (compared in lower case), with the applications it may use.
    async fn find_by_email(&self, email: &Email) -> Result<Option<UserAccount>, StoreError>;
    async fn find_by_id(&self, id: UserId) -> Result<Option<UserAccount>, StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    /// Too many hashes are already running and the wait ran out.
    #[error("verificação de senha sobrecarregada")]
    Busy,
    #[error("falha ao calcular hash de senha: {0}")]
    Failed(String),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, HashError>;
    /// True when `password` matches `hash`. With no hash (an unknown user) it checks against a
    /// dummy hash of the same cost and answers false, so that the time taken tells nothing.
    async fn verify(&self, password: &Password, hash: Option<PasswordHash>) -> Result<bool, HashError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Malformed, badly signed, expired, not yet valid, of the wrong type or audience.
    #[error("token inválido")]
    Invalid,
    #[error("falha ao assinar token: {0}")]
    Signing(String),
}

#[cfg_attr(feature = "mock", mockall::automock)]
pub trait TokenService: Send + Sync {
    /// Signs a new access and refresh pair for the principal; the refresh token joins `family_id`.
    fn issue(&self, principal: Principal, family_id: Uuid, now: DateTime<Utc>) -> Result<TokenPair, TokenError>;
    /// Verifies an access token (never a refresh token) and tells who it is for.
    fn verify_access(&self, token: &str) -> Result<Principal, TokenError>;
    /// Verifies a refresh token (never an access token).
    fn verify_refresh(&self, token: &str) -> Result<RefreshClaims, TokenError>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RefreshTokenStore: Send + Sync {
    async fn record(&self, token: &RefreshTokenRecord) -> Result<(), StoreError>;
    /// Spends the token atomically: of two concurrent calls with one `jti`, exactly one gets
    /// `Consumed`. A token already spent or revoked answers `Reused` and revokes its whole family
    /// in the same step.
    async fn consume(&self, jti: Uuid, now: DateTime<Utc>) -> Result<ConsumeOutcome, StoreError>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SignInThrottle: Send + Sync {
    /// The latest moment until which any of the keys is blocked, if one is blocked after `now`.
    async fn blocked_until(
        &self,
        keys: &[ThrottleKey],
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, StoreError>;
    /// Counts a failure for the key within a window that starts at its first failure and lasts
    /// `window_secs` (an older window starts again at 1). Answers the count, this failure included.
    async fn register_failure(
        &self,
        key: &ThrottleKey,
        now: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<u32, StoreError>;
    /// Refuses the key until `until`.
    async fn block(&self, key: &ThrottleKey, until: DateTime<Utc>) -> Result<(), StoreError>;
    /// Forgets the key's failures (after a successful sign-in).
    async fn reset(&self, key: &ThrottleKey) -> Result<(), StoreError>;
}
