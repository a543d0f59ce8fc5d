//! Migration 29 adds signing deadlines and `EXPIRADO`: rows written before it are untouched (no
//! deadline: nothing expires on deploy), an expired proposal is finished for the one-open rule,
//! and going down turns expired proposals and their events into cancelled ones.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const PROPOSALS: &str = "SELECT string_agg(identificador || ':' || status, ',' ORDER BY id) AS line FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn deadlines_and_expiry_come_and_go_leaving_every_other_row_as_it_was() {
    let migration = MigrationRoundTrip::before("20261126000029").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "INSERT INTO signatures (proposal_id, document_key, alterado_por) SELECT id, 'env-1', 'x' FROM proposals",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:NOVO");
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM signatures WHERE prazo_em IS NULL"
        )
        .await,
        "1",
        "an envelope made before has no deadline"
    );
    // Expired, with its event; the customer may open another proposal for the product.
    conn.batch_execute(
        "UPDATE proposals SET status = 'EXPIRADO';
         INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence)
         SELECT id, 'ALTERAÇÃO_STATUS', 'AGUARDANDO ASSINATURA', 'EXPIRADO', 'prazo-de-assinatura', now(), 1 FROM proposals;
         INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento)
         SELECT 'p-2', id_cliente, cpf_cliente, 'x', 'sms', 'ECOMMERCE', id_produto, codigo_faturamento FROM proposals;",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:EXPIRADO,p-2:NOVO");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:CANCELADO,p-2:NOVO");
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(to_status, ',') AS line FROM proposal_events"
        )
        .await,
        "CANCELADO"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, PROPOSALS).await, "p-1:CANCELADO,p-2:NOVO");
    let refused = conn
        .batch_execute("UPDATE proposals SET status = 'VENCIDO'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("proposals_status_check"), "{refused}");
}
