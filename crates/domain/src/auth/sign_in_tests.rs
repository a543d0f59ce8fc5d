//! Use-case tests of sign-in and renewal, over mocked ports.

use super::model::*;
use super::password::{Password, PasswordHash};
use super::ports::*;
use super::sign_in::*;
use super::throttle::ThrottlePolicy;
use crate::clock::MockClock;
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

fn pair(principal: Principal, family_id: Uuid) -> TokenPair {
    TokenPair {
        access_token: "access".into(),
        refresh_token: "refresh".into(),
        refresh: RefreshTokenRecord {
            jti: Uuid::new_v4(),
            family_id,
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
    refresh_tokens: MockRefreshTokenStore,
    throttle: MockSignInThrottle,
}

impl Mocks {
    fn new() -> Self {
        Self {
            users: MockUserRepository::new(),
            hasher: MockPasswordHasher::new(),
            tokens: MockTokenService::new(),
            refresh_tokens: MockRefreshTokenStore::new(),
            throttle: MockSignInThrottle::new(),
        }
    }

    fn not_blocked(mut self) -> Self {
        self.throttle.expect_blocked_until().returning(|_, _| Ok(None));
        self
    }

    fn service(self) -> SignInService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        SignInService {
            users: Arc::new(self.users),
            hasher: Arc::new(self.hasher),
            tokens: Arc::new(self.tokens),
            refresh_tokens: Arc::new(self.refresh_tokens),
            throttle: Arc::new(self.throttle),
            clock: Arc::new(clock),
            policy: ThrottlePolicy::default(),
        }
    }
}

#[tokio::test]
async fn success_issues_a_new_family_records_the_refresh_token_and_clears_the_email_counter() {
    let mut m = Mocks::new().not_blocked();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.hasher
        .expect_verify()
        .withf(|_, hash| hash.is_some())
        .returning(|_, _| Ok(true));
    m.throttle
        .expect_reset()
        .withf(|k| matches!(k, ThrottleKey::Email(e) if e == "ana@exemplo.com.br"))
        .times(1)
        .returning(|_| Ok(()));
    m.tokens
        .expect_issue()
        .withf(|p, _, _| p.user_id == 7 && p.application == Application::Partner)
        .returning(|p, f, _| Ok(pair(p, f)));
    m.refresh_tokens.expect_record().times(1).returning(|_| Ok(()));
    let signed = m.service().sign_in(request()).await.unwrap();
    assert_eq!(signed.email.as_str(), "ana@exemplo.com.br");
    assert_eq!(signed.tokens.access_token, "access");
}

#[tokio::test]
async fn unknown_user_is_checked_against_the_dummy_hash_and_counted() {
    let mut m = Mocks::new().not_blocked();
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher
        .expect_verify()
        .withf(|_, hash| hash.is_none())
        .times(1)
        .returning(|_, _| Ok(false));
    m.throttle.expect_register_failure().times(2).returning(|_, _, _| Ok(1));
    m.tokens.expect_issue().never();
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::UnknownUser));
}

#[tokio::test]
async fn wrong_password_counts_a_failure_per_key_and_the_fifth_blocks() {
    let mut m = Mocks::new().not_blocked();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.hasher.expect_verify().returning(|_, _| Ok(false));
    m.throttle
        .expect_register_failure()
        .times(2)
        .returning(|key, _, _| Ok(if matches!(key, ThrottleKey::Email(_)) { 5 } else { 2 }));
    let expected_until = now() + chrono::Duration::seconds(30);
    m.throttle
        .expect_block()
        .withf(move |k, until| matches!(k, ThrottleKey::Email(_)) && *until == expected_until)
        .times(1)
        .returning(|_, _| Ok(()));
    assert_eq!(m.service().sign_in(request()).await, Err(SignInError::WrongPassword));
}

