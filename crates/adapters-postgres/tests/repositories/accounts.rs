//! Repository tests against real PostgreSQL, each on a database of its own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgAccounts, PgSessions, PoolSettings, build_pool, migrations, seed};
use chrono::{Duration, Utc};
use domain::auth::model::{NewSession, RefreshTokenRecord, ThrottleKey, UserAccount};
use domain::auth::password::PasswordHash;
use domain::auth::ports::{Admission, SessionRegistry, SessionStore, SignInThrottle, UserRepository};
use domain::auth::throttle::Tier;
use domain::users::{AdministerUserError, CreateUserError, NewUser, PartnerRef, UserAdministration, UserWriter};
use domain::values::{Application, Cnpj, Email};
use uuid::Uuid;

async fn accounts(db: &TestDatabase) -> PgAccounts {
    PgAccounts::new(build_pool(&PoolSettings::new(&db.url)).unwrap())
}

/// A database with one shop user, its accounts and sessions stores.
async fn shop_user_with_sessions() -> (TestDatabase, PgAccounts, PgSessions, UserAccount) {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let sessions = PgSessions::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    let user_id = repo
        .create(&new_user("ana@exemplo.com.br", vec![Application::Ecommerce], None))
        .await
        .unwrap();
    let user = repo.find_by_id(user_id).await.unwrap().unwrap();
    (db, repo, sessions, user)
}

/// Opens a session for the user as a sign-in would, with its first refresh token.
async fn open_session(sessions: &PgSessions, user: &UserAccount, application: Application) -> NewSession {
    let session = NewSession {
        id: Uuid::new_v4(),
        user_id: user.id,
        application,
        credentials_epoch: user.credentials_epoch,
    };
    let first = RefreshTokenRecord {
        jti: Uuid::new_v4(),
        session_id: session.id,
        user_id: user.id,
        application,
        expires_at: Utc::now() + Duration::hours(2),
    };
    sessions.open(&session, &first).await.unwrap();
    session
}

