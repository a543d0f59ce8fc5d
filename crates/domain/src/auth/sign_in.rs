//! Sign-in (route 1) and token renewal: the rules, over the ports.

use crate::auth::model::{ConsumeOutcome, Principal, ThrottleKey, TokenPair};
use crate::auth::password::Password;
use crate::auth::ports::{
    HashError, PasswordHasher, RefreshTokenStore, SignInThrottle, TokenError, TokenService, UserRepository,
};
use crate::auth::throttle::ThrottlePolicy;
use crate::clock::Clock;
use crate::store::StoreError;
use crate::values::{Application, Email};
use chrono::{DateTime, Utc};
use std::sync::Arc;
use uuid::Uuid;

/// A sign-in attempt whose fields are already valid.
#[derive(Debug, Clone)]
pub struct SignInRequest {
    pub email: Email,
    pub password: Password,
    pub application: Application,
    /// The caller's address as the trusted edge saw it, for the per-address counter.
    pub client_address: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub email: Email,
    pub tokens: TokenPair,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignInError {
    #[error("muitas tentativas de acesso; tente novamente mais tarde")]
    Throttled { until: DateTime<Utc> },
    #[error("usuário não encontrado")]
    UnknownUser,
    #[error("e-mail ou senha incorretos")]
    WrongPassword,
    /// Only said after the password was verified.
    #[error("usuário sem permissão para a aplicação")]
    ApplicationNotAllowed,
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefreshError {
    /// Malformed, expired, unknown, or already used (and then its family is revoked).
    #[error("refresh token inválido")]
    InvalidToken,
    #[error("usuário sem permissão para a aplicação")]
    ApplicationNotAllowed,
    #[error(transparent)]
    Token(TokenError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The sign-in and renewal use cases.
#[derive(Clone)]
pub struct SignInService {
    pub users: Arc<dyn UserRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub tokens: Arc<dyn TokenService>,
    pub refresh_tokens: Arc<dyn RefreshTokenStore>,
    pub throttle: Arc<dyn SignInThrottle>,
    pub clock: Arc<dyn Clock>,
    pub policy: ThrottlePolicy,
}

impl SignInService {
    #[tracing::instrument(skip_all, fields(application = %request.application))]
    pub async fn sign_in(&self, request: SignInRequest) -> Result<SignedIn, SignInError> {
        let now = self.clock.now();
        let mut keys = vec![ThrottleKey::Email(request.email.as_str().to_owned())];
        if let Some(address) = &request.client_address {
            keys.push(ThrottleKey::client(address));
        }
        if let Some(until) = self.throttle.blocked_until(&keys, now).await? {
            return Err(SignInError::Throttled { until });
        }

        let user = self.users.find_by_email(&request.email).await?;
        // Unknown users are checked against a dummy hash, so both failures take the same time.
        let matches = self
            .hasher
            .verify(&request.password, user.as_ref().map(|u| u.password_hash.clone()))
            .await?;
        let user = match (user, matches) {
            (Some(user), true) => user,
            (user, _) => {
                self.count_failure(&keys, now).await?;
                return Err(if user.is_none() {
                    SignInError::UnknownUser
                } else {
                    SignInError::WrongPassword
                });
            }
        };
        if !user.may_use(request.application) {
            return Err(SignInError::ApplicationNotAllowed);
        }
        self.throttle.reset(&keys[0]).await?;

        let principal = Principal {
            user_id: user.id,
            email: user.email.as_str().to_owned(),
            application: request.application,
        };
        let tokens = self.tokens.issue(principal, Uuid::new_v4(), now)?;
        self.refresh_tokens.record(&tokens.refresh).await?;
        tracing::info!(user_id = user.id, "sign-in succeeded");
        Ok(SignedIn {
            email: user.email,
            tokens,
        })
    }

    async fn count_failure(&self, keys: &[ThrottleKey], now: DateTime<Utc>) -> Result<(), StoreError> {
        for key in keys {
            let failures = self
                .throttle
                .register_failure(key, now, self.policy.window_secs)
                .await?;
            if let Some(until) = self.policy.block_until(failures, now) {
                tracing::warn!(scope = key.scope(), failures, "sign-in throttled");
                self.throttle.block(key, until).await?;
            }
        }
        Ok(())
    }

    /// Trades a refresh token for a new pair. Each refresh token works once; presenting a spent
    /// one revokes its family, ending every session that descends from the same sign-in.
    #[tracing::instrument(skip_all)]
    pub async fn refresh(&self, refresh_token: &str) -> Result<SignedIn, RefreshError> {
        let claims = self.tokens.verify_refresh(refresh_token).map_err(|e| match e {
            TokenError::Invalid => RefreshError::InvalidToken,
            other => RefreshError::Token(other),
        })?;
        let now = self.clock.now();
        let family_id = match self.refresh_tokens.consume(claims.jti, now).await? {
            ConsumeOutcome::Consumed { family_id } => family_id,
            ConsumeOutcome::Reused => {
                tracing::warn!(user_id = claims.user_id, "refresh token reused: family revoked");
                return Err(RefreshError::InvalidToken);
            }
            ConsumeOutcome::Unknown => return Err(RefreshError::InvalidToken),
        };
        // The permission may have been withdrawn since the sign-in.
        let user = self
            .users
            .find_by_id(claims.user_id)
            .await?
            .ok_or(RefreshError::InvalidToken)?;
        if !user.may_use(claims.application) {
            return Err(RefreshError::ApplicationNotAllowed);
        }
        let principal = Principal {
            user_id: user.id,
            email: user.email.as_str().to_owned(),
            application: claims.application,
        };
        let tokens = self
            .tokens
            .issue(principal, family_id, now)
            .map_err(RefreshError::Token)?;
        self.refresh_tokens.record(&tokens.refresh).await?;
        Ok(SignedIn {
            email: user.email,
            tokens,
        })
    }
}
