//! What the sign-in needs from the outside world. Adapters implement these; the contract of each
//! method is written on it.

use crate::auth::model::{
    NewSession, Principal, RefreshClaims, RefreshTokenRecord, RotateOutcome, SessionId, ThrottleKey, TokenPair,
    UserAccount, UserId,
};
use crate::auth::password::{Password, PasswordHash};
use crate::auth::throttle::Tier;
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
    /// Signs a new access and refresh pair for the principal's session.
    fn issue(&self, principal: Principal, now: DateTime<Utc>) -> Result<TokenPair, TokenError>;
    /// Verifies an access token (never a refresh token) and tells who it is for.
    fn verify_access(&self, token: &str) -> Result<Principal, TokenError>;
    /// Verifies a refresh token (never an access token).
    fn verify_refresh(&self, token: &str) -> Result<RefreshClaims, TokenError>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Opens the session with its first refresh token, both or neither.
    async fn open(&self, session: &NewSession, first: &RefreshTokenRecord) -> Result<(), StoreError>;
    /// Spends the refresh token `presented` and stores `next` (of the same session) in its place,
    /// atomically: of two concurrent calls with one token exactly one answers `Rotated`. A token
    /// already spent answers `Reused` and ends its session in the same step. A session that is
    /// over (ended, or its user's credentials changed since it opened, or the user disabled)
    /// answers `Invalid` and stores nothing.
    async fn rotate(
        &self,
        presented: Uuid,
        next: &RefreshTokenRecord,
        now: DateTime<Utc>,
    ) -> Result<RotateOutcome, StoreError>;
    /// Ends the session: its refresh tokens stop working and `SessionRegistry::is_active` answers
    /// false on every instance from then on.
    async fn end(&self, session: SessionId, now: DateTime<Utc>) -> Result<(), StoreError>;
}

/// Whether an access token's session still holds: asked on every authenticated request.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SessionRegistry: Send + Sync {
    /// `None` once the session ended, its user's credentials changed, or the user was disabled
    /// (and for an id never opened); otherwise what the session's user carries with it.
    async fn holding(&self, session: SessionId) -> Result<Option<SessionHolding>, StoreError>;

    /// Whether the session holds.
    async fn is_active(&self, session: SessionId) -> Result<bool, StoreError> {
        Ok(self.holding(session).await?.is_some())
    }
}

/// What a session that holds brings to each request besides its principal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionHolding {
    /// The contract version the user is pinned to (`users.api_version`), read by requests that
    /// name none; `None` for a user never pinned. Its name is the HTTP edge's to check.
    pub pinned_version: Option<String>,
}

/// Whether every counter of an attempt admitted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Admitted,
    Refused { until: DateTime<Utc> },
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SignInThrottle: Send + Sync {
    /// Applies `Tier::admit` to every counter of the attempt as one atomic step: either all of
    /// them admit it and all are moved, or none is moved and the answer is the latest refusal.
    /// Concurrent attempts on one counter are admitted one after the other.
    async fn admit(&self, counters: &[(ThrottleKey, Tier)], now: DateTime<Utc>) -> Result<Admission, StoreError>;
    /// Applies `Tier::give_back` to each counter (an admitted attempt that was not a failure).
    async fn give_back(&self, counters: &[(ThrottleKey, Tier)]) -> Result<(), StoreError>;
    /// Forgets the key's counter (a successful sign-in forgets its pair's failures).
    async fn reset(&self, key: &ThrottleKey) -> Result<(), StoreError>;
}
