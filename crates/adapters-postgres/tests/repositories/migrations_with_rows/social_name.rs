//! Migration 23 adds the social name to the registration and to the proposal's copy: rows written
//! before it keep every value and read a null social name, the read model's documents are written
//! again to hold it (the check finds nothing to mend), and it goes down and up again with rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use adapters_postgres::{PoolSettings, build_pool, check_read_model};
use diesel_async::SimpleAsyncConnection;

const DOCUMENT_CUSTOMER: &str = "SELECT (documento -> 'customer')::text AS line FROM proposal_read_models";

#[tokio::test(flavor = "multi_thread")]
async fn the_social_name_is_added_to_rows_written_before_it_both_ways_and_the_documents_follow() {
    let migration = MigrationRoundTrip::before("20261126000023").await;
    let db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_social"));

    let mut conn = migration.up().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT c.nome_completo || ' ' || coalesce(c.nome_social, 'sem nome social') || ' ' || pc.nome_completo \
             || ' ' || coalesce(pc.nome_social, 'sem nome social') AS line \
             FROM customers c JOIN proposal_customers pc ON pc.id_cliente = c.id"
        )
        .await,
        "José da Conceição sem nome social José da Conceição sem nome social"
    );
    assert!(
        line(&mut conn, DOCUMENT_CUSTOMER)
            .await
            .contains("\"nome_social\": null"),
        "the document was written again with the new column"
    );
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let report = check_read_model(&pool, false).await.unwrap();
    assert!(report.drifted.is_empty(), "{report:?}");
    assert_eq!(report.checked, 1);

    // The database keeps the bounds even for a write that skips the service.
    let refused = conn
        .batch_execute("UPDATE customers SET nome_social = 'J'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("customers_nome_social_length"), "{refused}");
    conn.batch_execute("UPDATE proposal_customers SET nome_social = 'Josefa Conceição'")
        .await
        .unwrap();
    // A write that skips the service reaches the document through the repair (decision 168).
    assert_eq!(check_read_model(&pool, true).await.unwrap().repaired, 1);
    assert!(line(&mut conn, DOCUMENT_CUSTOMER).await.contains("Josefa Conceição"));

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'nome_social'"
        )
        .await,
        "0"
    );
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_social"));
    assert_eq!(
        line(&mut conn, "SELECT nome_completo AS line FROM proposal_customers").await,
        "José da Conceição"
    );
    migration.up().await;
}
