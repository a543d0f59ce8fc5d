//! Use-case tests of sign-in, renewal, sign-out and authentication, over mocked ports.

use super::model::*;
use super::password::{Password, PasswordHash};
use super::ports::*;
use super::sign_in::*;
use super::throttle::ThrottlePolicy;
use crate::clock::MockClock;
use crate::store::StoreError;
use crate::values::{Application, Email};
use chrono::{DateTime, TimeZone, Utc};
use std::sync::Arc;
use uuid::Uuid;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn user(applications: Vec<Application>) -> UserAccount {
    UserAccount {
        id: 7,
        email: Email::parse("ana@exemplo.com.br").unwrap(),
        password_hash: PasswordHash("$2b$hash".into()),
        applications,
        credentials_epoch: 3,
        disabled: false,
    }
}

fn request() -> SignInRequest {
    SignInRequest {
        email: Email::parse("ana@exemplo.com.br").unwrap(),
        password: Password::parse("Vendas#2026").unwrap(),
        application: Application::Partner,
        client_address: Some("203.0.113.9".into()),
    }
}

fn pair(principal: Principal) -> TokenPair {
    TokenPair {
        access_token: "access".into(),
        refresh_token: "refresh".into(),
        refresh: RefreshTokenRecord {
            jti: Uuid::new_v4(),
            session_id: principal.session_id,
            user_id: principal.user_id,
            application: principal.application,
            expires_at: now(),
        },
    }
}

struct Mocks {
    users: MockUserRepository,
    hasher: MockPasswordHasher,
    tokens: MockTokenService,
    sessions: MockSessionStore,
    throttle: MockSignInThrottle,
}

impl Mocks {
    fn new() -> Self {
        Self {
            users: MockUserRepository::new(),
            hasher: MockPasswordHasher::new(),
            tokens: MockTokenService::new(),
            sessions: MockSessionStore::new(),
            throttle: MockSignInThrottle::new(),
        }
    }

    fn admitted(mut self) -> Self {
        self.throttle.expect_admit().returning(|_, _| Ok(Admission::Admitted));
        self
    }

    fn service(self) -> SignInService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        SignInService {
            users: Arc::new(self.users),
            hasher: Arc::new(self.hasher),
            tokens: Arc::new(self.tokens),
            sessions: Arc::new(self.sessions),
            throttle: Arc::new(self.throttle),
            clock: Arc::new(clock),
            policy: ThrottlePolicy::default(),
        }
    }
}

fn scopes(counters: &[(ThrottleKey, super::throttle::Tier)]) -> Vec<&'static str> {
    counters.iter().map(|(k, _)| k.scope()).collect()
}

#[tokio::test]
async fn success_opens_a_session_under_the_users_credentials_and_forgets_the_pairs_failures() {
    let mut m = Mocks::new().admitted();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.hasher
        .expect_verify()
        .withf(|_, hash| hash.is_some())
        .returning(|_, _| Ok(true));
    m.throttle
        .expect_reset()
        .withf(|k| *k == ThrottleKey::Pair("ana@exemplo.com.br 203.0.113.9".into()))
        .times(1)
        .returning(|_| Ok(()));
    m.throttle
        .expect_give_back()
        .withf(|counters| scopes(counters) == ["signin_email", "signin_ip"])
        .times(1)
        .returning(|_| Ok(()));
    m.tokens
        .expect_issue()
        .withf(|p, _| p.user_id == 7 && p.application == Application::Partner)
        .returning(|p, _| Ok(pair(p)));
    m.sessions
        .expect_open()
        .withf(|session, first| {
            session.credentials_epoch == 3 && session.user_id == 7 && first.session_id == session.id
        })
        .times(1)
        .returning(|_, _| Ok(()));
    let signed = m.service().sign_in(request()).await.unwrap();
    assert_eq!(signed.email.as_str(), "ana@exemplo.com.br");
    assert_eq!(signed.tokens.access_token, "access");
}

#[tokio::test]
async fn the_attempt_is_admitted_on_the_pair_the_account_and_the_address_before_the_hash() {
    let mut m = Mocks::new();
    m.throttle
        .expect_admit()
        .withf(|counters, _| {
            let policy = ThrottlePolicy::default();
            scopes(counters) == ["signin_pair", "signin_email", "signin_ip"]
                && counters[0].1 == policy.per_pair
                && counters[1].1 == policy.per_account
                && counters[2].1 == policy.per_address
        })
        .times(1)
        .returning(|_, _| Ok(Admission::Admitted));
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher.expect_verify().returning(|_, _| Ok(false));
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::UnknownUser));
}