#[tokio::test]
async fn a_blocked_key_answers_throttled_before_any_lookup() {
    let mut m = Mocks::new();
    let until = now() + chrono::Duration::seconds(60);
    m.throttle
        .expect_blocked_until()
        .withf(|keys, _| keys.len() == 2)
        .returning(move |_, _| Ok(Some(until)));
    m.users.expect_find_by_email().never();
    m.hasher.expect_verify().never();
    assert_eq!(
        m.service().sign_in(request()).await,
        Err(SignInError::Throttled { until })
    );
}

#[tokio::test]
async fn a_user_without_the_application_is_refused_after_the_password_and_not_counted() {
    let mut m = Mocks::new().not_blocked();
    m.users
        .expect_find_by_email()
        .returning(|_| Ok(Some(user(vec![Application::BackOffice]))));
    m.hasher.expect_verify().returning(|_, _| Ok(true));
    m.throttle.expect_register_failure().never();
    m.tokens.expect_issue().never();
    assert_eq!(
        m.service().sign_in(request()).await,
        Err(SignInError::ApplicationNotAllowed)
    );
}

fn refresh_claims() -> RefreshClaims {
    RefreshClaims {
        user_id: 7,
        application: Application::Partner,
        jti: Uuid::from_u128(1),
    }
}

#[tokio::test]
async fn refresh_keeps_the_family_and_records_the_new_token() {
    let family = Uuid::from_u128(99);
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
    m.refresh_tokens
        .expect_consume()
        .withf(|jti, _| *jti == Uuid::from_u128(1))
        .returning(move |_, _| Ok(ConsumeOutcome::Consumed { family_id: family }));
    m.users
        .expect_find_by_id()
        .returning(|_| Ok(Some(user(vec![Application::Partner]))));
    m.tokens
        .expect_issue()
        .withf(move |_, f, _| *f == family)
        .returning(|p, f, _| Ok(pair(p, f)));
    m.refresh_tokens
        .expect_record()
        .withf(move |r| r.family_id == family)
        .times(1)
        .returning(|_| Ok(()));
    assert!(m.service().refresh("token").await.is_ok());
}

#[tokio::test]
async fn a_reused_refresh_token_is_refused() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
    m.refresh_tokens
        .expect_consume()
        .returning(|_, _| Ok(ConsumeOutcome::Reused));
    m.tokens.expect_issue().never();
    assert_eq!(m.service().refresh("token").await, Err(RefreshError::InvalidToken));
}

#[tokio::test]
async fn refresh_checks_the_application_again() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Ok(refresh_claims()));
    m.refresh_tokens
        .expect_consume()
        .returning(|_, _| Ok(ConsumeOutcome::Consumed { family_id: Uuid::nil() }));
    m.users
        .expect_find_by_id()
        .returning(|_| Ok(Some(user(vec![Application::Ecommerce]))));
    m.tokens.expect_issue().never();
    assert_eq!(
        m.service().refresh("token").await,
        Err(RefreshError::ApplicationNotAllowed)
    );
}

#[tokio::test]
async fn an_access_token_offered_as_refresh_is_invalid() {
    let mut m = Mocks::new();
    m.tokens.expect_verify_refresh().returning(|_| Err(TokenError::Invalid));
    m.refresh_tokens.expect_consume().never();
    assert_eq!(
        m.service().refresh("access-token").await,
        Err(RefreshError::InvalidToken)
    );
}

#[tokio::test]
async fn an_ipv6_caller_is_counted_by_its_64() {
    let mut m = Mocks::new();
    m.throttle
        .expect_blocked_until()
        .withf(|keys, _| keys.contains(&ThrottleKey::ClientAddress("2001:db8:aa:bb::/64".into())))
        .returning(|_, _| Ok(None));
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.hasher.expect_verify().returning(|_, _| Ok(false));
    m.throttle
        .expect_register_failure()
        .withf(|key, _, _| *key != ThrottleKey::ClientAddress("2001:db8:aa:bb:1:2:3:4".into()))
        .times(2)
        .returning(|_, _, _| Ok(1));
    let request = SignInRequest {
        client_address: Some("2001:db8:aa:bb:1:2:3:4".into()),
        ..request()
    };
    assert_eq!(m.service().sign_in(request).await, Err(SignInError::UnknownUser));
}
