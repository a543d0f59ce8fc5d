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
    (db, PgIdempotency::new(pool, sealer()))
}

fn sealer() -> std::sync::Arc<adapters_postgres::sealing::SecretSealer> {
    adapters_postgres::SealingKeys {
        current: [6; 32],
        previous: vec![],
    }
    .sealer()
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
    store.complete(1, &key("k1"), &answer(), &[]).await.unwrap();
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
    store.complete(1, &key("velha"), &answer(), &[]).await.unwrap();
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

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

async fn count(url: &str, sql: &str) -> i64 {
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    diesel::sql_query(sql).get_result::<Count>(&mut conn).await.unwrap().n
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_is_kept_sealed_and_opens_after_a_key_rotation_but_not_under_another_user() {
    let (db, store) = store().await;
    let secret = b"{\"secret\":\"whsec_segredo\",\"cpf\":\"52998224725\"}".to_vec();
    let answer = StoredAnswer {
        body: secret.clone(),
        ..answer()
    };
    assert_eq!(claim(&store, 1, "k", "a").await, Claim::Fresh);
    store.complete(1, &key("k"), &answer, &[]).await.unwrap();
    assert_eq!(
        count(
            &db.url,
            "SELECT count(*) AS n FROM idempotency_keys WHERE body IS NULL AND answer_sealed IS NOT NULL
               AND position('whsec_'::bytea IN answer_sealed) = 0 AND position('52998224725'::bytea IN answer_sealed) = 0"
        )
        .await,
        1,
        "sealed, nothing in clear"
    );
    // The fingerprint is a keyed digest, not the plain SHA-256 of the request.
    let plain = Fingerprint::of("POST", "/proposal/create", b"a").0;
    assert_eq!(
        count(
            &db.url,
            &format!("SELECT count(*) AS n FROM idempotency_keys WHERE fingerprint = '{plain}'")
        )
        .await,
        0
    );
    // Rotated: the old key is a previous one (kept for the 24 hours answers live: the
    // fingerprints are digests under it); the answer still replays, and reseal moves it.
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let rotated = PgIdempotency::new(
        pool.clone(),
        adapters_postgres::SealingKeys {
            current: [7; 32],
            previous: vec![[6; 32]],
        }
        .sealer(),
    );
    assert_eq!(claim(&rotated, 1, "k", "a").await, Claim::Replay(answer.clone()));
    assert_eq!(rotated.reseal_all().await.unwrap(), (1, 0));
    assert_eq!(rotated.reseal_all().await.unwrap(), (0, 1));
    // Moved to another user's row, the sealed answer does not open: not replayed, not run again.
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query("UPDATE idempotency_keys SET user_id = 2")
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(claim(&rotated, 2, "k", "a").await, Claim::Forgotten);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sealing_migration_keeps_clear_answers_replayable_and_goes_down_and_up_with_rows() {
    let (db, store) = store().await;
    assert_eq!(claim(&store, 1, "nova", "a").await, Claim::Fresh);
    store.complete(1, &key("nova"), &answer(), &[]).await.unwrap();
    // Down to just before the sealing migration (the later ones first).
    loop {
        let reverted = adapters_postgres::migrations::revert_last(&db.url).await.unwrap();
        if reverted == "20261125000019" {
            break;
        }
        assert!(reverted.as_str() > "20261125000019", "{reverted}");
    }
    // Down: the sealed answer became a kept 409, never run again.
    assert_eq!(
        count(
            &db.url,
            "SELECT count(*) AS n FROM idempotency_keys WHERE key = 'nova' AND status = 409
               AND position('idempotencia_esquecida'::bytea IN body) > 0"
        )
        .await,
        1
    );
    // A row as the earlier service wrote it: the answer in clear, a plain fingerprint.
    let plain = Fingerprint::of("POST", "/proposal/create", b"a").0;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query(format!(
        "INSERT INTO idempotency_keys (user_id, key, fingerprint, completed_at, status, content_type, body)
         VALUES (1, 'antiga', '{plain}', now(), 201, 'application/json', convert_to('{{\"cpf\":\"529.982.247-25\"}}', 'UTF8'))"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    adapters_postgres::migrations::run_pending(&db.url).await.unwrap();
    let Claim::Replay(kept) = claim(&store, 1, "antiga", "a").await else {
        panic!("the clear answer from before is replayed");
    };
    assert_eq!(kept.body, b"{\"cpf\":\"529.982.247-25\"}");
    let Claim::Replay(refusal) = claim(&store, 1, "nova", "a").await else {
        panic!("the kept 409 replays");
    };
    assert_eq!(refusal.status, 409);
}
