//! Migration 27 adds the rate limits' counters: rows written before it are untouched, the
//! counters keep their bounds, and going down drops only the counters (a minute's worth of
//! counts, nothing to keep), with the rest of the rows as they were.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const PROPOSALS: &str = "SELECT string_agg(identificador, ',') AS line FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn the_counters_come_and_go_leaving_every_other_row_as_it_was() {
    let migration = MigrationRoundTrip::before("20261126000027").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();

    let mut conn = migration.up().await;
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

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = 'rate_limit_counters'"
        )
        .await,
        "0"
    );
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1");

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM rate_limit_counters").await,
        "0"
    );
}
