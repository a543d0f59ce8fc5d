//! Migrations 30 and 31 keep the platform's state of a subscription (its period's end read from
//! the stored object, its latest invoice, in route 7's document and the history) and the
//! withdrawals with their refunds; each goes down and up again on a database with rows, leaving
//! every other row as it was.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use adapters_postgres::{PoolSettings, build_pool, check_read_model};
use diesel_async::SimpleAsyncConnection;

const SUBSCRIPTION_IN_DOCUMENT: &str =
    "SELECT coalesce(documento->'subscription'->>'status', 'null') || '/' || coalesce(
         ((documento->'subscription'->>'current_period_end')::timestamptz = to_timestamp(1800000000))::text, 'null') AS line
     FROM proposal_read_models";
const PROPOSALS: &str = "SELECT string_agg(identificador || ':' || status, ',') AS line FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn the_subscription_state_and_the_withdrawals_go_down_and_up_with_rows() {
    let migration = MigrationRoundTrip::before("20261126000030").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    // A subscription stored before: its period's end only in the object's items (2025 API).
    conn.batch_execute(
        "INSERT INTO subscriptions (proposal_id, customer_id, product_id, platform_id, status, object)
         SELECT p.id, p.id_cliente, p.id_produto, 'sub_antiga', 'active',
                '{\"id\": \"sub_antiga\", \"items\": {\"data\": [{\"current_period_end\": 1800000000}]}}'
         FROM proposals p",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_indexes WHERE indexname IN ('subscriptions_proposal', 'subscriptions_platform')"
        )
        .await,
        "2",
        "the document's and the events' lookups are by index"
    );
    assert_eq!(
        line(&mut conn, SUBSCRIPTION_IN_DOCUMENT).await,
        "active/true",
        "the period's end read from the stored object, in route 7's document"
    );
    // An invoice's change is one history entry; a withdrawal and its refund are kept.
    conn.batch_execute(
        "UPDATE subscriptions SET status = 'past_due', latest_invoice_status = 'open';
         UPDATE proposals SET status = 'EM ANÁLISE';
         INSERT INTO customer_requests SELECT '2026112600000001', id, 'arrependimento', 'ARREPENDIMENTO', 'bo@x', now() FROM proposals;
         INSERT INTO refunds (id, protocolo, proposal_id, invoice_id, amount_cents, status)
         SELECT 're_1', '2026112600000001', id, 'in_1', 3990, 'succeeded' FROM proposals;",
    )
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT (changes->'fatura_pagamento'->>'to') || '/' || (changes->'assinatura_pagamento'->>'to') AS line
             FROM proposal_history WHERE action = 'pagamento' ORDER BY id DESC LIMIT 1"
        )
        .await,
        "open/past_due"
    );
    // A write that skips the service reaches the document through the repair (decision 168).
    let pool = build_pool(&PoolSettings::new(&migration.db.url)).unwrap();
    assert_eq!(check_read_model(&pool, true).await.unwrap().repaired, 1);
    assert_eq!(line(&mut conn, SUBSCRIPTION_IN_DOCUMENT).await, "past_due/true");
    let refused = conn
        .batch_execute("INSERT INTO refunds (id, protocolo, proposal_id, invoice_id, amount_cents, status) SELECT 're_2', '2026112600000001', id, 'in_1', -1, 'x' FROM proposals")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("amount_cents"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(&mut conn, "SELECT tipo AS line FROM customer_requests").await,
        "cancelamento",
        "a withdrawal reads as the cancellation it also was"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT (SELECT count(*) FROM pg_tables WHERE tablename = 'refunds')
                  + (SELECT count(*) FROM information_schema.columns WHERE table_name = 'subscriptions'
                     AND column_name IN ('current_period_end', 'latest_invoice_status', 'platform_read_at'))
                  + (SELECT count(*) FROM pg_indexes WHERE indexname IN ('subscriptions_proposal', 'subscriptions_platform'))
                  || '' AS line"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT (documento ? 'subscription')::text AS line FROM proposal_read_models"
        )
        .await,
        "false"
    );
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:EM ANÁLISE");
    assert_eq!(
        line(&mut conn, "SELECT status AS line FROM subscriptions").await,
        "past_due"
    );

    let mut conn = migration.up().await;
    // `migrate` writes again the documents its migrations left behind (decision 168).
    assert_eq!(line(&mut conn, SUBSCRIPTION_IN_DOCUMENT).await, "past_due/true");
    assert_eq!(line(&mut conn, "SELECT count(*)::text AS line FROM refunds").await, "0");
}
