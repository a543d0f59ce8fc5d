//! Migration 39 adds the mother's name to the registration and to the proposal's copy: rows
//! written before it keep every value and read none, their documents (without the member) read as
//! the Rust definition's with no drift, the database keeps its bounds, and it goes down (the member
//! leaving the documents that held one) and up again with rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use adapters_postgres::{PoolSettings, build_pool, check_read_model};
use diesel_async::SimpleAsyncConnection;

const DOCUMENT_CUSTOMER: &str = "SELECT (documento -> 'customer')::text AS line FROM proposal_read_models";

#[tokio::test(flavor = "multi_thread")]
async fn the_mothers_name_is_added_to_rows_written_before_it_both_ways() {
    let migration = MigrationRoundTrip::before("20261127000039").await;
    let mut conn = migration.connect().await;
    // The guard marks the sale's document, which `migrate` builds after the migrations. (The
    // service's build reads the tables of every migration, 000040's acceptance clock too, so it
    // cannot write a document on the schema of 38; the one it writes after 39 loses its member
    // below, as a document written before 39 lacks it.)
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let pool = build_pool(&PoolSettings::new(&migration.db.url)).unwrap();

    let mut conn = migration.up().await;
    conn.batch_execute("UPDATE proposal_read_models SET documento = documento #- '{customer,nome_mae}'")
        .await
        .unwrap();
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_mae"));
    assert_eq!(
        line(
            &mut conn,
            "SELECT c.nome_completo || ' ' || coalesce(c.nome_mae, 'sem nome da mãe') || ' ' \
             || coalesce(pc.nome_mae, 'sem nome da mãe') AS line \
             FROM customers c JOIN proposal_customers pc ON pc.id_cliente = c.id"
        )
        .await,
        "José da Conceição sem nome da mãe sem nome da mãe"
    );
    let report = check_read_model(&pool, false).await.unwrap();
    assert_eq!((report.checked, report.drifted.len()), (1, 0), "{report:?}");

    let refused = conn
        .batch_execute("UPDATE customers SET nome_mae = 'A'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("customers_nome_mae_length"), "{refused}");
    conn.batch_execute("UPDATE proposal_customers SET nome_mae = 'Ana da Conceição'")
        .await
        .unwrap();
    assert_eq!(check_read_model(&pool, true).await.unwrap().repaired, 1);
    assert!(
        line(&mut conn, DOCUMENT_CUSTOMER)
            .await
            .contains("\"nome_mae\": \"Ana da Conceição\"")
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'nome_mae'"
        )
        .await,
        "0"
    );
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_mae"));
    assert_eq!(
        line(&mut conn, "SELECT nome_completo AS line FROM proposal_customers").await,
        "José da Conceição"
    );
    migration.up().await;
    assert!(check_read_model(&pool, false).await.unwrap().drifted.is_empty());
}
