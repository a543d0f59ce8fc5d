//! Which server a read goes to: a replica only when it is usable and has replayed the caller's
//! write, the primary otherwise, and the primary again when a read on a replica fails. The
//! replicas here are addresses nothing listens on, marked usable by hand, so that a read that
//! reached one shows as a failure the primary answered (the real standby is scripts/replicas.sh).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{Lsn, PoolSettings, ReadAfter, ReadPools, ReplicaPolicy, build_pool, reading_after};
use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use domain::store::StoreError;
use std::time::Duration;

#[derive(QueryableByName)]
struct Named {
    #[diesel(sql_type = Text)]
    name: String,
}

/// A replica's address where nothing answers.
fn nowhere() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("postgres://postgres@127.0.0.1:{port}/nothing")
}

fn pool(url: &str) -> adapters_postgres::PgPool {
    build_pool(&PoolSettings {
        connect_timeout: Duration::from_secs(2),
        ..PoolSettings::new(url)
    })
    .unwrap()
}

async fn database_name(reads: &ReadPools) -> Result<String, StoreError> {
    reads
        .read(|mut conn| async move {
            let found: Named = diesel::sql_query("SELECT current_database()::text AS name")
                .get_result(&mut conn)
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            Ok(found.name)
        })
        .await
}

#[tokio::test]
async fn a_read_that_fails_on_a_replica_is_read_again_on_the_primary_and_the_replica_is_left() {
    let db = TestDatabase::new().await;
    let reads = ReadPools::unwatched(pool(&db.url), vec![pool(&nowhere())]);
    reads.assume_replayed(Lsn(u64::MAX));
    assert_eq!(reads.usable_replicas(), 1);
    assert_eq!(database_name(&reads).await.unwrap(), db.name);
    assert_eq!(
        reads.usable_replicas(),
        0,
        "the replica that failed is not used again until a poll"
    );
}

#[tokio::test]
async fn a_replica_that_has_not_replayed_the_callers_write_is_not_asked() {
    let db = TestDatabase::new().await;
    let reads = ReadPools::unwatched(pool(&db.url), vec![pool(&nowhere())]);
    reads.assume_replayed(Lsn(100));
    let behind = reading_after(Some(ReadAfter::Position(Lsn(101))), database_name(&reads)).await;
    assert_eq!(behind.unwrap(), db.name);
    assert_eq!(
        reads.usable_replicas(),
        1,
        "the primary answered without trying the replica"
    );
    let reached = reading_after(Some(ReadAfter::Position(Lsn(100))), database_name(&reads)).await;
    assert_eq!(reached.unwrap(), db.name);
    assert_eq!(reads.usable_replicas(), 0, "the replica that had replayed it was tried");
}

#[tokio::test]
async fn a_read_as_of_now_needs_a_replica_at_the_primarys_position() {
    let db = TestDatabase::new().await;
    let reads = ReadPools::unwatched(pool(&db.url), vec![pool(&nowhere())]);
    reads.assume_replayed(Lsn(0));
    let now = reading_after(Some(ReadAfter::Now), database_name(&reads)).await;
    assert_eq!(now.unwrap(), db.name);
    assert_eq!(reads.usable_replicas(), 1, "a replica at 0/0 is behind any primary");
    // A write's position is the primary's, and grows with the writes.
    let first = reads.write_position().await.unwrap().unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute("CREATE TABLE grows (n int); INSERT INTO grows VALUES (1)")
        .await
        .unwrap();
    let second = reads.write_position().await.unwrap().unwrap();
    assert!(second > first, "{second} after {first}");
}

#[tokio::test]
async fn a_server_that_is_not_in_recovery_is_never_read_from() {
    let db = TestDatabase::new().await;
    // The primary itself given as a replica: its polls find it is not one.
    let reads = ReadPools::start(
        pool(&db.url),
        vec![pool(&db.url)],
        ReplicaPolicy {
            poll_interval: Duration::from_millis(20),
            ..ReplicaPolicy::default()
        },
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(reads.usable_replicas(), 0);
    assert_eq!(database_name(&reads).await.unwrap(), db.name);
}

#[tokio::test]
async fn without_replicas_every_read_is_the_primarys_and_no_position_is_asked() {
    let db = TestDatabase::new().await;
    let reads = ReadPools::primary_only(pool(&db.url));
    assert!(!reads.has_replicas());
    assert_eq!(reads.write_position().await.unwrap(), None);
    assert_eq!(database_name(&reads).await.unwrap(), db.name);
}

/// Reads a table `marks(name)` that only the primary fills: `Some(name)` when the row is there.
async fn mark(reads: &ReadPools, name: &'static str) -> Result<Option<String>, StoreError> {
    reads
        .read_existing(|mut conn| async move {
            let found: Vec<Named> = diesel::sql_query("SELECT name FROM marks WHERE name = $1")
                .bind::<Text, _>(name)
                .load(&mut conn)
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            Ok(found.into_iter().next().map(|n| n.name))
        })
        .await
}

#[tokio::test]
async fn a_row_a_replica_has_not_replayed_is_read_again_on_the_primary_by_key() {
    // The "replica" is another database with the table but without the row: a standby behind.
    let primary = TestDatabase::new().await;
    let behind = TestDatabase::new().await;
    for (db, rows) in [(&primary, "INSERT INTO marks VALUES ('criada-agora');"), (&behind, "")] {
        let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
        conn.batch_execute(&format!("CREATE TABLE marks (name text); {rows}"))
            .await
            .unwrap();
    }
    let reads = ReadPools::unwatched(pool(&primary.url), vec![pool(&behind.url)]);
    reads.assume_replayed(Lsn(u64::MAX));
    assert_eq!(
        mark(&reads, "criada-agora").await.unwrap().as_deref(),
        Some("criada-agora")
    );
    // Nothing is found anywhere: not found, after asking both.
    assert_eq!(mark(&reads, "inexistente").await.unwrap(), None);
    assert_eq!(reads.usable_replicas(), 1, "a replica behind is still used");
    // A plain read takes the replica's answer as it is (the list may lag).
    let listed = reads
        .read(|mut conn| async move {
            let found: Vec<Named> = diesel::sql_query("SELECT name FROM marks")
                .load(&mut conn)
                .await
                .map_err(|e| StoreError::Unavailable(e.to_string()))?;
            Ok(found.len())
        })
        .await
        .unwrap();
    assert_eq!(listed, 0);
}
