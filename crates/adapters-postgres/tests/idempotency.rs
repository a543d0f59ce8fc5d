//! `Idempotency-Key` claims on real PostgreSQL: one claim of a key wins among concurrent ones, an
//! answer is replayed to the same request only, a released or abandoned claim can be taken again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::PgIdempotency;
use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PoolSettings, build_pool};
use chrono::{Duration, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::idempotency::{Claim, Fingerprint, IdempotencyKey, IdempotencyStore, StoredAnswer};

async fn store() -> (TestDatabase, PgIdempotency) {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query(
        "INSERT INTO users (id, email, password_hash) VALUES (1, 'ana@exemplo.com.br', 'x'), (2, 'bia@exemplo.com.br', 'x')",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    (db, PgIdempotency::new(pool))
}

fn key(text: &str) -> IdempotencyKey {
    IdempotencyKey::parse(text.as_bytes()).unwrap()
}

/// A claim as the use case makes it: keys live a day, running claims two minutes.
async fn claim(store: &PgIdempotency, user: i64, k: &str, body: &str) -> Claim {
    let now = Utc::now();
    store
        .claim(
            user,
            &key(k),
            &Fingerprint::of("POST", "/proposal/create", body.as_bytes()),
            now - Duration::hours(24),
            now - Duration::minutes(2),
        )
        .await
        .unwrap()
}

fn answer() -> StoredAnswer {
    StoredAnswer {
        status: 201,
        content_type: Some("application/json".into()),
        body: b"{\"status\":\"success\"}".to_vec(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_completed_request_is_replayed_to_the_same_request_only() {
    let (_db, store) = store().await;
    assert_eq!(claim(&store, 1, "k1", "a").await, Claim::Fresh);
    assert_eq!(claim(&store, 1, "k1", "a").await, Claim::InFlight, "still running");
    store.complete(1, &key("k1"), &answer()).await.unwrap();
    assert_eq!(claim(&store, 1, "k1", "a").await, Claim::Replay(answer()));
    assert_eq!(claim(&store, 1, "k1", "b").await, Claim::OtherRequest);
    assert_eq!(
        claim(&store, 2, "k1", "b").await,
        Claim::Fresh,
        "another user's key is another key"
    );
    // A completed answer is never released.
    store.release(1, &key("k1")).await.unwrap();
    assert_eq!(claim(&store, 1, "k1", "a").await, Claim::Replay(answer()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_released_an_abandoned_or_an_expired_key_can_be_claimed_again() {
    let (db, store) = store().await;
    assert_eq!(claim(&store, 1, "solta", "a").await, Claim::Fresh);
    store.release(1, &key("solta")).await.unwrap();
    assert_eq!(
        claim(&store, 1, "solta", "b").await,
        Claim::Fresh,
        "released: even another body"
    );

    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(claim(&store, 1, "abandonada", "a").await, Claim::Fresh);
    diesel::sql_query("UPDATE idempotency_keys SET claimed_at = now() - interval '5 minutes' WHERE key = 'abandonada'")
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        claim(&store, 1, "abandonada", "a").await,
        Claim::Fresh,
        "its request died"
    );

    assert_eq!(claim(&store, 1, "velha", "a").await, Claim::Fresh);
    store.complete(1, &key("velha"), &answer()).await.unwrap();
    diesel::sql_query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'velha'")
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        claim(&store, 1, "velha", "b").await,
        Claim::Fresh,
        "a day later the key is new"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn among_concurrent_first_uses_of_a_key_exactly_one_runs() {
    let (_db, store) = store().await;
    for round in 0..10 {
        let k = format!("corrida-{round}");
        let claims = futures_util::future::join_all((0..8).map(|_| claim(&store, 1, &k, "a"))).await;
        assert_eq!(claims.iter().filter(|c| **c == Claim::Fresh).count(), 1, "{claims:?}");
        assert!(claims.iter().all(|c| *c == Claim::Fresh || *c == Claim::InFlight));
    }
}