fn new_user(email: &str, apps: Vec<Application>, partner: Option<&str>) -> NewUser {
    NewUser {
        email: Email::parse(email).unwrap(),
        password_hash: PasswordHash("$2b$04$hash".into()),
        applications: apps,
        name: None,
        cpf: None,
        partner: partner.map(|c| PartnerRef {
            cnpj: Cnpj::parse(c).unwrap(),
            name: Some("Parceiro Teste".into()),
        }),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_migration_runs_up_down_and_up_again() {
    let db = TestDatabase::new().await;
    migrations::revert_all(&db.url).await.unwrap();
    let applied = migrations::run_pending(&db.url).await.unwrap();
    let embedded = diesel::migration::MigrationSource::<diesel::pg::Pg>::migrations(&migrations::MIGRATIONS).unwrap();
    assert_eq!(applied.len(), embedded.len(), "{applied:?}");
    assert!(applied.len() >= 3);
    assert!(migrations::run_pending(&db.url).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn three_processes_migrating_an_empty_database_together_all_succeed_and_one_applies_everything() {
    let db = TestDatabase::new().await;
    migrations::revert_all(&db.url).await.unwrap();
    let embedded = diesel::migration::MigrationSource::<diesel::pg::Pg>::migrations(&migrations::MIGRATIONS).unwrap();
    let runs = futures_util::future::join_all((0..3).map(|_| migrations::run_pending(&db.url))).await;
    let applied: Vec<usize> = runs.into_iter().map(|r| r.unwrap().len()).collect();
    let mut sorted = applied.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 0, embedded.len()], "{applied:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn users_are_found_by_email_and_id_with_their_applications() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let id = repo
        .create(&new_user(
            "ana@exemplo.com.br",
            vec![Application::Partner, Application::BackOffice],
            Some("11222333000181"),
        ))
        .await
        .unwrap();
    let by_email = repo
        .find_by_email(&Email::parse("ANA@exemplo.com.br").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_email.id, id);
    assert!(by_email.may_use(Application::Partner) && by_email.may_use(Application::BackOffice));
    assert!(!by_email.may_use(Application::Ecommerce));
    assert_eq!(
        repo.find_by_id(id).await.unwrap().unwrap().email.as_str(),
        "ana@exemplo.com.br"
    );
    assert!(repo.find_by_id(id + 1).await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_duplicate_email_is_refused_and_leaves_nothing_half_written() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    repo.create(&new_user(
        "rep@exemplo.com.br",
        vec![Application::Partner],
        Some("11222333000181"),
    ))
    .await
    .unwrap();
    let second = repo
        .create(&new_user(
            "rep@exemplo.com.br",
            vec![Application::Partner],
            Some("11444777000161"),
        ))
        .await;
    assert_eq!(second, Err(CreateUserError::DuplicateEmail));
    // The second partner was inserted inside the failed transaction: it must not exist.
    let other = repo
        .create(&new_user("outro@exemplo.com.br", vec![Application::Ecommerce], None))
        .await;
    assert!(other.is_ok());
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let mut conn = pool.get().await.unwrap();
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let partners: Count = diesel::sql_query("SELECT count(*) AS n FROM partners")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(partners.n, 1);
}

fn tier(max_failures: u32) -> Tier {
    Tier {
        max_failures,
        window_secs: 900,
        base_block_secs: 30,
        max_block_secs: 900,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn thirty_concurrent_attempts_on_one_counter_are_admitted_only_up_to_its_limit() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let counters = [
        (ThrottleKey::pair("ana@exemplo.com.br", Some("203.0.113.9")), tier(5)),
        (ThrottleKey::Email("ana@exemplo.com.br".into()), tier(20)),
        (ThrottleKey::client("203.0.113.9"), tier(50)),
    ];
    let now = Utc::now();
    let attempts = (0..30).map(|_| repo.admit(&counters, now));
    let outcomes: Vec<Admission> = futures_util::future::join_all(attempts)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let admitted = outcomes.iter().filter(|o| **o == Admission::Admitted).count();
    assert_eq!(admitted, 5, "{outcomes:?}");
    let until = now + Duration::seconds(30);
    assert!(
        outcomes.iter().all(|o| *o == Admission::Admitted
            || *o
                == Admission::Refused {
                    until: truncated(until)
                }),
        "{outcomes:?}"
    );
    // The refused ones moved nothing: the account counter holds the five admitted attempts,
    // so from another address the same account is admitted at once.
    let elsewhere = [
        (ThrottleKey::pair("ana@exemplo.com.br", Some("198.51.100.4")), tier(5)),
        (ThrottleKey::Email("ana@exemplo.com.br".into()), tier(6)),
    ];
    assert_eq!(repo.admit(&elsewhere, now).await.unwrap(), Admission::Admitted);
    // That was the account's sixth: at its limit of 6 it now refuses from anywhere.
    assert!(matches!(
        repo.admit(&elsewhere, now).await.unwrap(),
        Admission::Refused { .. }
    ));
}

/// PostgreSQL keeps microseconds.
fn truncated(t: chrono::DateTime<Utc>) -> chrono::DateTime<Utc> {
    use chrono::SubsecRound;
    t.trunc_subsecs(6)
}

#[tokio::test(flavor = "multi_thread")]
async fn counters_count_within_the_window_give_back_and_reset() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let key = ThrottleKey::Email("ana@exemplo.com.br".into());
    let counter = [(key.clone(), tier(3))];
    let t0 = Utc::now();
    for _ in 0..3 {
        assert_eq!(repo.admit(&counter, t0).await.unwrap(), Admission::Admitted);
    }
    assert_eq!(
        repo.admit(&counter, t0).await.unwrap(),
        Admission::Refused {
            until: truncated(t0 + Duration::seconds(30))
        }
    );
    // The third was right after all: given back, the counter admits again.
    repo.give_back(&counter).await.unwrap();
    assert_eq!(repo.admit(&counter, t0).await.unwrap(), Admission::Admitted);
    // Past the refusal and the window, counting starts again at one.
    let later = t0 + Duration::seconds(901);
    assert_eq!(repo.admit(&counter, later).await.unwrap(), Admission::Admitted);
    assert_eq!(repo.admit(&counter, later).await.unwrap(), Admission::Admitted);
    repo.reset(&key).await.unwrap();
    for _ in 0..3 {
        assert_eq!(repo.admit(&counter, later).await.unwrap(), Admission::Admitted);
    }
    // Giving back a counter that was never moved changes nothing.
    repo.give_back(&[(ThrottleKey::client("192.0.2.1"), tier(3))])
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_seed_runs_twice_without_duplicating() {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    assert!(seed::is_empty(&pool).await.unwrap());
    seed::seed_demo_catalog(&pool).await.unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    let mut conn = pool.get().await.unwrap();
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let products: Count = diesel::sql_query("SELECT count(*) AS n FROM products")
        .get_result(&mut conn)
        .await
        .unwrap();
    assert_eq!(products.n, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn of_two_concurrent_resets_with_one_token_exactly_one_wins_and_sessions_end() {
    use adapters_postgres::PgRecovery;
    use domain::recovery::{RecoveryStore, ResetOutcome};
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let user_id = repo
        .create(&new_user("ana@exemplo.com.br", vec![Application::Ecommerce], None))
        .await
        .unwrap();
    let sessions = PgSessions::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    let user = repo.find_by_id(user_id).await.unwrap().unwrap();
    let session = open_session(&sessions, &user, Application::Ecommerce).await;
    let recovery = PgRecovery::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    let hash = "a".repeat(64);
    recovery
        .issue(user_id, &hash, Utc::now() + Duration::hours(24))
        .await
        .unwrap();
    recovery
        .issue(user_id, &"b".repeat(64), Utc::now() + Duration::hours(24))
        .await
        .unwrap();
    let token = recovery.find(&hash).await.unwrap().unwrap();
    let new_hash = PasswordHash("$2b$04$novo".into());
    let now = Utc::now();
    let (a, b) = tokio::join!(
        recovery.reset_password(token.id, user_id, &new_hash, now),
        recovery.reset_password(token.id, user_id, &new_hash, now)
    );
    let mut outcomes = [a.unwrap(), b.unwrap()];
    outcomes.sort_by_key(|o| *o == ResetOutcome::Done);
    assert_eq!(outcomes, [ResetOutcome::AlreadySpent, ResetOutcome::Done]);
    assert!(
        recovery
            .find(&"b".repeat(64))
            .await
            .unwrap()
            .unwrap()
            .revoked_at
            .is_some(),
        "the other token is revoked"
    );
    assert!(!sessions.is_active(session.id).await.unwrap(), "the session ended");
    assert_eq!(repo.find_by_id(user_id).await.unwrap().unwrap().password_hash, new_hash);
    assert_eq!(
        recovery.issued_since(user_id, now - Duration::hours(1)).await.unwrap(),
        2
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn disabling_a_user_ends_its_sessions_and_marks_it_disabled() {
    let (_db, repo, sessions, user) = shop_user_with_sessions().await;
    assert!(!user.disabled);
    let session = open_session(&sessions, &user, Application::Ecommerce).await;
    assert!(sessions.is_active(session.id).await.unwrap());
    let email = Email::parse("ana@exemplo.com.br").unwrap();
    repo.disable(&email).await.unwrap();
    assert!(!sessions.is_active(session.id).await.unwrap());
    let disabled = repo.find_by_email(&email).await.unwrap().unwrap();
    assert!(disabled.disabled);
    assert_eq!(disabled.credentials_epoch, user.credentials_epoch + 1);
    assert_eq!(
        repo.disable(&Email::parse("ninguem@exemplo.com.br").unwrap()).await,
        Err(AdministerUserError::NotFound)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn changing_a_users_applications_ends_its_sessions_and_a_refused_change_changes_nothing() {
    let (_db, repo, sessions, user) = shop_user_with_sessions().await;
    let user_id = user.id;
    let session = open_session(&sessions, &user, Application::Ecommerce).await;
    let email = Email::parse("ana@exemplo.com.br").unwrap();
    // PARCEIRO for a user that represents no partner: refused, and nothing moved.
    assert_eq!(
        repo.set_applications(&email, &[Application::Partner]).await,
        Err(AdministerUserError::NoPartner)
    );
    assert!(sessions.is_active(session.id).await.unwrap());
    assert_eq!(repo.find_by_id(user_id).await.unwrap().unwrap(), user);

    repo.set_applications(&email, &[Application::BackOffice, Application::Ecommerce])
        .await
        .unwrap();
    assert!(!sessions.is_active(session.id).await.unwrap());
    let changed = repo.find_by_id(user_id).await.unwrap().unwrap();
    let mut applications = changed.applications.clone();
    applications.sort_by_key(|a| a.as_str());
    assert_eq!(applications, vec![Application::BackOffice, Application::Ecommerce]);
    assert_eq!(
        repo.set_applications(
            &Email::parse("ninguem@exemplo.com.br").unwrap(),
            &[Application::Ecommerce]
        )
        .await,
        Err(AdministerUserError::NotFound)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusing_counter_answers_at_once_without_waiting_on_its_row_lock() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let key = ThrottleKey::pair("ana@exemplo.com.br", Some("203.0.113.9"));
    let counter = [(key, tier(2))];
    let now = Utc::now();
    for _ in 0..2 {
        assert_eq!(repo.admit(&counter, now).await.unwrap(), Admission::Admitted);
    }
    // Another session holds the counter's row lock (as a hammering of admissions would).
    let mut holder = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query("BEGIN").execute(&mut holder).await.unwrap();
    diesel::sql_query("SELECT 1 FROM signin_throttle WHERE scope = 'signin_pair' FOR UPDATE")
        .execute(&mut holder)
        .await
        .unwrap();
    let refused = tokio::time::timeout(std::time::Duration::from_secs(2), repo.admit(&counter, now))
        .await
        .expect("a refusal never waits for the row lock")
        .unwrap();
    assert!(matches!(refused, Admission::Refused { .. }), "{refused:?}");
    diesel::sql_query("ROLLBACK").execute(&mut holder).await.unwrap();
}
