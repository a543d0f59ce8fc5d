//! Migration 41 adds the kinds `PENDENCIA_ABERTA` and `PENDENCIA_RESPONDIDA`: subscriptions and
//! deliveries written before it are untouched; going down removes what holds the new kinds (a
//! subscription asking for nothing else goes, another keeps its other kinds), and up again takes
//! them once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, hook_subscription_row as subscription, line};
use diesel_async::SimpleAsyncConnection;

const SUBSCRIPTIONS: &str = "SELECT coalesce(string_agg(endpoint || '=' || array_to_string(events, '+'), ',' ORDER BY id), '-') \
     AS line FROM hook_subscriptions";

#[tokio::test(flavor = "multi_thread")]
async fn the_pending_kinds_come_and_go_with_what_holds_them() {
    let migration = MigrationRoundTrip::before("20261128000041").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(&subscription("https://a.example", "'ALTERAÇÃO_STATUS'"))
        .await
        .unwrap();
    let refused = conn
        .batch_execute(&subscription("https://b.example", "'PENDENCIA_ABERTA'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_subscriptions_events_check"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=ALTERAÇÃO_STATUS"
    );
    conn.batch_execute(&format!(
        "{}{}",
        subscription("https://b.example", "'PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA'"),
        subscription("https://c.example", "'ALTERAÇÃO_STATUS', 'PENDENCIA_RESPONDIDA'"),
    ))
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=ALTERAÇÃO_STATUS,https://c.example=ALTERAÇÃO_STATUS"
    );

    let mut conn = migration.up().await;
    conn.batch_execute(&subscription("https://d.example", "'PENDENCIA_ABERTA'"))
        .await
        .unwrap();
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=ALTERAÇÃO_STATUS,https://c.example=ALTERAÇÃO_STATUS,https://d.example=PENDENCIA_ABERTA"
    );
}
