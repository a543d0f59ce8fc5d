//! Migration 21 stores each proposal's normalised customer name for the list's search: rows
//! written before it get theirs when it runs, it goes down and up again with rows, and a name
//! correction stays one change in the history.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const INDEX: &str = "SELECT indexdef AS line FROM pg_indexes WHERE indexname = 'proposal_customers_name_search_idx'";

#[tokio::test(flavor = "multi_thread")]
async fn the_search_name_is_stored_for_existing_rows_both_ways_and_stays_out_of_the_history() {
    let migration = MigrationRoundTrip::before("20261125000021").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    assert!(line(&mut conn, INDEX).await.contains("search_text(nome_completo)"));

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, "SELECT nome_busca AS line FROM proposal_customers").await,
        "jose da conceicao",
        "a row written before the migration is searchable"
    );
    assert!(line(&mut conn, INDEX).await.contains("(nome_busca gin_trgm_ops)"));

    conn.batch_execute("UPDATE proposal_customers SET nome_completo = 'José da Conceição Lima', alterado_por = 'y'")
        .await
        .unwrap();
    assert_eq!(
        line(&mut conn, "SELECT nome_busca AS line FROM proposal_customers").await,
        "jose da conceicao lima",
        "the stored name follows a correction"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(key, ',') AS line FROM proposal_history, jsonb_object_keys(changes) AS key
             WHERE action = 'correcao'"
        )
        .await,
        "nome_completo",
        "a name correction is one change, not two"
    );
    // Inside an anonymisation the entry says so (the action stays the transaction's, migration 17).
    conn.batch_execute(
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao';
         UPDATE proposal_customers SET nome_completo = 'Titular anonimizado'; COMMIT;",
    )
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT action AS line FROM proposal_history WHERE changes ? 'nome_completo' ORDER BY id DESC LIMIT 1"
        )
        .await,
        "anonimizacao"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'nome_busca'"
        )
        .await,
        "0"
    );
    assert!(line(&mut conn, INDEX).await.contains("search_text(nome_completo)"));
    migration.up().await;
}