#[tokio::test]
async fn unknown_user_is_checked_against_the_dummy_hash_and_its_attempt_kept_as_a_failure() {
    let mut m = Mocks::new().admitted();
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher
        .expect_verify()
        .withf(|_, hash| hash.is_none())
        .times(1)
        .returning(|_, _| Ok(false));
    m.throttle.expect_give_back().never();
    m.throttle.expect_reset().never();
    m.tokens.expect_issue().never();
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::UnknownUser));
}

#[tokio::test]
async fn wrong_password_keeps_the_admitted_attempt_as_a_failure() {
    let mut m = Mocks::new().admitted();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.hasher.expect_verify().returning(|_, _| Ok(false));
    m.throttle.expect_give_back().never();
    m.throttle.expect_reset().never();
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::WrongPassword));
}

#[tokio::test]
async fn a_refused_attempt_answers_throttled_before_any_lookup() {
    let mut m = Mocks::new();
    let until = now() + chrono::Duration::seconds(60);
    m.throttle
        .expect_admit()
        .returning(move |_, _| Ok(Admission::Refused { until }));
    m.users.expect_find_by_email().never();
    m.hasher.expect_verify().never();
    assert_eq!(
        m.service().sign_in(request()).await,
        Err(SignInError::Throttled { until })
    );
}

#[tokio::test]
async fn a_hash_that_could_not_run_gives_the_attempt_back() {
    let mut m = Mocks::new().admitted();
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher.expect_verify().returning(|_, _| Err(HashError::Busy));
    m.throttle
        .expect_give_back()
        .withf(|counters| counters.len() == 3)
        .times(1)
        .returning(|_| Ok(()));
    assert_eq!(
        m.service().sign_in(request()).await,
        Err(SignInError::Hash(HashError::Busy))
    );
}

#[tokio::test]
async fn a_user_without_the_application_is_refused_after_the_password_and_not_counted() {
    let mut m = Mocks::new().admitted();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::BackOffice]))));
    m.hasher.expect_verify().returning(|_, _| Ok(true));
    m.throttle.expect_reset().times(1).returning(|_| Ok(()));
    m.throttle.expect_give_back().times(1).returning(|_| Ok(()));
    m.tokens.expect_issue().never();
    assert_eq!(
        m.service().sign_in(request()).await,
        Err(SignInError::ApplicationNotAllowed)
    );
}

#[tokio::test]
async fn a_disabled_user_is_refused_after_the_password_and_opens_no_session() {
    let mut m = Mocks::new().admitted();
    m.users.expect_find_by_email().returning(|_| {
        Ok(Some(UserAccount {
            disabled: true,
            ..user(vec![Application::Partner])
        }))
    });
    m.hasher.expect_verify().returning(|_, _| Ok(true));
    m.throttle.expect_reset().returning(|_| Ok(()));
    m.throttle.expect_give_back().returning(|_| Ok(()));
    m.sessions.expect_open().never();
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::Disabled));
}

fn refresh_claims() -> RefreshClaims {
    RefreshClaims {
        user_id: 7,
        application: Application::Partner,
        session_id: Uuid::from_u128(99),
        jti: Uuid::from_u128(1),
    }
}

#[tokio::test]
async fn refresh_keeps_the_session_and_rotates_the_presented_token() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
    m.users
        .expect_find_by_id()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.tokens
        .expect_issue()
        .withf(|p, _| p.session_id == Uuid::from_u128(99))
        .returning(|p, _| Ok(pair(p)));
    m.sessions
        .expect_rotate()
        .withf(|presented, next, _| *presented == Uuid::from_u128(1) && next.session_id == Uuid::from_u128(99))
        .times(1)
        .returning(|_, _, _| Ok(RotateOutcome::Rotated));
    assert!(m.service().refresh("token").await.is_ok());
}

