//! Repository tests of the webhook outbox: claiming under limits and concurrency, leases and their
//! fencing, the consequences of an attempt, and retention.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgHooks, PgPool, PoolSettings, SealingKeys, build_pool};
use chrono::Utc;
use diesel_async::RunQueryDsl;
use domain::hooks::ports::{DeliveryQueue, HookStore};
use domain::hooks::{
    AttemptRecord, ClaimLimits, DeliveryPage, HookOwner, NewSubscription, RecordStep, Retried, SigningSecret,
    Subscription, SubscriptionPage,
};
use domain::values::{DeliveryState, EventKind, HookStatus};
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

/// An active subscription of the owner's to a public endpoint, signed with a fixed secret.
fn new_subscription(owner: HookOwner) -> NewSubscription {
    NewSubscription {
        uuid: Uuid::new_v4(),
        contract_version: "2026-11-29".into(),
        owner,
        created_by: "teste@demo.com.br".into(),
        endpoint: "https://example.com/hooks".into(),
        events: vec![EventKind::StatusChange],
        status: HookStatus::Active,
        secret: SigningSecret::from_key([1; 32]),
        at: Utc::now(),
    }
}

async fn subscription(hooks: &PgHooks) -> Subscription {
    hooks
        .create(&new_subscription(HookOwner::BackOffice), 1_000)
        .await
        .unwrap()
        .unwrap()
}

/// Queues `n` status-change deliveries for the subscription, due now (the test route keeps one
/// test event per subscription, so backlogs are made of these).
async fn queue(pool: &PgPool, subscription_id: i64, n: usize) {
    exec(
        pool,
        &format!(
            "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at)
             SELECT {subscription_id}, 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'ALTERAÇÃO_STATUS', '{{}}', now()
             FROM generate_series(1, {n})"
        ),
    )
    .await;
}

