//! Migration 65 indexes the subscriptions the platform holds, for decision 271's collection pass:
//! up builds it over the rows there are and the pass's read is planned from it; down drops it and
//! keeps every subscription; up again builds it again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::{AsyncPgConnection, SimpleAsyncConnection};

/// The collection pass's read, as `PgPremiumCollection::held_after_acceptance` writes it.
const HELD_READ: &str = "SELECT p.identificador FROM subscriptions s JOIN proposals p ON p.id = s.proposal_id \
     WHERE s.status = 'trialing' AND s.platform_id IS NOT NULL AND p.status = 'APROVADO' ORDER BY s.id LIMIT 500";
const SUBSCRIPTIONS: &str =
    "SELECT string_agg(platform_id || ':' || status, ',' ORDER BY id) AS line FROM subscriptions";

/// Whether the planner reads the held subscriptions through `subscriptions_held` when a scan of
/// the table is made to look dearest (a handful of rows would otherwise be scanned).
async fn planned_from_index(conn: &mut AsyncPgConnection) -> bool {
    conn.batch_execute(&format!(
        "SET enable_seqscan = off;
         CREATE OR REPLACE FUNCTION pg_temp.held_read_plan() RETURNS text LANGUAGE plpgsql AS $$
         DECLARE step text; plan text := '';
         BEGIN
             FOR step IN EXECUTE 'EXPLAIN {}' LOOP plan := plan || step || ' '; END LOOP;
             RETURN plan;
         END $$;",
        HELD_READ.replace('\'', "''")
    ))
    .await
    .unwrap();
    line(conn, "SELECT pg_temp.held_read_plan() AS line")
        .await
        .contains("subscriptions_held")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_held_subscriptions_are_read_from_their_own_index_and_down_keeps_every_row() {
    let migration = MigrationRoundTrip::before("20261208000065").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "UPDATE proposals SET status = 'APROVADO';
         INSERT INTO subscriptions (proposal_id, customer_id, product_id, platform_id, status, object)
             SELECT id, id_cliente, id_produto, 'sub_held', 'trialing', '{}' FROM proposals;",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert!(planned_from_index(&mut conn).await);
    assert_eq!(line(&mut conn, SUBSCRIPTIONS).await, "sub_held:trialing");

    let mut conn = migration.down().await;
    assert!(!planned_from_index(&mut conn).await);
    assert_eq!(line(&mut conn, SUBSCRIPTIONS).await, "sub_held:trialing");

    let mut conn = migration.up().await;
    assert!(planned_from_index(&mut conn).await);
}
