//! Migration 43 adds the products' cover and the certificates: a contract accepted before it is
//! due its certificate (accepted when its event says), any other proposal is not; going down
//! drops them, the proposals and products as they were; up again makes them due again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const DUE: &str = "SELECT coalesce(string_agg(p.identificador || '@' || to_char(c.aceita_em AT TIME ZONE 'UTC', 'YYYY-MM-DD'), ','), '-') AS line \
     FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_contract_is_due_its_certificate_both_ways() {
    let migration = MigrationRoundTrip::before("20261128000043").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "UPDATE proposals SET status = 'APROVADO';
         INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence)
         SELECT id, 'ALTERAÇÃO_STATUS', 'EM ANÁLISE', 'APROVADO', 'bo@x', '2026-11-20T12:00:00Z', 1 FROM proposals;",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, DUE).await, "p-1@2026-11-20");
    let refused = conn
        .batch_execute("UPDATE products SET seguradora_cnpj = '123'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("products_seguradora_cnpj"), "{refused}");
    let refused = conn
        .batch_execute("UPDATE proposal_certificates SET pdf = '\\x25504446'")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("proposal_certificates_issued"),
        "a PDF without its hash: {refused}"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT (SELECT count(*) FROM pg_tables WHERE tablename = 'proposal_certificates')
                  + (SELECT count(*) FROM information_schema.columns WHERE table_name = 'products'
                     AND column_name IN ('seguradora', 'processo_susep', 'capital_segurado')) || '' AS line"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT identificador || ':' || status AS line FROM proposals"
        )
        .await,
        "p-1:APROVADO"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, DUE).await, "p-1@2026-11-20");
}
