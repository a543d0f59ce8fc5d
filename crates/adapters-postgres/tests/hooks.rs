//! Repository tests of the webhook outbox: claiming under limits and concurrency, leases and their
//! fencing, the consequences of an attempt, and retention.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgHooks, PgPool, PoolSettings, SealingKeys, build_pool};
use chrono::Utc;
use diesel_async::RunQueryDsl;
use domain::hooks::ports::{DeliveryQueue, HookStore};
use domain::hooks::{AttemptRecord, HookOwner, NewSubscription, RecordStep, SigningSecret, Subscription};
use domain::values::{EventKind, HookStatus};
use std::collections::HashSet;
use std::time::Duration;
use uuid::Uuid;

const KEY: [u8; 32] = [5; 32];
const LEASE: Duration = Duration::from_secs(60);

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

async fn count(pool: &PgPool, sql: &str) -> i64 {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(sql).get_result::<Count>(&mut conn).await.unwrap().n
}

async fn exec(pool: &PgPool, sql: &str) {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(sql).execute(&mut conn).await.unwrap();
}

async fn store() -> (TestDatabase, PgPool, PgHooks) {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    (
        db,
        pool.clone(),
        PgHooks::new(
            pool,
            &SealingKeys {
                current: KEY,
                previous: vec![],
            },
        ),
    )
}

async fn subscription(hooks: &PgHooks) -> Subscription {
    hooks
        .create(&NewSubscription {
            uuid: Uuid::new_v4(),
            owner: HookOwner::BackOffice,
            created_by: "bo@demo.com.br".into(),
            endpoint: "https://example.com/hooks".into(),
            events: vec![EventKind::StatusChange],
            status: HookStatus::Active,
            secret: SigningSecret::from_key([1; 32]),
            at: Utc::now(),
        })
        .await
        .unwrap()
}

fn record(delivery_id: i64, attempt: i32, step: RecordStep) -> AttemptRecord {
    AttemptRecord {
        delivery_id,
        attempt,
        at: Utc::now(),
        duration: Duration::from_millis(12),
        response_status: Some(200),
        error: None,
        step,
    }
}

