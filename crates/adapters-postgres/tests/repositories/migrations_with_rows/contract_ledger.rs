//! Migration 57 enters every charge and refund stored before into the contract's ledger (a
//! charge due, paid at what was received, cancelled; a refund given back, owed, paid), keeps the
//! entries from being changed, and writes the entries of every later fact in its transaction;
//! down drops the ledger and leaves every charge and refund; up again enters them anew.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

/// A payroll contract with four charges: two paid (one at less than due), one open, one cancelled
/// with the contract and paid after it (its motivo says so); two refunds: one given back by Pix,
/// one owed and paid by the finance team.
const MONEY: &str = "
UPDATE proposals SET tipo_pagamento = 'DESCONTO EM FOLHA', valor = 4990, status = 'CANCELADO';
INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
    retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
SELECT id, 'DESCONTO EM FOLHA', 4990, now(), current_date, current_date, '{1,3,5}', 5, 30, now(), 'x' FROM proposals;
INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, status, pago_em, valor_pago, motivo,
    criada_em, alterada_em, alterada_por)
SELECT id, n, current_date, 4990, 'DESCONTO EM FOLHA',
       CASE WHEN n <= 2 OR n = 4 THEN 'paga' ELSE 'aberta' END,
       CASE WHEN n <= 2 OR n = 4 THEN now() END,
       CASE n WHEN 1 THEN 4990 WHEN 2 THEN 4000 WHEN 4 THEN 4990 END,
       CASE n WHEN 4 THEN 'debitada pelo banco depois do encerramento do contrato: devolvida' END,
       now(), now(), 'x'
FROM proposals, generate_series(1, 4) n;
INSERT INTO refunds (id, proposal_id, invoice_id, motivo, meio, amount_cents, nominal_cents, status, created_at)
SELECT 'D1', id, 'txid-1', 'CANCELAMENTO', 'pix', 1000, 1000, 'DEVOLVIDO', now() FROM proposals;
INSERT INTO refunds (id, proposal_id, motivo, meio, amount_cents, nominal_cents, status, created_at, pago_em, referencia)
SELECT 'T1', id, 'CANCELAMENTO', 'a_pagar', 500, 500, 'pago', now(), now(), 'TED-1' FROM proposals;";

const ENTRIES: &str =
    "SELECT string_agg(origem || ':' || tipo || ':' || valor, ',' ORDER BY origem, id_origem, tipo) AS line
     FROM ledger_entries";
const KEPT: &str = "SELECT (SELECT count(*) FROM charges) || ' cobranças, ' || (SELECT count(*) FROM refunds) || ' reembolsos' AS line";
const EXPECTED: &str = "cobranca:devido:4990,cobranca:recebido:4990,\
cobranca:devido:4990,cobranca:recebido:4000,\
cobranca:devido:4990,\
cobranca:cancelado:4990,cobranca:devido:4990,cobranca:recebido:4990,\
reembolso:devolvido:1000,\
reembolso:a_devolver:500,reembolso:devolucao_paga:500";

/// After the open charge was paid, entered anew.
const EXPECTED_AGAIN: &str = "cobranca:devido:4990,cobranca:recebido:4990,\
cobranca:devido:4990,cobranca:recebido:4000,\
cobranca:devido:4990,cobranca:recebido:4990,\
cobranca:cancelado:4990,cobranca:devido:4990,cobranca:recebido:4990,\
reembolso:devolvido:1000,\
reembolso:a_devolver:500,reembolso:devolucao_paga:500";

#[tokio::test(flavor = "multi_thread")]
async fn every_charge_and_refund_stored_before_enters_the_ledger_and_the_entries_never_change() {
    let migration = MigrationRoundTrip::before("20261205000057").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(MONEY).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ENTRIES).await, EXPECTED);
    // Marked by the migration, the document is built again with its ledger after it.
    assert_eq!(
        line(
            &mut conn,
            "SELECT documento -> 'ledger' ->> 'received' || ' ' || (documento -> 'ledger' ->> 'owed_back') AS line
             FROM proposal_read_models"
        )
        .await,
        "13980 0",
        "received 4990 + 4000 + 4990; owed back 500, paid"
    );
    let refused = conn
        .batch_execute("UPDATE ledger_entries SET valor = 1")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("não se alteram"), "{refused}");
    let refused = conn
        .batch_execute("DELETE FROM ledger_entries")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("não se alteram"), "{refused}");

    // A later fact writes its entry in its own statement's transaction: the open charge paid.
    conn.batch_execute("UPDATE charges SET status = 'paga', pago_em = now(), valor_pago = 4990 WHERE periodo = 3")
        .await
        .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM ledger_entries WHERE tipo = 'recebido' AND origem = 'cobranca'"
        )
        .await,
        "4"
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, KEPT).await, "4 cobranças, 2 reembolsos");
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename IN ('ledger_entries', 'card_invoices')"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ENTRIES).await, EXPECTED_AGAIN);
}
