//! Sessions on real PostgreSQL: refresh rotation under concurrency, every way a session ends,
//! the races between them, and the answers each instance keeps in memory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{CachedSessions, PgAccounts, PgRecovery, PgSessions, PoolSettings, build_pool};
use chrono::{Duration, Utc};
use domain::auth::model::{NewSession, RefreshTokenRecord, RotateOutcome, UserAccount};
use domain::auth::password::PasswordHash;
use domain::auth::ports::{SessionRegistry, SessionStore, UserRepository};
use domain::recovery::RecoveryStore;
use domain::users::{NewUser, UserAdministration, UserWriter};
use domain::values::{Application, Email};
use std::time::Instant;
use uuid::Uuid;

struct Fixture {
    db: TestDatabase,
    accounts: PgAccounts,
    sessions: PgSessions,
    user: UserAccount,
}

async fn fixture() -> Fixture {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let accounts = PgAccounts::new(pool.clone());
    let user_id = accounts
        .create(&NewUser {
            email: Email::parse("ana@exemplo.com.br").unwrap(),
            password_hash: PasswordHash("$2b$04$hash".into()),
            applications: vec![Application::Ecommerce],
            name: None,
            cpf: None,
            partner: None,
        })
        .await
        .unwrap();
    let user = accounts.find_by_id(user_id).await.unwrap().unwrap();
    Fixture {
        db,
        accounts,
        sessions: PgSessions::new(pool),
        user,
    }
}

fn token_of(session: &NewSession) -> RefreshTokenRecord {
    RefreshTokenRecord {
        jti: Uuid::new_v4(),
        session_id: session.id,
        user_id: session.user_id,
        application: session.application,
        expires_at: Utc::now() + Duration::hours(2),
    }
}