#[tokio::test]
async fn claims_keep_each_subscription_within_its_in_flight_limit() {
    let (_db, _pool, hooks) = store().await;
    let a = subscription(&hooks).await;
    let b = subscription(&hooks).await;
    for _ in 0..5 {
        hooks.enqueue_test(a.id, "{}").await.unwrap();
    }
    hooks.enqueue_test(b.id, "{}").await.unwrap();

    let first = hooks.claim(10, LEASE, 2).await.unwrap();
    assert_eq!(first.len(), 3, "two of a, one of b");
    assert!(
        first
            .iter()
            .all(|d| d.attempt == 1 && d.secrets == [SigningSecret::from_key([1; 32])])
    );
    assert!(hooks.claim(10, LEASE, 2).await.unwrap().is_empty(), "a is at its limit");

    hooks
        .record(&record(first[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    let next = hooks.claim(10, LEASE, 2).await.unwrap();
    assert_eq!(next.len(), 1, "one slot of a freed");
}

#[tokio::test]
async fn concurrent_claimers_never_take_the_same_delivery() {
    let (_db, _pool, hooks) = store().await;
    for _ in 0..5 {
        let s = subscription(&hooks).await;
        for _ in 0..20 {
            hooks.enqueue_test(s.id, "{}").await.unwrap();
        }
    }
    let claimers: Vec<_> = (0..8)
        .map(|_| {
            let hooks = hooks.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let batch = hooks.claim(7, LEASE, 100).await.unwrap();
                    if batch.is_empty() {
                        return mine;
                    }
                    mine.extend(batch.into_iter().map(|d| d.id));
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for claimer in claimers {
        all.extend(claimer.await.unwrap());
    }
    let unique: HashSet<i64> = all.iter().copied().collect();
    assert_eq!(all.len(), 100);
    assert_eq!(unique.len(), 100);
}

#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_the_late_record_does_not_move_the_delivery() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    hooks.enqueue_test(s.id, "{}").await.unwrap();
    let first = hooks.claim(10, Duration::ZERO, 16).await.unwrap();
    assert_eq!(first.len(), 1);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let second = hooks.claim(10, LEASE, 16).await.unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!((second[0].id, second[0].attempt), (first[0].id, 2));
    assert_eq!(second[0].message_id, first[0].message_id);

    // The first worker reports late: written as an attempt, but the delivery stays with the second.
    hooks
        .record(&record(first[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'PENDENTE'"
        )
        .await,
        1
    );
    hooks
        .record(&record(second[0].id, 2, RecordStep::Delivered))
        .await
        .unwrap();
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'ENTREGUE'"
        )
        .await,
        1
    );
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM hook_attempts").await, 2);
}

#[tokio::test]
async fn a_retry_waits_for_its_time() {
    let (_db, _pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    hooks.enqueue_test(s.id, "{}").await.unwrap();
    let claimed = hooks.claim(10, LEASE, 16).await.unwrap();
    let later = Utc::now() + chrono::Duration::milliseconds(400);
    hooks
        .record(&record(claimed[0].id, 1, RecordStep::RetryAt(later)))
        .await
        .unwrap();
    assert!(hooks.claim(10, LEASE, 16).await.unwrap().is_empty());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(hooks.claim(10, LEASE, 16).await.unwrap()[0].attempt, 2);
}

#[tokio::test]
async fn exhaustion_disables_only_a_subscription_without_a_recent_success() {
    let (_db, pool, hooks) = store().await;
    let failing = subscription(&hooks).await;
    let healthy = subscription(&hooks).await;
    exec(
        &pool,
        &format!(
            "UPDATE hook_subscriptions SET created_at = now() - interval '6 days' WHERE id = {}",
            failing.id
        ),
    )
    .await;
    exec(
        &pool,
        &format!(
            "UPDATE hook_subscriptions SET created_at = now() - interval '6 days', last_success_at = now() - interval '1 day' WHERE id = {}",
            healthy.id
        ),
    )
    .await;
    for s in [&failing, &healthy] {
        hooks.enqueue_test(s.id, "{}").await.unwrap();
    }
    let since = Utc::now() - chrono::Duration::days(5);
    for claimed in hooks.claim(10, LEASE, 16).await.unwrap() {
        let step = RecordStep::Exhausted {
            disable_if_no_success_since: since,
        };
        hooks.record(&record(claimed.id, claimed.attempt, step)).await.unwrap();
    }
    let now_failing = hooks.find(HookOwner::BackOffice, failing.uuid).await.unwrap().unwrap();
    assert_eq!(now_failing.status, HookStatus::Inactive);
    assert!(now_failing.inactive_reason.is_some());
    let still_healthy = hooks.find(HookOwner::BackOffice, healthy.uuid).await.unwrap().unwrap();
    assert_eq!(still_healthy.status, HookStatus::Active);
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'ESGOTADA'"
        )
        .await,
        2
    );
    // Inactive subscriptions are not claimed from.
    hooks.enqueue_test(failing.id, "{}").await.unwrap();
    assert!(hooks.claim(10, LEASE, 16).await.unwrap().is_empty());
}

#[tokio::test]
async fn deliveries_past_retention_are_purged_with_their_attempts() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    for _ in 0..3 {
        hooks.enqueue_test(s.id, "{}").await.unwrap();
    }
    for claimed in hooks.claim(10, LEASE, 16).await.unwrap() {
        hooks
            .record(&record(claimed.id, 1, RecordStep::Delivered))
            .await
            .unwrap();
    }
    exec(
        &pool,
        "UPDATE hook_deliveries SET created_at = now() - interval '31 days' WHERE id IN (SELECT min(id) FROM hook_deliveries)",
    )
    .await;
    let purged = hooks.purge(Utc::now() - chrono::Duration::days(30)).await.unwrap();
    assert_eq!(purged, 1);
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM hook_deliveries").await, 2);
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM hook_attempts").await, 2);
}
