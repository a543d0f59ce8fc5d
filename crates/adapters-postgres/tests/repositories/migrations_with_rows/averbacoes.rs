//! Migration 61 adds the averbações of payroll discounts (decision 268): up moves every open
//! payroll billing in as `ativa` with no platform id (its discounts were being asked of the
//! employer: billed as before); down forgets the averbações and the operations that made them;
//! up again moves them in again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const BILLINGS: &str = "SELECT string_agg(p.identificador || ':' || b.metodo || ':' || b.situacao || ':' || b.primeiro_vencimento, \
     ',' ORDER BY p.identificador) AS line FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta";
const AVERBACOES: &str = "SELECT coalesce(string_agg(b.metodo || ':' || a.situacao || ':' || coalesce(a.id_externo, '-'), \
     ',' ORDER BY b.metodo), 'none') AS line FROM averbacoes a JOIN contract_billings b USING (id_proposta)";
const OPERATIONS: &str =
    "SELECT coalesce(string_agg(kind, ',' ORDER BY kind), 'none') AS line FROM proposal_operations";

#[tokio::test(flavor = "multi_thread")]
async fn an_open_payroll_billing_is_moved_in_as_active_and_forgotten_back_both_ways() {
    let migration = MigrationRoundTrip::before("20261206000061").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DESCONTO EM FOLHA"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), '2026-12-10', '2027-01-10', '{1,3,5}', 5, 30, 'em_dia', now(), 'x'
         FROM proposals WHERE fluxo = 'PARCEIRO';",
    )
    .await
    .unwrap();
    let before = line(&mut conn, BILLINGS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, AVERBACOES).await, "DESCONTO EM FOLHA:ativa:-");
    // A pending one needs its platform id; a request and a cancellation under their claims.
    let refused = conn
        .batch_execute("UPDATE averbacoes SET situacao = 'pendente', id_externo = NULL")
        .await;
    assert!(refused.is_err(), "a pending averbação without the platform's id");
    conn.batch_execute(
        "UPDATE averbacoes SET id_externo = 'AV-1', situacao = 'cancelada';
         INSERT INTO proposal_operations (id, proposal_id, kind, state, requested_by, started_at, finished_at)
         SELECT gen_random_uuid(), id_proposta, k, 'done', 'x', now(), now() FROM averbacoes,
             unnest(ARRAY['averbacao', 'cancelamento_averbacao']) AS k;",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, OPERATIONS).await, "averbacao,cancelamento_averbacao");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, OPERATIONS).await, "none");
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.tables WHERE table_name = 'averbacoes'",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, AVERBACOES).await, "DESCONTO EM FOLHA:ativa:-");
}
