//! Migration 27 adds the rate limits' counters: rows written before it are untouched, the
//! counters keep their bounds, and going down drops only the counters (a minute's worth of
//! counts, nothing to keep), with the rest of the rows as they were.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::migrations;
use adapters_postgres::testing::{ONE_SHOP_SALE, TestDatabase, line, revert_through};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

const PROPOSALS: &str = "SELECT string_agg(identificador, ',') AS line FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn the_counters_come_and_go_leaving_every_other_row_as_it_was() {
    let db = TestDatabase::new().await;
    assert_eq!(
        revert_through(&db.url, "20261126000027").await.last().unwrap(),
        "20261126000027"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();

    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1");
    conn.batch_execute(
        "INSERT INTO rate_limit_counters VALUES ('u:1', 1764150000, 3), ('a:203.0.113.5', 1764150000, 1)",
    )
    .await
    .unwrap();
    let refused = conn
        .batch_execute("INSERT INTO rate_limit_counters VALUES ('u:2', 1764150000, -1)")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("rate_limit_counters_hits"), "{refused}");

    assert_eq!(
        revert_through(&db.url, "20261126000027").await.last().unwrap(),
        "20261126000027"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = 'rate_limit_counters'"
        )
        .await,
        "0"
    );
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1");

    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM rate_limit_counters").await,
        "0"
    );
}
