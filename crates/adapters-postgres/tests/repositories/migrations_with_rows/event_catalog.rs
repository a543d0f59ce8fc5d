//! Migration 25 opens the event catalog: subscriptions and deliveries written before it are kept
//! as they were, the new kinds are accepted after it, and going down drops what only the new kinds
//! meant (their deliveries and counters) while every subscription stays, with the kinds it may
//! still ask for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{
    MigrationRoundTrip, ONE_SHOP_SALE, hook_delivery_row as delivery, hook_subscription_row as subscription, line,
    lines,
};
use diesel_async::SimpleAsyncConnection;

const EVENTS_BY_ENDPOINT: &str =
    "SELECT endpoint || ' ' || array_to_string(events, ',') AS line FROM hook_subscriptions ORDER BY endpoint";
const DELIVERIES: &str = "SELECT event_type AS line FROM hook_deliveries ORDER BY id";

#[tokio::test(flavor = "multi_thread")]
async fn the_catalog_keeps_what_was_there_both_ways_and_down_leaves_each_subscription_what_it_may_ask_for() {
    let migration = MigrationRoundTrip::before("20261126000025").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&subscription("https://a.exemplo.com.br/", "'ALTERAÇÃO_STATUS'"))
        .await
        .unwrap();
    conn.batch_execute(&delivery("https://a.exemplo.com.br/", "ALTERAÇÃO_STATUS"))
        .await
        .unwrap();
    let refused = conn
        .batch_execute(&subscription("https://b.exemplo.com.br/", "'PROPOSTA_CRIADA'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_subscriptions_events_check"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(
        lines(&mut conn, EVENTS_BY_ENDPOINT).await,
        ["https://a.exemplo.com.br/ ALTERAÇÃO_STATUS"]
    );
    assert_eq!(lines(&mut conn, DELIVERIES).await, ["ALTERAÇÃO_STATUS"]);
    conn.batch_execute(&subscription("https://b.exemplo.com.br/", "'PROPOSTA_CRIADA'"))
        .await
        .unwrap();
    conn.batch_execute(&subscription(
        "https://c.exemplo.com.br/",
        "'ALTERAÇÃO_STATUS', 'PAGAMENTO_ALTERADO'",
    ))
    .await
    .unwrap();
    conn.batch_execute(&delivery("https://c.exemplo.com.br/", "PAGAMENTO_ALTERADO"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO proposal_event_sequences (proposal_id, kind, last_sequence) \
         SELECT id, 'PAGAMENTO_ALTERADO', 2 FROM proposals",
    )
    .await
    .unwrap();
    let unknown = conn
        .batch_execute(&subscription("https://d.exemplo.com.br/", "'PROPOSTA_EXCLUIDA'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("hook_subscriptions_events_check"), "{unknown}");

    let mut conn = migration.down().await;
    assert_eq!(
        lines(&mut conn, EVENTS_BY_ENDPOINT).await,
        [
            "https://a.exemplo.com.br/ ALTERAÇÃO_STATUS",
            "https://b.exemplo.com.br/ TESTE",
            "https://c.exemplo.com.br/ ALTERAÇÃO_STATUS",
        ]
    );
    assert_eq!(lines(&mut conn, DELIVERIES).await, ["ALTERAÇÃO_STATUS"]);
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = 'proposal_event_sequences'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(lines(&mut conn, EVENTS_BY_ENDPOINT).await.len(), 3);
}