/// Claim limits with no owner limit in the way.
fn limits(batch: usize, per_subscription: usize) -> ClaimLimits {
    ClaimLimits {
        batch,
        per_subscription,
        per_owner: 1_000,
    }
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
    let (_db, pool, hooks) = store().await;
    let a = subscription(&hooks).await;
    let b = subscription(&hooks).await;
    queue(&pool, a.id, 5).await;
    hooks.enqueue_test(b.id, "{}").await.unwrap();

    let first = hooks.claim(limits(10, 2), LEASE).await.unwrap();
    assert_eq!(first.len(), 3, "two of a, one of b");
    assert!(
        first
            .iter()
            .all(|d| d.attempt == 1 && d.secrets == [SigningSecret::from_key([1; 32])])
    );
    assert!(
        hooks.claim(limits(10, 2), LEASE).await.unwrap().is_empty(),
        "a is at its limit"
    );

    hooks
        .record(&record(first[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    let next = hooks.claim(limits(10, 2), LEASE).await.unwrap();
    assert_eq!(next.len(), 1, "one slot of a freed");
}

#[tokio::test]
async fn concurrent_claimers_never_take_the_same_delivery() {
    let (_db, pool, hooks) = store().await;
    for _ in 0..5 {
        let s = subscription(&hooks).await;
        queue(&pool, s.id, 20).await;
    }
    let claimers: Vec<_> = (0..8)
        .map(|_| {
            let hooks = hooks.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let batch = hooks.claim(limits(7, 100), LEASE).await.unwrap();
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
    let first = hooks.claim(limits(10, 16), Duration::ZERO).await.unwrap();
    assert_eq!(first.len(), 1);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let second = hooks.claim(limits(10, 16), LEASE).await.unwrap();
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
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    hooks.enqueue_test(s.id, "{}").await.unwrap();
    let claimed = hooks.claim(limits(10, 16), LEASE).await.unwrap();
    // An hour ahead: a loaded machine never reaches it between the record and the next claim.
    let later = Utc::now() + chrono::Duration::hours(1);
    hooks
        .record(&record(claimed[0].id, 1, RecordStep::RetryAt(later)))
        .await
        .unwrap();
    assert!(hooks.claim(limits(10, 16), LEASE).await.unwrap().is_empty());
    // Its time comes (the clock moved by the row's own time, as an hour passing would).
    exec(
        &pool,
        "UPDATE hook_deliveries SET next_attempt_at = now() - interval '1 second' WHERE state = 'PENDENTE'",
    )
    .await;
    assert_eq!(hooks.claim(limits(10, 16), LEASE).await.unwrap()[0].attempt, 2);
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
    for claimed in hooks.claim(limits(10, 16), LEASE).await.unwrap() {
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
    assert!(hooks.claim(limits(10, 16), LEASE).await.unwrap().is_empty());
}

#[tokio::test]
async fn deliveries_past_retention_are_purged_with_their_attempts() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    queue(&pool, s.id, 3).await;
    for claimed in hooks.claim(limits(10, 16), LEASE).await.unwrap() {
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

async fn partner_subscription(hooks: &PgHooks, pool: &PgPool, partner_id: i64) -> Subscription {
    exec(
        pool,
        &format!(
            "INSERT INTO partners (id, cpf_cnpj, social_reason, alterado_por)
             VALUES ({partner_id}, '{partner_id:0>14}', 'Parceiro {partner_id}', 'teste') ON CONFLICT DO NOTHING"
        ),
    )
    .await;
    hooks
        .create(&new_subscription(HookOwner::Partner { partner_id }), 1_000)
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn an_owner_holds_at_most_its_share_of_the_slots_and_owners_are_served_in_turn() {
    let (_db, pool, hooks) = store().await;
    // Partner 1: sixteen subscriptions with a backlog each; partner 2: one delivery.
    let mut crowded = Vec::new();
    for _ in 0..16 {
        let s = partner_subscription(&hooks, &pool, 1).await;
        queue(&pool, s.id, 4).await;
        crowded.push(s.id);
    }
    let other = partner_subscription(&hooks, &pool, 2).await;
    queue(&pool, other.id, 1).await;

    let owner_limited = ClaimLimits {
        batch: 20,
        per_subscription: 16,
        per_owner: 4,
    };
    let first = hooks.claim(owner_limited, LEASE).await.unwrap();
    assert_eq!(first.len(), 5, "four of partner 1, the one of partner 2");
    let second = hooks.claim(owner_limited, LEASE).await.unwrap();
    assert!(second.is_empty(), "partner 1 holds its four slots: {second:?}");
    assert_eq!(
        count(
            &pool,
            &format!(
                "SELECT count(*) AS n FROM hook_deliveries WHERE subscription_id = {} AND leased_until > now()",
                other.id
            )
        )
        .await,
        1,
        "partner 2's delivery was in the first claim"
    );

    // A batch of two still reaches partner 2 first among its turn: owners alternate.
    let (_db2, pool2, hooks2) = store().await;
    for _ in 0..3 {
        let s = partner_subscription(&hooks2, &pool2, 1).await;
        queue(&pool2, s.id, 4).await;
    }
    let late = partner_subscription(&hooks2, &pool2, 2).await;
    queue(&pool2, late.id, 1).await;
    let two = hooks2
        .claim(
            ClaimLimits {
                batch: 2,
                per_subscription: 16,
                per_owner: 100,
            },
            LEASE,
        )
        .await
        .unwrap();
    assert_eq!(two.len(), 2);
    assert_eq!(
        count(
            &pool2,
            &format!(
                "SELECT count(*) AS n FROM hook_deliveries WHERE subscription_id = {} AND leased_until > now()",
                late.id
            )
        )
        .await,
        1,
        "the second owner gets the second slot, not the first owner's second subscription"
    );
}

#[tokio::test]
async fn an_owner_keeps_at_most_its_limit_of_subscriptions_even_when_creating_concurrently() {
    let (_db, pool, hooks) = store().await;
    let creates: Vec<_> = (0..10)
        .map(|_| {
            let hooks = hooks.clone();
            tokio::spawn(async move { hooks.create(&new_subscription(HookOwner::BackOffice), 3).await.unwrap() })
        })
        .collect();
    let mut created = 0;
    for create in creates {
        created += usize::from(create.await.unwrap().is_some());
    }
    assert_eq!(created, 3);
    assert_eq!(count(&pool, "SELECT count(*) AS n FROM hook_subscriptions").await, 3);
    // Another owner is counted apart.
    partner_subscription(&hooks, &pool, 1).await;
}

#[tokio::test]
async fn a_new_test_replaces_one_waiting_and_is_refused_while_one_is_in_flight() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    let first = hooks.enqueue_test(s.id, "{}").await.unwrap().unwrap();
    let second = hooks.enqueue_test(s.id, "{}").await.unwrap().unwrap();
    assert_ne!(first.id, second.id);
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'PENDENTE'"
        )
        .await,
        1,
        "the waiting test gave way"
    );
    let claimed = hooks.claim(limits(10, 16), LEASE).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(hooks.enqueue_test(s.id, "{}").await.unwrap().is_none(), "one in flight");
    hooks
        .record(&record(claimed[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    assert!(hooks.enqueue_test(s.id, "{}").await.unwrap().is_some());
}

#[tokio::test]
async fn a_retried_test_takes_the_place_of_one_waiting_and_is_refused_while_one_is_in_flight() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    let first = hooks.enqueue_test(s.id, "{}").await.unwrap().unwrap();
    let claimed = hooks.claim(limits(10, 16), LEASE).await.unwrap();
    hooks
        .record(&record(claimed[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    let waiting = hooks.enqueue_test(s.id, "{}").await.unwrap().unwrap();
    // The delivered test, retried, is due and the waiting one gives way: one test waits.
    let Retried::Due(retried) = hooks.retry(s.id, first.id, Utc::now()).await.unwrap() else {
        panic!("a test retried with none in flight is due");
    };
    assert_eq!((retried.id, retried.state), (first.id, DeliveryState::Pending));
    assert_eq!(
        count(
            &pool,
            &format!(
                "SELECT count(*) AS n FROM hook_deliveries WHERE id = {} AND state = 'CANCELADA'",
                waiting.id
            )
        )
        .await,
        1
    );
    // Sent now: neither the test in flight nor another test can be made due meanwhile.
    let claimed = hooks.claim(limits(10, 16), LEASE).await.unwrap();
    assert_eq!(claimed[0].id, first.id);
    assert_eq!(
        hooks.retry(s.id, waiting.id, Utc::now()).await.unwrap(),
        Retried::TestInFlight
    );
    assert_eq!(
        hooks.retry(s.id, first.id, Utc::now()).await.unwrap(),
        Retried::TestInFlight
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'PENDENTE'"
        )
        .await,
        1,
        "only the test in flight"
    );
    // A status change is retried whatever the tests do; an unknown id is not found.
    queue(&pool, s.id, 1).await;
    let change = count(
        &pool,
        "SELECT max(id) AS n FROM hook_deliveries WHERE event_type = 'ALTERAÇÃO_STATUS'",
    )
    .await;
    assert!(matches!(
        hooks.retry(s.id, change, Utc::now()).await.unwrap(),
        Retried::Due(_)
    ));
    assert_eq!(
        hooks.retry(s.id, change + 100, Utc::now()).await.unwrap(),
        Retried::NotFound
    );
    assert_eq!(
        hooks.retry(s.id + 100, change, Utc::now()).await.unwrap(),
        Retried::NotFound
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_tests_and_retries_leave_one_test_waiting() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    let earlier = hooks.enqueue_test(s.id, "{}").await.unwrap().unwrap();
    let claimed = hooks.claim(limits(10, 16), LEASE).await.unwrap();
    hooks
        .record(&record(claimed[0].id, 1, RecordStep::Delivered))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for i in 0..12 {
        let hooks = hooks.clone();
        tasks.push(tokio::spawn(async move {
            if i % 3 == 0 {
                assert!(matches!(
                    hooks.retry(s.id, earlier.id, Utc::now()).await.unwrap(),
                    Retried::Due(_)
                ));
            } else {
                assert!(hooks.enqueue_test(s.id, "{}").await.unwrap().is_some());
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE event_type = 'TESTE' AND state = 'PENDENTE'"
        )
        .await,
        1
    );
}

#[tokio::test]
async fn the_one_waiting_test_migration_keeps_the_newest_of_existing_tests_and_goes_down_and_up() {
    let (db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    // Down to just before the webhook fairness migration (the later ones first).
    loop {
        let reverted = adapters_postgres::migrations::revert_last(&db.url).await.unwrap();
        if reverted == "20261125000018" {
            break;
        }
        assert!(reverted.as_str() > "20261125000018", "{reverted}");
    }
    for _ in 0..3 {
        exec(
            &pool,
            &format!(
                "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at)
                 VALUES ({}, 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'TESTE', '{{}}', now())",
                s.id
            ),
        )
        .await;
    }
    queue(&pool, s.id, 2).await;
    adapters_postgres::migrations::run_pending(&db.url).await.unwrap();
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE event_type = 'TESTE' AND state = 'PENDENTE'
               AND id = (SELECT max(id) FROM hook_deliveries WHERE event_type = 'TESTE')"
        )
        .await,
        1,
        "the newest test waits"
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'CANCELADA'"
        )
        .await,
        2
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) AS n FROM hook_deliveries WHERE event_type = 'ALTERAÇÃO_STATUS' AND state = 'PENDENTE'"
        )
        .await,
        2,
        "status changes are untouched"
    );
    // Down through the fairness migration itself (the later ones first) and up again.
    adapters_postgres::testing::revert_through(&db.url, "20261125000018").await;
    adapters_postgres::migrations::run_pending(&db.url).await.unwrap();
    assert!(hooks.enqueue_test(s.id, "{}").await.unwrap().is_some());
}

/// The first ten deliveries of the log.
const TEN: DeliveryPage = DeliveryPage {
    limit: 10,
    before: None,
};

#[tokio::test]
async fn a_stored_delivery_state_outside_its_enum_is_an_internal_error_naming_where_it_is() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    queue(&pool, s.id, 1).await;
    assert_eq!(
        hooks.deliveries(s.id, TEN).await.unwrap().deliveries[0].state,
        DeliveryState::Pending
    );
    exec(
        &pool,
        "ALTER TABLE hook_deliveries DROP CONSTRAINT hook_deliveries_state_check",
    )
    .await;
    exec(&pool, "UPDATE hook_deliveries SET state = 'PERDIDA'").await;
    assert_eq!(
        hooks.deliveries(s.id, TEN).await.map(|log| log.deliveries),
        Err(domain::store::StoreError::Unexpected(
            "valor desconhecido em hook_deliveries.state: \"PERDIDA\"".into()
        )),
        "never read as waiting"
    );
    // Nor claimed: the claim binds the state it takes.
    assert!(
        hooks
            .claim(limits(10, 10), Duration::from_secs(30))
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_stored_subscription_status_or_event_outside_its_enum_is_an_internal_error_naming_where_it_is() {
    let (_db, pool, hooks) = store().await;
    let s = subscription(&hooks).await;
    exec(
        &pool,
        "ALTER TABLE hook_subscriptions DROP CONSTRAINT hook_subscriptions_status_check, \
         DROP CONSTRAINT hook_subscriptions_events_check",
    )
    .await;
    exec(&pool, "UPDATE hook_subscriptions SET status = 'PAUSADO'").await;
    assert_eq!(
        hooks.find(HookOwner::BackOffice, s.uuid).await,
        Err(domain::store::StoreError::Unexpected(
            "valor desconhecido em hook_subscriptions.status: \"PAUSADO\"".into()
        )),
        "never read as active or inactive"
    );
    exec(
        &pool,
        "UPDATE hook_subscriptions SET status = 'ATIVO', events = ARRAY['ALTERAÇÃO_STATUS', 'PAGAMENTO']",
    )
    .await;
    assert_eq!(
        hooks
            .list(HookOwner::BackOffice, SubscriptionPage { limit: 10, after: None })
            .await,
        Err(domain::store::StoreError::Unexpected(
            "valor desconhecido em hook_subscriptions.events: \"PAGAMENTO\"".into()
        )),
        "an unknown event is not dropped from the list"
    );
}
