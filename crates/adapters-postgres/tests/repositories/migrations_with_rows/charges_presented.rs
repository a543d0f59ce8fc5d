//! Migration 59 keeps when each charge was first presented (decision 265): up dates those made
//! before from what happened (a debit by its first remessa, a Pix charge sent by its creation, a
//! payroll discount by its creation) and leaves a debit never in a remessa and a Pix charge never
//! sent unpresented; down forgets the dates and keeps every charge; up again finds the same dates.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const CHARGES: &str = "SELECT string_agg(p.identificador || '/' || c.periodo || ':' || c.status || ':' || c.valor, ',' \
     ORDER BY p.identificador, c.periodo) AS line FROM charges c JOIN proposals p ON p.id = c.id_proposta";
const PRESENTED: &str = "SELECT string_agg(p.identificador || '/' || c.periodo || ':' \
     || coalesce(to_char(c.apresentada_em AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), '-'), ',' \
     ORDER BY p.identificador, c.periodo) AS line FROM charges c JOIN proposals p ON p.id = c.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn each_charge_presented_before_is_dated_from_what_happened_both_ways() {
    let migration = MigrationRoundTrip::before("20261206000059").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DÉBITO EM CONTA"))
        .await
        .unwrap();
    // Three contracts: by debit (period 1 in two remessas, period 2 in none), by Pix (period 1
    // sent, period 2 not yet) and by payroll.
    conn.batch_execute(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                                codigo_faturamento, status, id_parceiro, id_representante, tipo_pagamento, valor)
         SELECT v.id, id_cliente, cpf_cliente, 'x', 'sms', 'PARCEIRO', id_produto, codigo_faturamento, 'APROVADO',
                id_parceiro, id_representante, v.tipo, 1990
         FROM proposals, (VALUES ('p-2', 'PIX AUTOMÁTICO'), ('p-3', 'DESCONTO EM FOLHA')) AS v (id, tipo);
         INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), '2026-12-10', '2027-02-10', '{1,3,5}', 5, 30, now(), 'x'
         FROM proposals;
         INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, status, id_externo, criada_em, alterada_em,
                              alterada_por)
         SELECT b.id_proposta, n.periodo, (date '2026-12-10' + (n.periodo - 1) * 31), b.valor, b.metodo,
                'aberta',
                CASE WHEN n.periodo = 1 AND b.metodo = 'PIX AUTOMÁTICO' THEN 'txid-1' END,
                timestamptz '2026-11-30 12:00:00+00' + (n.periodo - 1) * interval '31 days',
                now(), 'x'
         FROM contract_billings b, (VALUES (1), (2)) AS n (periodo);
         INSERT INTO debit_files (tipo, banco, convenio, nsa, nome, registros, valor_total, sha256, em)
         VALUES ('remessa', '001', '123456', 1, 'R1.REM', 3, 3990, repeat('c', 64), '2026-12-08 10:00:00+00'),
                ('remessa', '001', '123456', 2, 'R2.REM', 3, 3990, repeat('d', 64), '2026-12-12 10:00:00+00');
         INSERT INTO debit_file_items (id_cobranca, tentativa, id_remessa, data_debito, valor)
         SELECT c.id, f.nsa, f.id, c.vencimento, c.valor
         FROM charges c, debit_files f WHERE c.metodo = 'DÉBITO EM CONTA' AND c.periodo = 1;",
    )
    .await
    .unwrap();
    let before = line(&mut conn, CHARGES).await;
    const DATED: &str =
        "p-1/1:2026-12-08 10:00,p-1/2:-,p-2/1:2026-11-30 12:00,p-2/2:-,p-3/1:2026-11-30 12:00,p-3/2:2026-12-31 12:00";

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CHARGES).await, before);
    assert_eq!(line(&mut conn, PRESENTED).await, DATED);

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, CHARGES).await, before);
    let gone = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'apresentada_em'",
    )
    .await;
    assert_eq!(gone, "0");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CHARGES).await, before);
    assert_eq!(line(&mut conn, PRESENTED).await, DATED);
}
