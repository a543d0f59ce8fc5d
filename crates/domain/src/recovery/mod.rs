//! Password recovery: `/sendRecovery` e-mails a single-use link; `PUT /passwordReset` spends it.
//! Only the SHA-256 of a recovery token is stored.

pub mod bodies;

use crate::auth::model::{ThrottleKey, UserId};
use crate::auth::password::{PasswordHash, PasswordPolicy};
use crate::auth::ports::{Admission, HashError, PasswordHasher, SignInThrottle, UserRepository};
use crate::auth::throttle::Tier;
use crate::clock::Clock;
use crate::mail::{MailKind, MailMessage, MailOutbox};
use crate::store::StoreError;
use crate::validation::Rejection;
use crate::values::Email;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The hex SHA-256 of a token: what the store keeps and looks up by.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Makes recovery tokens: 32 bytes from the operating system's generator, URL-safe base64.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait SecretGenerator: Send + Sync {
    fn recovery_token(&self) -> String;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecoveryToken {
    pub id: i64,
    pub user_id: UserId,
    pub email: Email,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetOutcome {
    Done,
    /// Spent or revoked between the lookup and the reset (a concurrent reset won).
    AlreadySpent,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RecoveryStore: Send + Sync {
    async fn issue(&self, user_id: UserId, token_hash: &str, expires_at: DateTime<Utc>) -> Result<(), StoreError>;
    /// Tokens issued to the user at or after `since`.
    async fn issued_since(&self, user_id: UserId, since: DateTime<Utc>) -> Result<u32, StoreError>;
    async fn find(&self, token_hash: &str) -> Result<Option<StoredRecoveryToken>, StoreError>;
    /// In one transaction: spends the token (only if still unspent), replaces the password hash,
    /// revokes the user's other recovery tokens, and moves the user's credentials on, so that every
    /// session it has ends (its access tokens on every instance, its refresh tokens).
    async fn reset_password(
        &self,
        token_id: i64,
        user_id: UserId,
        new_hash: &PasswordHash,
        now: DateTime<Utc>,
    ) -> Result<ResetOutcome, StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryPolicy {
    pub token_valid_hours: i64,
    pub max_emails_per_account_per_hour: u32,
    pub max_requests_per_address_per_hour: u32,
    /// The page that receives `?token=`; built from the configured public URL, never from a request.
    pub link_base: String,
}

impl Default for RecoveryPolicy {
    fn default() -> Self {
        Self {
            token_valid_hours: 24,
            max_emails_per_account_per_hour: 3,
            max_requests_per_address_per_hour: 10,
            link_base: "http://127.0.0.1:8080/redefinir-senha".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoveryError {
    #[error("muitas solicitações; tente novamente mais tarde")]
    Throttled { until: DateTime<Utc> },
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResetError {
    #[error("token de recuperação não encontrado")]
    UnknownToken,
    #[error("token de recuperação expirado ou já utilizado")]
    ExpiredOrUsed,
    /// The token is kept: the user may try another password.
    #[error("{}", .0.message)]
    WeakPassword(Rejection),
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Clone)]
pub struct RecoveryService {
    pub users: Arc<dyn UserRepository>,
    pub store: Arc<dyn RecoveryStore>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub secrets: Arc<dyn SecretGenerator>,
    pub outbox: Arc<dyn MailOutbox>,
    pub throttle: Arc<dyn SignInThrottle>,
    pub clock: Arc<dyn Clock>,
    pub policy: RecoveryPolicy,
    pub password_policy: PasswordPolicy,
}

impl RecoveryService {
    /// Answers the same whether or not the e-mail has an account; only the per-address limit
    /// (which says nothing about accounts) can refuse.
    #[tracing::instrument(skip_all)]
    pub async fn request(&self, email: &Email, client_address: Option<String>) -> Result<(), RecoveryError> {
        let now = self.clock.now();
        if let Some(address) = client_address {
            // Every request counts (none is given back): the limit is on asking, not on failing.
            let hourly = Tier {
                max_failures: self.policy.max_requests_per_address_per_hour,
                window_secs: 3600,
                base_block_secs: 3600,
                max_block_secs: 3600,
            };
            let counter = [(ThrottleKey::recovery(&address), hourly)];
            if let Admission::Refused { until } = self.throttle.admit(&counter, now).await? {
                return Err(RecoveryError::Throttled { until });
            }
        }
        let Some(user) = self.users.find_by_email(email).await? else {
            tracing::info!("recovery requested for an unknown e-mail");
            return Ok(());
        };
        if user.disabled {
            tracing::info!(
                user_id = user.id,
                "recovery requested for a disabled user; nothing sent"
            );
            return Ok(());
        }
        if self.store.issued_since(user.id, now - Duration::hours(1)).await?
            >= self.policy.max_emails_per_account_per_hour
        {
            tracing::warn!(user_id = user.id, "recovery e-mails per hour exhausted; nothing sent");
            return Ok(());
        }
        let token = self.secrets.recovery_token();
        let expires_at = now + Duration::hours(self.policy.token_valid_hours);
        self.store.issue(user.id, &token_hash(&token), expires_at).await?;
        let link = format!("{}?token={}", self.policy.link_base, token);
        self.outbox.enqueue(MailMessage {
            to: user.email,
            kind: MailKind::PasswordRecovery {
                link,
                valid_hours: self.policy.token_valid_hours,
            },
        });
        tracing::info!(user_id = user.id, "recovery token issued");
        Ok(())
    }

    /// Spends a recovery token to set a new password.
    #[tracing::instrument(skip_all)]
    pub async fn reset(&self, token: &str, password: &str) -> Result<(), ResetError> {
        let now = self.clock.now();
        let stored = self
            .store
            .find(&token_hash(token))
            .await?
            .ok_or(ResetError::UnknownToken)?;
        if stored.used_at.is_some() || stored.revoked_at.is_some() || stored.expires_at <= now {
            return Err(ResetError::ExpiredOrUsed);
        }
        let password = self.password_policy.check(password).map_err(ResetError::WeakPassword)?;
        let hash = self.hasher.hash(&password).await?;
        match self.store.reset_password(stored.id, stored.user_id, &hash, now).await? {
            ResetOutcome::AlreadySpent => Err(ResetError::ExpiredOrUsed),
            ResetOutcome::Done => {
                self.outbox.enqueue(MailMessage {
                    to: stored.email,
                    kind: MailKind::PasswordChanged,
                });
                tracing::info!(user_id = stored.user_id, "password reset");
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests;
