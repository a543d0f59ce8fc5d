//! Repository tests against real PostgreSQL, each on a database of its own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgAccounts, PoolSettings, build_pool, migrations, seed};
use chrono::{Duration, Utc};
use domain::auth::model::{ConsumeOutcome, RefreshTokenRecord, ThrottleKey};
use domain::auth::password::PasswordHash;
use domain::auth::ports::{RefreshTokenStore, SignInThrottle, UserRepository};
use domain::users::{CreateUserError, NewUser, PartnerRef, UserWriter};
use domain::values::{Application, Cnpj, Email};
use uuid::Uuid;

async fn accounts(db: &TestDatabase) -> PgAccounts {
    PgAccounts::new(build_pool(&PoolSettings::new(&db.url)).unwrap())
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

#[tokio::test(flavor = "multi_thread")]
async fn two_concurrent_consumptions_of_one_refresh_token_give_one_success_and_revoke_the_family() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let user_id = repo
        .create(&new_user(
            "ana@exemplo.com.br",
            vec![Application::Partner],
            Some("11222333000181"),
        ))
        .await
        .unwrap();
    let family_id = Uuid::new_v4();
    let first = RefreshTokenRecord {
        jti: Uuid::new_v4(),
        family_id,
        user_id,
        application: Application::Partner,
        expires_at: Utc::now() + Duration::hours(2),
    };
    let sibling = RefreshTokenRecord {
        jti: Uuid::new_v4(),
        ..first
    };
    repo.record(&first).await.unwrap();
    repo.record(&sibling).await.unwrap();

    let now = Utc::now();
    let (a, b) = tokio::join!(repo.consume(first.jti, now), repo.consume(first.jti, now));
    let outcomes = [a.unwrap(), b.unwrap()];
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| matches!(o, ConsumeOutcome::Consumed { family_id: f } if *f == family_id))
            .count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(outcomes.iter().filter(|o| **o == ConsumeOutcome::Reused).count(), 1);
    // The reuse revoked the whole family: the sibling no longer works.
    assert_eq!(repo.consume(sibling.jti, now).await.unwrap(), ConsumeOutcome::Reused);
    assert_eq!(
        repo.consume(Uuid::new_v4(), now).await.unwrap(),
        ConsumeOutcome::Unknown
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_refresh_token_is_not_consumed() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let user_id = repo
        .create(&new_user("ana@exemplo.com.br", vec![Application::Ecommerce], None))
        .await
        .unwrap();
    let token = RefreshTokenRecord {
        jti: Uuid::new_v4(),
        family_id: Uuid::new_v4(),
        user_id,
        application: Application::Ecommerce,
        expires_at: Utc::now() - Duration::seconds(1),
    };
    repo.record(&token).await.unwrap();
    assert_eq!(
        repo.consume(token.jti, Utc::now()).await.unwrap(),
        ConsumeOutcome::Unknown
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn throttle_counts_within_the_window_blocks_and_resets() {
    let db = TestDatabase::new().await;
    let repo = accounts(&db).await;
    let key = ThrottleKey::Email("ana@exemplo.com.br".into());
    let other = ThrottleKey::ClientAddress("203.0.113.9".into());
    let t0 = Utc::now();
    for expected in 1..=3 {
        assert_eq!(repo.register_failure(&key, t0, 900).await.unwrap(), expected);
    }
    // Past the window, counting starts again.
    assert_eq!(
        repo.register_failure(&key, t0 + Duration::seconds(901), 900)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        repo.blocked_until(&[key.clone(), other.clone()], t0).await.unwrap(),
        None
    );
    repo.register_failure(&other, t0, 900).await.unwrap();
    repo.block(&other, t0 + Duration::seconds(30)).await.unwrap();
    let blocked = repo.blocked_until(&[key.clone(), other.clone()], t0).await.unwrap();
    assert_eq!(
        blocked.map(|b| b.timestamp()),
        Some((t0 + Duration::seconds(30)).timestamp())
    );
    assert_eq!(
        repo.blocked_until(std::slice::from_ref(&other), t0 + Duration::seconds(31))
            .await
            .unwrap(),
        None
    );
    repo.reset(&key).await.unwrap();
    assert_eq!(repo.register_failure(&key, t0, 900).await.unwrap(), 1);
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
    let session = RefreshTokenRecord {
        jti: Uuid::new_v4(),
        family_id: Uuid::new_v4(),
        user_id,
        application: Application::Ecommerce,
        expires_at: Utc::now() + Duration::hours(2),
    };
    repo.record(&session).await.unwrap();
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
    assert_eq!(
        repo.consume(session.jti, Utc::now()).await.unwrap(),
        ConsumeOutcome::Reused,
        "the session was revoked"
    );
    assert_eq!(repo.find_by_id(user_id).await.unwrap().unwrap().password_hash, new_hash);
    assert_eq!(
        recovery.issued_since(user_id, now - Duration::hours(1)).await.unwrap(),
        2
    );
}
