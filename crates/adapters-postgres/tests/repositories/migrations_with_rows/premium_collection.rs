//! Migration 63 adds when the shop collects a product's premium (decision 271): up declares every
//! product as collecting at the sale with provisional cover (as each did) and starts the cover of
//! every shop sale already paid at its entry into analysis; down keeps a collection's operation as the subscription's and forgets the covers; up
//! again starts them again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const COVERS: &str = "SELECT coalesce(string_agg(p.identificador || ':' || \
     coalesce((a.cobertura_provisoria_desde = a.recebida_em)::text, 'none'), ',' ORDER BY p.identificador), 'none') AS line \
     FROM proposal_acceptances a JOIN proposals p ON p.id = a.id_proposta";
const OPERATIONS: &str =
    "SELECT coalesce(string_agg(kind, ',' ORDER BY kind), 'none') AS line FROM proposal_operations";

#[tokio::test(flavor = "multi_thread")]
async fn a_paid_shop_sale_gets_its_provisional_cover_from_its_entry_into_analysis_both_ways() {
    let migration = MigrationRoundTrip::before("20261207000063").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    // The paid sale (p-1) and a shop proposal refused before any subscription (p-2).
    conn.batch_execute(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento, status)
             SELECT 'p-2', id_cliente, cpf_cliente, 'x', 'sms', 'ECOMMERCE', id_produto, 5001, 'REPROVADO' FROM proposals;
         UPDATE proposals SET status = 'EM ANÁLISE' WHERE identificador = 'p-1';
         INSERT INTO subscriptions (proposal_id, customer_id, product_id, platform_id, status, object)
             SELECT id, id_cliente, id_produto, 'sub_1', 'active', '{}' FROM proposals WHERE identificador = 'p-1';
         INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas)
             SELECT id, now() - interval '2 days', now() + interval '13 days', true, 0 FROM proposals;",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COVERS).await, "p-1:true,p-2:none");
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(cobranca_premio, ',') AS line FROM products"
        )
        .await,
        "cobertura_provisoria"
    );
    let refused = conn
        .batch_execute("UPDATE products SET cobranca_premio = 'antes'")
        .await;
    assert!(refused.is_err(), "only the two collections");
    conn.batch_execute(
        "UPDATE products SET cobranca_premio = 'na_aceitacao';
         INSERT INTO proposal_operations (id, proposal_id, kind, state, requested_by, started_at, finished_at)
         SELECT gen_random_uuid(), id, 'cobranca_aceite', 'done', 'x', now(), now() FROM proposals WHERE identificador = 'p-1';",
    )
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, OPERATIONS).await, "assinatura_recorrente");
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.columns \
         WHERE column_name IN ('cobranca_premio', 'cobertura_provisoria_desde')",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COVERS).await, "p-1:true,p-2:none");
    assert_eq!(line(&mut conn, OPERATIONS).await, "assinatura_recorrente");
}
