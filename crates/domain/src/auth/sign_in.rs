//! Sign-in (route 1) and token renewal: the rules, over the ports.

use crate::auth::model::{NewSession, Principal, RotateOutcome, SessionId, ThrottleKey, TokenPair, UserAccount};
use crate::auth::password::Password;
use crate::auth::ports::{
    Admission, HashError, PasswordHasher, SessionHolding, SessionRegistry, SessionStore, SignInThrottle, TokenError,
    TokenService, UserRepository,
};
use crate::auth::throttle::ThrottlePolicy;
use crate::auth::throttle::Tier;
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
    /// Only said after the password was verified.
    #[error("usuário desativado")]
    Disabled,
    #[error(transparent)]
    Hash(#[from] HashError),
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefreshError {
    /// Malformed, expired, unknown, already used (and then its session is ended), or its session
    /// is over.
    #[error("refresh token inválido")]
    InvalidToken,
    #[error("usuário sem permissão para a aplicação")]
    ApplicationNotAllowed,
    #[error(transparent)]
    Token(TokenError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a bearer token opens nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthenticationError {
    /// Malformed, badly signed, expired, or not an access token.
    #[error("token inválido")]
    InvalidToken,
    /// A valid token of a session that is over: signed out, its refresh token reused, its user's
    /// password reset, applications changed, or the user disabled.
    #[error("sessão encerrada")]
    SessionEnded,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Who a bearer token belongs to: its signature, then whether its session still holds.
#[derive(Clone)]
pub struct Authenticator {
    pub tokens: Arc<dyn TokenService>,
    pub sessions: Arc<dyn SessionRegistry>,
}

impl Authenticator {
    pub async fn authenticate(&self, token: &str) -> Result<Principal, AuthenticationError> {
        self.identify(token).await.map(|(principal, _)| principal)
    }

    /// The token's principal and what its session holds (the user's pinned contract version).
    pub async fn identify(&self, token: &str) -> Result<(Principal, SessionHolding), AuthenticationError> {
        let principal = self
            .tokens
            .verify_access(token)
            .map_err(|_| AuthenticationError::InvalidToken)?;
        match self.sessions.holding(principal.session_id).await? {
            Some(holding) => Ok((principal, holding)),
            None => Err(AuthenticationError::SessionEnded),
        }
    }
}

/// The sign-in, renewal and sign-out use cases.
#[derive(Clone)]
pub struct SignInService {
    pub users: Arc<dyn UserRepository>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub tokens: Arc<dyn TokenService>,
    pub sessions: Arc<dyn SessionStore>,
    pub throttle: Arc<dyn SignInThrottle>,
    pub clock: Arc<dyn Clock>,
    pub policy: ThrottlePolicy,
}

impl SignInService {
    /// The counters a sign-in moves, the pair's first. The e-mail is counted whether or not it
    /// names a user, so that an unknown one is throttled exactly like a known one.
    fn counters(&self, request: &SignInRequest) -> Vec<(ThrottleKey, Tier)> {
        let email = request.email.as_str();
        let address = request.client_address.as_deref();
        let mut counters = vec![
            (ThrottleKey::pair(email, address), self.policy.per_pair),
            (ThrottleKey::Email(email.to_owned()), self.policy.per_account),
        ];
        if let Some(address) = address {
            counters.push((ThrottleKey::client(address), self.policy.per_address));
        }
        counters
    }

    #[tracing::instrument(skip_all, fields(application = %request.application))]
    pub async fn sign_in(&self, request: SignInRequest) -> Result<SignedIn, SignInError> {
        let now = self.clock.now();
        let counters = self.counters(&request);
        // The attempt counts as a failure from here until the password proves right: of N
        // concurrent guesses only as many as the counters allow get to the hash.
        if let Admission::Refused { until } = self.throttle.admit(&counters, now).await? {
            tracing::warn!("sign-in throttled");
            return Err(SignInError::Throttled { until });
        }
        let user = match self.check_password(&request).await {
            Ok(user) => user,
            Err(error @ SignInError::Hash(_)) => {
                // Not a guess that was checked: the hash never ran to the end.
                self.throttle.give_back(&counters).await?;
                return Err(error);
            }
            Err(failure) => return Err(failure),
        };
        self.throttle.reset(&counters[0].0).await?;
        self.throttle.give_back(&counters[1..]).await?;
        if user.disabled {
            return Err(SignInError::Disabled);
        }
        if !user.may_use(request.application) {
            return Err(SignInError::ApplicationNotAllowed);
        }

        let session = NewSession {
            id: Uuid::new_v4(),
            user_id: user.id,
            application: request.application,
            credentials_epoch: user.credentials_epoch,
        };
        let tokens = self
            .tokens
            .issue(principal_of(&user, session.application, session.id), now)?;
        self.sessions.open(&session, &tokens.refresh).await?;
        tracing::info!(user_id = user.id, "sign-in succeeded");
        Ok(SignedIn {
            email: user.email,
            tokens,
        })
    }

    /// The user whose password this is; unknown users are checked against a dummy hash, so both
    /// failures take the same time.
    async fn check_password(&self, request: &SignInRequest) -> Result<UserAccount, SignInError> {
        let user = self.users.find_by_email(&request.email).await?;
        let matches = self
            .hasher
            .verify(&request.password, user.as_ref().map(|u| u.password_hash.clone()))
            .await?;
        match (user, matches) {
            (Some(user), true) => Ok(user),
            (None, _) => Err(SignInError::UnknownUser),
            (Some(_), false) => Err(SignInError::WrongPassword),
        }
    }

    /// Trades a refresh token for a new pair. Each refresh token works once; presenting a spent
    /// one ends its session, and with it every token that descends from the same sign-in.
    #[tracing::instrument(skip_all)]
    pub async fn refresh(&self, refresh_token: &str) -> Result<SignedIn, RefreshError> {
        let claims = self.tokens.verify_refresh(refresh_token).map_err(|e| match e {
            TokenError::Invalid => RefreshError::InvalidToken,
            other => RefreshError::Token(other),
        })?;
        let now = self.clock.now();
        // The permission may have been withdrawn since the sign-in (a change of applications also
        // ends the session; this answers it plainly).
        let user = self
            .users
            .find_by_id(claims.user_id)
            .await?
            .ok_or(RefreshError::InvalidToken)?;
        if !user.may_use(claims.application) {
            return Err(RefreshError::ApplicationNotAllowed);
        }
        let tokens = self
            .tokens
            .issue(principal_of(&user, claims.application, claims.session_id), now)
            .map_err(RefreshError::Token)?;
        // The new pair is signed first and stored only if the old token is spent now, in a session
        // that still holds; otherwise it is dropped unseen.
        match self.sessions.rotate(claims.jti, &tokens.refresh, now).await? {
            RotateOutcome::Rotated => Ok(SignedIn {
                email: user.email,
                tokens,
            }),
            RotateOutcome::Reused => {
                tracing::warn!(user_id = claims.user_id, "refresh token reused: session ended");
                Err(RefreshError::InvalidToken)
            }
            RotateOutcome::Invalid => Err(RefreshError::InvalidToken),
        }
    }

    /// Ends the principal's session: its access tokens stop working on every instance, its
    /// refresh tokens too.
    #[tracing::instrument(skip_all, fields(user_id = principal.user_id))]
    pub async fn sign_out(&self, principal: &Principal) -> Result<(), StoreError> {
        self.sessions.end(principal.session_id, self.clock.now()).await?;
        tracing::info!("signed out");
        Ok(())
    }
}

fn principal_of(user: &UserAccount, application: Application, session_id: SessionId) -> Principal {
    Principal {
        user_id: user.id,
        email: user.email.as_str().to_owned(),
        application,
        session_id,
    }
}
