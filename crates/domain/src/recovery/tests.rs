//! Use-case tests of password recovery, over mocked ports.

use super::*;
use crate::auth::model::UserAccount;
use crate::auth::ports::{MockPasswordHasher, MockSignInThrottle, MockUserRepository};
use crate::clock::MockClock;
use crate::mail::MockMailOutbox;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

fn email() -> Email {
    Email::parse("ana@exemplo.com.br").unwrap()
}

struct Mocks {
    users: MockUserRepository,
    store: MockRecoveryStore,
    hasher: MockPasswordHasher,
    outbox: MockMailOutbox,
    throttle: MockSignInThrottle,
}

fn account(disabled: bool) -> UserAccount {
    UserAccount {
        id: 7,
        email: email(),
        password_hash: PasswordHash("h".into()),
        applications: vec![],
        credentials_epoch: 0,
        disabled,
    }
}

impl Mocks {
    fn new() -> Self {
        let mut throttle = MockSignInThrottle::new();
        throttle.expect_admit().returning(|_, _| Ok(Admission::Admitted));
        Self {
            users: MockUserRepository::new(),
            store: MockRecoveryStore::new(),
            hasher: MockPasswordHasher::new(),
            outbox: MockMailOutbox::new(),
            throttle,
        }
    }

    fn known_user(mut self) -> Self {
        self.users
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(false))));
        self
    }

    fn service(self) -> RecoveryService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let mut secrets = MockSecretGenerator::new();
        secrets.expect_recovery_token().returning(|| "segredo-aleatorio".into());
        RecoveryService {
            users: Arc::new(self.users),
            store: Arc::new(self.store),
            hasher: Arc::new(self.hasher),
            secrets: Arc::new(secrets),
            outbox: Arc::new(self.outbox),
            throttle: Arc::new(self.throttle),
            clock: Arc::new(clock),
            policy: RecoveryPolicy {
                link_base: "https://vendas.exemplo.com.br/redefinir-senha".into(),
                ..RecoveryPolicy::default()
            },
            password_policy: PasswordPolicy::default(),
        }
    }
}