impl Fixture {
    /// Opens a session under the user's current credentials; answers it and its first token.
    async fn open(&self) -> (NewSession, RefreshTokenRecord) {
        let user = self.accounts.find_by_id(self.user.id).await.unwrap().unwrap();
        let session = NewSession {
            id: Uuid::new_v4(),
            user_id: user.id,
            application: Application::Ecommerce,
            credentials_epoch: user.credentials_epoch,
        };
        let first = token_of(&session);
        self.sessions.open(&session, &first).await.unwrap();
        (session, first)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn of_two_concurrent_rotations_of_one_token_one_succeeds_and_the_other_ends_the_session() {
    let f = fixture().await;
    let (session, first) = f.open().await;
    let (next_a, next_b) = (token_of(&session), token_of(&session));
    let now = Utc::now();
    let (a, b) = tokio::join!(
        f.sessions.rotate(first.jti, &next_a, now),
        f.sessions.rotate(first.jti, &next_b, now)
    );
    let mut outcomes = [a.unwrap(), b.unwrap()];
    outcomes.sort_by_key(|o| *o == RotateOutcome::Rotated);
    assert_eq!(outcomes, [RotateOutcome::Reused, RotateOutcome::Rotated]);
    // The reuse ended the session: neither successor works, nor its access tokens.
    assert!(!f.sessions.is_active(session.id).await.unwrap());
    for successor in [next_a, next_b] {
        let outcome = f
            .sessions
            .rotate(successor.jti, &token_of(&session), now)
            .await
            .unwrap();
        assert_ne!(outcome, RotateOutcome::Rotated);
    }
    assert_eq!(
        f.sessions
            .rotate(Uuid::new_v4(), &token_of(&session), now)
            .await
            .unwrap(),
        RotateOutcome::Invalid
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_refresh_token_is_invalid_and_ends_nothing() {
    let f = fixture().await;
    let (session, first) = f.open().await;
    let later = Utc::now() + Duration::hours(3);
    assert_eq!(
        f.sessions.rotate(first.jti, &token_of(&session), later).await.unwrap(),
        RotateOutcome::Invalid
    );
    assert!(f.sessions.is_active(session.id).await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_out_session_refreshes_no_more_and_a_signed_out_refresh_is_not_a_reuse() {
    let f = fixture().await;
    let (session, first) = f.open().await;
    f.sessions.end(session.id, Utc::now()).await.unwrap();
    assert!(!f.sessions.is_active(session.id).await.unwrap());
    assert_eq!(
        f.sessions
            .rotate(first.jti, &token_of(&session), Utc::now())
            .await
            .unwrap(),
        RotateOutcome::Invalid
    );
    // Ending twice is harmless.
    f.sessions.end(session.id, Utc::now()).await.unwrap();
}

/// What can end a session while a refresh of it is under way.
#[derive(Debug, Clone, Copy)]
enum Ending {
    SignOut,
    Reuse,
    PasswordReset,
    Disable,
}

impl Fixture {
    async fn end_by(&self, ending: Ending, session: &NewSession, spent: &RefreshTokenRecord) {
        let now = Utc::now();
        match ending {
            Ending::SignOut => self.sessions.end(session.id, now).await.unwrap(),
            // A copy of the token being refreshed, presented by someone else at the same time.
            Ending::Reuse => {
                self.sessions.rotate(spent.jti, &token_of(session), now).await.unwrap();
            }
            Ending::PasswordReset => {
                let recovery = PgRecovery::new(build_pool(&PoolSettings::new(&self.db.url)).unwrap());
                let hash = format!("{:064x}", Uuid::new_v4().as_u128());
                recovery
                    .issue(self.user.id, &hash, now + Duration::hours(1))
                    .await
                    .unwrap();
                let token = recovery.find(&hash).await.unwrap().unwrap();
                recovery
                    .reset_password(token.id, self.user.id, &PasswordHash("$2b$04$nova".into()), now)
                    .await
                    .unwrap();
            }
            Ending::Disable => self.accounts.disable(&self.user.email).await.unwrap(),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_interleaving_of_a_refresh_with_an_ending_leaves_a_working_token() {
    let f = fixture().await;
    // A disable is for good: once is all it can race.
    for (ending, rounds) in [
        (Ending::SignOut, 15),
        (Ending::Reuse, 15),
        (Ending::PasswordReset, 15),
        (Ending::Disable, 1),
    ] {
        for round in 0..rounds {
            let (session, first) = f.open().await;
            let next = token_of(&session);
            let (rotated, ()) = tokio::join!(
                f.sessions.rotate(first.jti, &next, Utc::now()),
                f.end_by(ending, &session, &first)
            );
            rotated.unwrap();
            assert!(
                !f.sessions.is_active(session.id).await.unwrap(),
                "{ending:?}, round {round}: the session still holds"
            );
            let again = f
                .sessions
                .rotate(next.jti, &token_of(&session), Utc::now())
                .await
                .unwrap();
            assert_ne!(
                again,
                RotateOutcome::Rotated,
                "{ending:?}, round {round}: the successor still refreshes"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_opened_under_credentials_that_moved_on_never_holds() {
    let f = fixture().await;
    // A sign-in read the user, then a reset committed before it opened the session.
    let stale = f.user.credentials_epoch;
    let (before, its_token) = f.open().await;
    f.end_by(Ending::PasswordReset, &before, &its_token).await;
    let session = NewSession {
        id: Uuid::new_v4(),
        user_id: f.user.id,
        application: Application::Ecommerce,
        credentials_epoch: stale,
    };
    f.sessions.open(&session, &token_of(&session)).await.unwrap();
    assert!(!f.sessions.is_active(session.id).await.unwrap());
    assert!(
        !f.sessions.is_active(Uuid::new_v4()).await.unwrap(),
        "an unknown id holds nothing"
    );
}

/// An instance's session answers, once its listener is in place.
async fn instance(f: &Fixture) -> CachedSessions {
    let cached = CachedSessions::start(f.sessions.clone(), &f.db.url, 100);
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while !cached.is_listening() {
        assert!(Instant::now() < deadline, "the sessions listener never connected");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    cached
}

async fn eventually_ended(cached: &CachedSessions, session: &NewSession) -> std::time::Duration {
    let started = Instant::now();
    while cached.is_active(session.id).await.unwrap() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "still active after 5 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_instance_keeps_the_answer_until_any_instance_ends_the_session() {
    let f = fixture().await;
    let (one, two) = (instance(&f).await, instance(&f).await);
    let (session, _) = f.open().await;
    assert!(one.is_active(session.id).await.unwrap());
    assert!(two.is_active(session.id).await.unwrap());

    // Kept: with the row ended behind the triggers' back, memory still says it holds.
    {
        use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
        let mut conn = AsyncPgConnection::establish(&f.db.url).await.unwrap();
        diesel::sql_query("SET session_replication_role = replica")
            .execute(&mut conn)
            .await
            .unwrap();
        diesel::sql_query(format!(
            "UPDATE sessions SET ended_at = now(), end_reason = 'signout' WHERE id = '{}'",
            session.id
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    assert!(one.is_active(session.id).await.unwrap(), "served from memory");

    // An end announced by the trigger reaches both instances.
    let (other, _) = f.open().await;
    assert!(one.is_active(other.id).await.unwrap());
    assert!(two.is_active(other.id).await.unwrap());
    f.sessions.end(other.id, Utc::now()).await.unwrap();
    eventually_ended(&one, &other).await;
    eventually_ended(&two, &other).await;

    // So does a change of credentials, made by another tool.
    let (third, _) = f.open().await;
    assert!(one.is_active(third.id).await.unwrap());
    f.accounts.disable(&f.user.email).await.unwrap();
    eventually_ended(&one, &third).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_instance_that_pins_a_user_reads_the_pin_at_its_next_request() {
    let f = fixture().await;
    let cached = instance(&f).await;
    let (session, _) = f.open().await;
    let holding = cached.holding(session.id).await.unwrap().unwrap();
    assert_eq!(holding.pinned_version, None);
    let forgetting = adapters_postgres::ForgettingAdministration {
        inner: std::sync::Arc::new(f.accounts.clone()),
        sessions: cached.clone(),
    };
    let email = Email::parse("ana@exemplo.com.br").unwrap();
    // Pinned and unpinned over and over: each next read names the pin just written, never the
    // one kept before (the notification may arrive later).
    for round in 0..20 {
        let version = (round % 2 == 0).then_some("2026-12-01");
        forgetting.pin_version(&email, version).await.unwrap();
        let holding = cached.holding(session.id).await.unwrap().unwrap();
        assert_eq!(holding.pinned_version.as_deref(), version, "round {round}");
    }
}
