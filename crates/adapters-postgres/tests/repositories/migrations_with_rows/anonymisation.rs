//! The migration that completes anonymisation goes down and up again on a database with rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::MigrationRoundTrip;
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[tokio::test(flavor = "multi_thread")]
async fn the_completion_migration_goes_down_and_up_with_rows_and_the_history_rule_follows_it() {
    let migration = MigrationRoundTrip::applied("20261125000020").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(
        "INSERT INTO payment_customer_redactions (platform_customer_id, requested_by, answered_at)
         VALUES ('cus_1', 'bo@demo.com.br', now());
         SELECT history_without_reasons('{\"motivo\": {\"from\": null, \"to\": \"x\"}}'::jsonb);",
    )
    .await
    .unwrap();
    // Down to just before the completion migration (the later ones first).
    migration.down().await;
    let functions: Count = diesel::sql_query(
        "SELECT count(*) AS n FROM pg_proc WHERE proname IN ('history_without_reasons', 'history_reason_marker')",
    )
    .get_result(&mut conn)
    .await
    .unwrap();
    assert_eq!(functions.n, 0);
    migration.up().await;
    let marked: Count = diesel::sql_query(
        "SELECT count(*) AS n WHERE history_without_reasons('{\"motivo\": {\"from\": null, \"to\": \"x\"}, \"status\": {\"from\": \"NOVO\", \"to\": \"CANCELADO\"}}'::jsonb)
             = '{\"motivo\": {\"from\": null, \"to\": \"[removido na anonimização]\"}, \"status\": {\"from\": \"NOVO\", \"to\": \"CANCELADO\"}}'::jsonb",
    )
    .get_result(&mut conn)
    .await
    .unwrap();
    assert_eq!(marked.n, 1, "only the reason's text is replaced");
}
