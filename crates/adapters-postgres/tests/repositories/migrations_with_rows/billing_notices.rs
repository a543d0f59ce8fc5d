//! Migration 60 adds the law's notices of an unpaid premium (decision 266): up keeps every
//! contract's billing and gives the contracts accepted before the rules their terms had (the
//! first instalment noticed like any other, the end 30 days after the suspension) and the
//! products the law's (the first instalment resolves); down forgets the notices and keeps an
//! operation that ended a contract for its premium as a contract's cancellation; up again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const BILLINGS: &str = "SELECT string_agg(p.identificador || ':' || b.metodo || ':' || b.situacao || ':' || b.suspensao_dias, \
     ',' ORDER BY p.identificador) AS line FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta";
const RULES: &str = "SELECT (SELECT string_agg(primeira_parcela || '/' || encerramento_dias, ',') FROM contract_billings) \
     || ' ' || (SELECT string_agg(DISTINCT cobranca_primeira_parcela || '/' || cobranca_encerramento_dias, ',') FROM products) \
     AS line";
const OPERATIONS: &str = "SELECT string_agg(kind, ',' ORDER BY kind) AS line FROM proposal_operations";

#[tokio::test(flavor = "multi_thread")]
async fn every_billing_is_kept_and_a_default_end_reads_back_as_a_cancellation_both_ways() {
    let migration = MigrationRoundTrip::before("20261206000060").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("PIX AUTOMÁTICO"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), '2026-12-10', '2027-01-10', '{1,3,5}', 5, 30, 'em_atraso', now(), 'x'
         FROM proposals WHERE fluxo = 'PARCEIRO';
         INSERT INTO proposal_operations (id, proposal_id, kind, state, requested_by, started_at, finished_at)
         SELECT gen_random_uuid(), id, 'cancelamento_contrato', 'done', 'x', now(), now() FROM proposals WHERE fluxo = 'PARCEIRO';",
    )
    .await
    .unwrap();
    let before = line(&mut conn, BILLINGS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, RULES).await, "suspende/30 resolve/30");
    // A notice sent and delivered, and the contract then ended for its premium.
    conn.batch_execute(
        "INSERT INTO billing_notices (id_proposta, tipo, periodo, vencimento, valor, criado_em, recebido_em)
         SELECT id_proposta, 'atraso', 2, '2027-01-10', valor, now(), now() FROM contract_billings;
         INSERT INTO billing_notice_deliveries (id_aviso, canal, destino, status, enviado_em, entregue_em)
         SELECT id, 'email', 'm***@exemplo.com.br', 'entregue', now(), now() FROM billing_notices;
         UPDATE proposal_operations SET kind = 'encerramento_inadimplencia';",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, OPERATIONS).await, "encerramento_inadimplencia");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, OPERATIONS).await, "cancelamento_contrato");
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.tables WHERE table_name LIKE 'billing_notice%'",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, BILLINGS).await, before);
    assert_eq!(line(&mut conn, RULES).await, "suspende/30 resolve/30");
}