#[test]
fn the_hash_is_hex_sha256() {
    assert_eq!(
        token_hash("abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[tokio::test]
async fn a_known_email_gets_a_link_with_the_token_and_only_its_hash_is_stored() {
    let mut m = Mocks::new().known_user();
    m.store.expect_issued_since().returning(|_, _| Ok(0));
    m.store
        .expect_issue()
        .withf(|user, hash, expires| {
            *user == 7 && hash == token_hash("segredo-aleatorio") && *expires == now() + Duration::hours(24)
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    m.outbox
        .expect_enqueue()
        .withf(|m| matches!(&m.kind, MailKind::PasswordRecovery { link, .. } if link == "https://vendas.exemplo.com.br/redefinir-senha?token=segredo-aleatorio"))
        .times(1)
        .return_const(());
    assert_eq!(m.service().request(&email(), Some("203.0.113.1".into())).await, Ok(()));
}

#[tokio::test]
async fn an_unknown_email_sends_nothing_and_answers_the_same() {
    let mut m = Mocks::new();
    m.users.expect_find_by_email().returning(|_| Ok(None));
    m.store.expect_issue().never();
    m.outbox.expect_enqueue().never();
    assert_eq!(m.service().request(&email(), None).await, Ok(()));
}

#[tokio::test]
async fn past_the_hourly_limit_per_account_nothing_is_sent_but_the_answer_is_the_same() {
    let mut m = Mocks::new().known_user();
    m.store.expect_issued_since().returning(|_, _| Ok(3));
    m.store.expect_issue().never();
    m.outbox.expect_enqueue().never();
    assert_eq!(m.service().request(&email(), None).await, Ok(()));
}

#[tokio::test]
async fn each_request_is_admitted_on_the_addresss_hourly_counter_of_ten() {
    let mut m = Mocks::new();
    m.throttle = MockSignInThrottle::new();
    m.throttle
        .expect_admit()
        .withf(|counters, _| {
            let (key, tier) = &counters[0];
            counters.len() == 1
                && key.scope() == "recovery_ip"
                && (
                    tier.max_failures,
                    tier.window_secs,
                    tier.base_block_secs,
                    tier.max_block_secs,
                ) == (10, 3600, 3600, 3600)
        })
        .times(1)
        .returning(|_, _| Ok(Admission::Admitted));
    m.throttle.expect_give_back().never();
    m.users.expect_find_by_email().returning(|_| Ok(None));
    assert_eq!(m.service().request(&email(), Some("203.0.113.1".into())).await, Ok(()));
}

#[tokio::test]
async fn a_refused_address_is_told_until_when() {
    let mut m = Mocks::new();
    m.throttle = MockSignInThrottle::new();
    let until = now() + Duration::minutes(20);
    m.throttle
        .expect_admit()
        .returning(move |_, _| Ok(Admission::Refused { until }));
    m.users.expect_find_by_email().never();
    assert_eq!(
        m.service().request(&email(), Some("203.0.113.1".into())).await,
        Err(RecoveryError::Throttled { until })
    );
}

#[tokio::test]
async fn a_disabled_user_is_sent_nothing_and_told_the_same() {
    let mut m = Mocks::new();
    m.users.expect_find_by_email().returning(|_| Ok(Some(account(true))));
    m.store.expect_issue().never();
    m.outbox.expect_enqueue().never();
    assert_eq!(m.service().request(&email(), None).await, Ok(()));
}

fn stored(expires_at: DateTime<Utc>, used: bool) -> StoredRecoveryToken {
    StoredRecoveryToken {
        id: 1,
        user_id: 7,
        email: email(),
        expires_at,
        used_at: used.then(now),
        revoked_at: None,
    }
}

#[tokio::test]
async fn reset_refuses_unknown_expired_and_spent_tokens() {
    let mut m = Mocks::new();
    m.store.expect_find().returning(|hash| {
        Ok(match hash {
            h if h == token_hash("expirado") => Some(stored(now(), false)),
            h if h == token_hash("usado") => Some(stored(now() + Duration::hours(1), true)),
            _ => None,
        })
    });
    m.store.expect_reset_password().never();
    let service = m.service();
    assert_eq!(
        service.reset("nenhum", "Nova#Senha1").await,
        Err(ResetError::UnknownToken)
    );
    assert_eq!(
        service.reset("expirado", "Nova#Senha1").await,
        Err(ResetError::ExpiredOrUsed)
    );
    assert_eq!(
        service.reset("usado", "Nova#Senha1").await,
        Err(ResetError::ExpiredOrUsed)
    );
}

#[tokio::test]
async fn a_weak_password_keeps_the_token() {
    let mut m = Mocks::new();
    m.store
        .expect_find()
        .returning(|_| Ok(Some(stored(now() + Duration::hours(1), false))));
    m.store.expect_reset_password().never();
    let result = m.service().reset("bom", "fraca").await;
    assert!(matches!(result, Err(ResetError::WeakPassword(r)) if r.code == "senha_fraca"));
}

#[tokio::test]
async fn a_reset_replaces_the_hash_and_sends_the_notice() {
    let mut m = Mocks::new();
    m.store
        .expect_find()
        .returning(|_| Ok(Some(stored(now() + Duration::hours(1), false))));
    m.hasher
        .expect_hash()
        .returning(|_| Ok(PasswordHash("$2b$novo".into())));
    m.store
        .expect_reset_password()
        .withf(|id, user, hash, _| *id == 1 && *user == 7 && hash.0 == "$2b$novo")
        .times(1)
        .returning(|_, _, _, _| Ok(ResetOutcome::Done));
    m.outbox
        .expect_enqueue()
        .withf(|m| m.kind == MailKind::PasswordChanged)
        .times(1)
        .return_const(());
    assert_eq!(m.service().reset("bom", "Nova#Senha1").await, Ok(()));
}

#[tokio::test]
async fn losing_a_concurrent_reset_is_reported_as_spent() {
    let mut m = Mocks::new();
    m.store
        .expect_find()
        .returning(|_| Ok(Some(stored(now() + Duration::hours(1), false))));
    m.hasher
        .expect_hash()
        .returning(|_| Ok(PasswordHash("$2b$novo".into())));
    m.store
        .expect_reset_password()
        .returning(|_, _, _, _| Ok(ResetOutcome::AlreadySpent));
    m.outbox.expect_enqueue().never();
    assert_eq!(
        m.service().reset("bom", "Nova#Senha1").await,
        Err(ResetError::ExpiredOrUsed)
    );
}
