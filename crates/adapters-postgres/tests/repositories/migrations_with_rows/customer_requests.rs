//! Migration 28 adds the customer's requests under their protocols: rows written before it are
//! untouched, a request writes its history entry, the kind is checked, and going down drops the
//! requests and their sequence while the proposals, their events and their history stay.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const PROPOSALS: &str = "SELECT string_agg(identificador || ':' || status, ',') AS line FROM proposals";
const HISTORY: &str = "SELECT string_agg(action, ',' ORDER BY id) AS line FROM proposal_history";

#[tokio::test(flavor = "multi_thread")]
async fn the_requests_come_and_go_leaving_every_other_row_as_it_was() {
    let migration = MigrationRoundTrip::before("20261126000028").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let history_before = line(&mut conn, HISTORY).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:NOVO");
    assert_eq!(line(&mut conn, HISTORY).await, history_before);
    conn.batch_execute(
        "INSERT INTO customer_requests
         SELECT '2026112600000001', id, 'cancelamento', 'Cliente desistiu', 'bo@x', now() FROM proposals",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, HISTORY).await, format!("{history_before},solicitacao"));
    assert_eq!(
        line(
            &mut conn,
            "SELECT changes->'protocolo'->>'to' || '/' || (changes->'tipo'->>'to') AS line
             FROM proposal_history WHERE action = 'solicitacao'"
        )
        .await,
        "2026112600000001/cancelamento"
    );
    let refused = conn
        .batch_execute(
            "INSERT INTO customer_requests SELECT '2026112600000002', id, 'outro', 'x', 'bo@x', now() FROM proposals",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("customer_requests_tipo"), "{refused}");
    assert_eq!(
        line(&mut conn, "SELECT nextval('customer_request_numbers')::text AS line").await,
        "1"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT (SELECT count(*) FROM pg_tables WHERE tablename = 'customer_requests')
                  + (SELECT count(*) FROM pg_class WHERE relname = 'customer_request_numbers') || '' AS line"
        )
        .await,
        "0"
    );
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:NOVO");
    assert_eq!(
        line(&mut conn, HISTORY).await,
        format!("{history_before},solicitacao"),
        "the history is append-only: the request's entry stays"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM customer_requests").await,
        "0"
    );
}