#[tokio::test]
async fn a_reused_refresh_token_or_an_ended_session_is_refused() {
    for outcome in [RotateOutcome::Reused, RotateOutcome::Invalid] {
        let mut m = Mocks::new();
        m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
        m.users
            .expect_find_by_id()
            .returning(|_| Ok(Some(user(vec![Application::Partner]))));
        m.tokens.expect_issue().returning(|p, _| Ok(pair(p)));
        m.sessions.expect_rotate().returning(move |_, _, _| Ok(outcome));
        assert_eq!(m.service().refresh("token").await, Err(RefreshError::InvalidToken));
    }
}

#[tokio::test]
async fn refresh_checks_the_application_again() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
    m.users
        .expect_find_by_id()
        .returning(|_| Ok(Some(user(vec![Application::Ecommerce]))));
    m.tokens.expect_issue().never();
    m.sessions.expect_rotate().never();
    assert_eq!(
        m.service().refresh("token").await,
        Err(RefreshError::ApplicationNotAllowed)
    );
}

#[tokio::test]
async fn an_access_token_offered_as_refresh_is_invalid() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Err(TokenError::Invalid));
    m.sessions.expect_rotate().never();
    assert_eq!(
        m.service().refresh("access-token").await,
        Err(RefreshError::InvalidToken)
    );
}

#[tokio::test]
async fn an_ipv6_caller_is_counted_by_its_64() {
    let mut m = Mocks::new();
    m.throttle
        .expect_admit()
        .withf(|counters, _| {
            counters
                .iter()
                .any(|(k, _)| *k == ThrottleKey::ClientAddress("2001:db8:aa:bb::/64".into()))
                && counters
                    .iter()
                    .any(|(k, _)| *k == ThrottleKey::Pair("ana@exemplo.com.br 2001:db8:aa:bb::/64".into()))
        })
        .returning(|_, _| Ok(Admission::Admitted));
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher.expect_verify().returning(|_, _| Ok(false));
    let request = SignInRequest {
        client_address: Some("2001:db8:aa:bb:1:2:3:4".into()),
        ..request()
    };
    assert_eq!(m.service().sign_in(request).await, Err(SignInError::UnknownUser));
}

#[tokio::test]
async fn sign_out_ends_the_tokens_session() {
    let mut m = Mocks::new();
    m.sessions
        .expect_end()
        .withf(|session, at| *session == Uuid::from_u128(5) && *at == now())
        .times(1)
        .returning(|_, _| Ok(()));
    let principal = Principal {
        user_id: 7,
        email: "ana@exemplo.com.br".into(),
        application: Application::Partner,
        session_id: Uuid::from_u128(5),
    };
    assert_eq!(m.service().sign_out(&principal).await, Ok(()));
}

fn authenticator(valid: bool, active: Result<bool, StoreError>) -> Authenticator {
    let mut tokens = MockTokenService::new();
    tokens.expect_verify_access().returning(move |_| {
        if valid {
            Ok(Principal {
                user_id: 7,
                email: "ana@exemplo.com.br".into(),
                application: Application::Partner,
                session_id: Uuid::from_u128(5),
            })
        } else {
            Err(TokenError::Invalid)
        }
    });
    let mut sessions = MockSessionRegistry::new();
    sessions
        .expect_holding()
        .withf(|id| *id == Uuid::from_u128(5))
        .returning(move |_| {
            active.clone().map(|holds| {
                holds.then(|| SessionHolding {
                    pinned_version: Some("2026-12-01".into()),
                })
            })
        });
    Authenticator {
        tokens: Arc::new(tokens),
        sessions: Arc::new(sessions),
    }
}

#[tokio::test]
async fn a_token_opens_only_while_its_session_holds() {
    assert_eq!(
        authenticator(true, Ok(true)).authenticate("t").await.map(|p| p.user_id),
        Ok(7)
    );
    assert_eq!(
        authenticator(true, Ok(false)).authenticate("t").await,
        Err(AuthenticationError::SessionEnded)
    );
    assert_eq!(
        authenticator(false, Ok(true)).authenticate("t").await,
        Err(AuthenticationError::InvalidToken)
    );
    let (_, holding) = authenticator(true, Ok(true)).identify("t").await.unwrap();
    assert_eq!(
        holding.pinned_version.as_deref(),
        Some("2026-12-01"),
        "the user's pin comes along"
    );
    let down = StoreError::Unavailable("fora".into());
    assert_eq!(
        authenticator(true, Err(down.clone())).authenticate("t").await,
        Err(AuthenticationError::Store(down))
    );
}
