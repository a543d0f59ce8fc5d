//! Migration 70 records what both documents print besides the proposal (decision 280): up keeps
//! every product and partner as it was, puts every product in the persons line (0,38% of IOF),
//! refuses a malformed SUSEP code, digest or registration and half-registered general conditions;
//! down forgets them; up again keeps the rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const ROWS: &str = "SELECT string_agg(pr.codigo_produto || ':' || pr.valor || ':' || coalesce(pr.processo_susep, '-') \
     || ':' || pa.cpf_cnpj, ',' ORDER BY pr.codigo_produto) AS line FROM products pr, partners pa";

#[tokio::test(flavor = "multi_thread")]
async fn products_and_partners_stay_and_the_documents_facts_are_checked_and_go_with_the_migration() {
    let migration = MigrationRoundTrip::before("20261211000070").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("PIX AUTOMÁTICO"))
        .await
        .unwrap();
    conn.batch_execute("UPDATE products SET processo_susep = '15414.900101/2026-01'")
        .await
        .unwrap();
    let before = line(&mut conn, ROWS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(DISTINCT ramo_iof, ',') AS line FROM products"
        )
        .await,
        "pessoas"
    );
    for refused in [
        "UPDATE products SET seguradora_codigo_susep = '123'",
        "UPDATE products SET ramo_iof = 'odonto'",
        "UPDATE products SET condicoes_versao = '1.0', condicoes_url = 'https://x', \
         condicoes_sha256 = repeat('a', 64), condicoes_exclusoes = 'x'",
        "UPDATE products SET condicoes_versao = '1.0', condicoes_url = 'https://x', \
         condicoes_sha256 = 'ABC', condicoes_exclusoes = 'x', condicoes_carencias = 'y'",
        "INSERT INTO partner_brokers (id_parceiro, registro_susep, alterado_por) SELECT id, '12AB', 'x' FROM partners",
    ] {
        assert!(conn.batch_execute(refused).await.is_err(), "{refused}");
    }
    conn.batch_execute(
        "UPDATE products SET seguradora_codigo_susep = '09991', ramo_iof = 'demais', apolice_mestre = '93.1', \
             condicoes_versao = '1.0', condicoes_url = 'https://x', condicoes_sha256 = repeat('a', 64), \
             condicoes_exclusoes = 'x', condicoes_carencias = 'y';
         INSERT INTO partner_brokers (id_parceiro, registro_susep, alterado_por) SELECT id, '100000001', 'x' FROM partners;",
    )
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.columns \
         WHERE table_name IN ('products', 'partner_brokers') AND (column_name LIKE 'condicoes_%' \
             OR column_name IN ('seguradora_codigo_susep', 'ramo_iof', 'estipulante_cnpj', 'apolice_mestre', 'registro_susep'))",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
}
