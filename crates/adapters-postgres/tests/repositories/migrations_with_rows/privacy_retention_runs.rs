//! Migration 47 records the retention schedule's passes: on a database with a sale, up adds the
//! record (refusing a negative count) and touches no row; down drops the record alone; up again
//! records once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const PASS: &str = "INSERT INTO privacy_retention_runs (referencia, titulares, propostas, respostas_saude) \
     VALUES (now() + interval '181 days', 1, 0, 2)";

const COUNTS: &str = "SELECT (SELECT count(*) FROM customers) || ':' || (SELECT count(*) FROM proposals) \
     || ':' || (SELECT count(*) FROM proposal_customers) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn the_record_of_passes_comes_and_goes_with_the_migration_and_no_sale_moves() {
    let migration = MigrationRoundTrip::before("20261128000047").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let before = line(&mut conn, COUNTS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    conn.batch_execute(PASS).await.unwrap();
    let refused = conn
        .batch_execute(&PASS.replace("1, 0, 2", "-1, 0, 0"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("titulares"), "{refused}");
    assert_eq!(
        line(
            &mut conn,
            "SELECT titulares || ':' || respostas_saude AS line FROM privacy_retention_runs"
        )
        .await,
        "1:2"
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    assert!(
        conn.batch_execute("SELECT 1 FROM privacy_retention_runs")
            .await
            .is_err()
    );

    let mut conn = migration.up().await;
    conn.batch_execute(PASS).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM privacy_retention_runs").await,
        "1"
    );
    assert_eq!(line(&mut conn, COUNTS).await, before);
}
