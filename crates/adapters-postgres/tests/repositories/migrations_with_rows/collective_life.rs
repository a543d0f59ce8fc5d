//! Migration 64 declares collective life products with their policyholder (decision 272): up
//! keeps every product individual and every billing and notice as it was, refuses a collective
//! product without its policyholder, and records a policyholder's copy only with its address;
//! down forgets the declarations and the copies; up again keeps the rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const ROWS: &str = "SELECT p.identificador || ':' || b.situacao || ':' || n.tipo || ':' || coalesce(n.recebido_em::text, '-') AS line \
     FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta JOIN billing_notices n ON n.id_proposta = b.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn billings_and_notices_stay_as_they_were_and_the_policyholder_goes_with_its_declaration() {
    let migration = MigrationRoundTrip::before("20261207000064").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("PIX AUTOMÁTICO"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), '2026-12-10', '2027-01-10', '{1,3,5}', 5, 30, 'suspenso', now(), 'x'
         FROM proposals;
         INSERT INTO billing_notices (id_proposta, tipo, periodo, vencimento, valor, criado_em, recebido_em)
         SELECT id, 'aviso_encerramento', 2, '2027-01-10', 3990, now(), '2027-01-20T12:00:00Z' FROM proposals;",
    )
    .await
    .unwrap();
    let before = line(&mut conn, ROWS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (bool_or(seguro_coletivo_vida) OR bool_or(b.coletivo_vida))::text AS line FROM products, contract_billings b"
        )
        .await,
        "false",
        "every product and contract individual"
    );
    let refused = conn
        .batch_execute("UPDATE products SET seguro_coletivo_vida = true")
        .await;
    assert!(refused.is_err(), "collective without its policyholder");
    let refused = conn
        .batch_execute("UPDATE billing_notices SET estipulante_em = now()")
        .await;
    assert!(refused.is_err(), "a policyholder's copy without its address");
    conn.batch_execute(
        "UPDATE products SET seguro_coletivo_vida = true, estipulante_nome = 'Associação', estipulante_email = 'e@a.org';
         UPDATE contract_billings SET coletivo_vida = true;
         UPDATE billing_notices SET estipulante_em = now(), estipulante_destino = 'e***@a.org';",
    )
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.columns \
         WHERE column_name IN ('seguro_coletivo_vida', 'estipulante_nome', 'estipulante_email', 'coletivo_vida', 'estipulante_em', 'estipulante_destino')",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, before);
}
