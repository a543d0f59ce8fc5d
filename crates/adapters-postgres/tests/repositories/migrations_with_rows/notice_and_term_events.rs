//! Migration 66 adds the kinds `AVISO_REGISTRADO` and `VIGENCIA_RENOVADA` (decision 273): what was
//! written before it is untouched; going down removes what holds the new kinds (their deliveries
//! and sequences; a subscription asking for nothing else goes, another keeps its other kinds), and
//! up again takes them once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{
    MigrationRoundTrip, ONE_SHOP_SALE, hook_delivery_row, hook_subscription_row as subscription, line,
};
use diesel_async::SimpleAsyncConnection;

const SUBSCRIPTIONS: &str = "SELECT coalesce(string_agg(endpoint || '=' || array_to_string(events, '+'), ',' ORDER BY id), '-') \
     AS line FROM hook_subscriptions";
const DELIVERIES: &str =
    "SELECT coalesce(string_agg(event_type, ',' ORDER BY event_type), '-') AS line FROM hook_deliveries";
const SEQUENCES: &str = "SELECT coalesce(string_agg(kind || '=' || last_sequence, ',' ORDER BY kind), '-') AS line FROM proposal_event_sequences";

/// A delivery of `kind` to the subscription at `endpoint`, and the proposal's sequence of it.
fn told(endpoint: &str, kind: &str) -> String {
    format!(
        "{} INSERT INTO proposal_event_sequences (proposal_id, kind, last_sequence) SELECT id, '{kind}', 1 FROM proposals;",
        hook_delivery_row(endpoint, kind)
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_notice_and_term_kinds_come_and_go_with_what_holds_them() {
    let migration = MigrationRoundTrip::before("20261208000066").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&format!(
        "{}{}",
        subscription("https://a.example", "'COBRANCA_ALTERADA'"),
        told("https://a.example", "COBRANCA_ALTERADA")
    ))
    .await
    .unwrap();
    let refused = conn
        .batch_execute(&subscription("https://b.example", "'AVISO_REGISTRADO'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_subscriptions_events_check"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=COBRANCA_ALTERADA"
    );
    conn.batch_execute(&format!(
        "{}{}{}{}",
        subscription("https://b.example", "'AVISO_REGISTRADO', 'VIGENCIA_RENOVADA'"),
        subscription("https://c.example", "'COBRANCA_ALTERADA', 'AVISO_REGISTRADO'"),
        told("https://b.example", "VIGENCIA_RENOVADA"),
        told("https://c.example", "AVISO_REGISTRADO"),
    ))
    .await
    .unwrap();
    assert_eq!(
        line(&mut conn, DELIVERIES).await,
        "AVISO_REGISTRADO,COBRANCA_ALTERADA,VIGENCIA_RENOVADA"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=COBRANCA_ALTERADA,https://c.example=COBRANCA_ALTERADA"
    );
    assert_eq!(line(&mut conn, DELIVERIES).await, "COBRANCA_ALTERADA");
    assert_eq!(line(&mut conn, SEQUENCES).await, "COBRANCA_ALTERADA=1");

    let mut conn = migration.up().await;
    conn.batch_execute(&format!(
        "{}{}",
        subscription("https://d.example", "'VIGENCIA_RENOVADA'"),
        told("https://d.example", "VIGENCIA_RENOVADA")
    ))
    .await
    .unwrap();
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example=COBRANCA_ALTERADA,https://c.example=COBRANCA_ALTERADA,https://d.example=VIGENCIA_RENOVADA"
    );
    assert_eq!(
        line(&mut conn, SEQUENCES).await,
        "COBRANCA_ALTERADA=1,VIGENCIA_RENOVADA=1"
    );
}
