//! Migration 53 lets a customer's revocation of the debits be a request under a protocol and keeps
//! who changed each authorisation: those the bank refused or revoked before are the bank's, the
//! active ones the billing's; a revocation's request is taken in; going down removes the
//! revocations' requests (their authorisations stay revoked) and the column; up again restores the
//! column as the first time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const AUTHORIZATIONS: &str = "SELECT string_agg(p.identificador || ':' || a.situacao || ':' || a.situacao_por, ',' \
     ORDER BY p.identificador) AS line FROM debit_authorizations a JOIN proposals p ON p.id = a.id_proposta";
const REQUESTS: &str = "SELECT coalesce(string_agg(tipo, ',' ORDER BY tipo), '-') AS line FROM customer_requests";

#[tokio::test(flavor = "multi_thread")]
async fn who_changed_each_authorisation_is_kept_and_a_revocation_is_a_request() {
    let migration = MigrationRoundTrip::before("20261129000053").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DÉBITO EM CONTA"))
        .await
        .unwrap();
    conn.batch_execute(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                                codigo_faturamento, status, id_parceiro, id_representante, tipo_pagamento, valor)
         SELECT 'p-2', id_cliente, cpf_cliente, 'x', 'sms', 'PARCEIRO', id_produto, codigo_faturamento, 'APROVADO',
                id_parceiro, id_representante, 'DÉBITO EM CONTA', 3990 FROM proposals;
         INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), current_date + 10, current_date + 10, '{1,3,5}', 5, 30, now(), 'x'
         FROM proposals;
         INSERT INTO debit_authorizations (id_proposta, banco, autorizada_em, situacao, situacao_em, motivo)
         SELECT id, '001', now(), CASE identificador WHEN 'p-1' THEN 'ativa' ELSE 'recusada' END, now(),
                CASE identificador WHEN 'p-1' THEN NULL ELSE '30: sem contrato de débito automático' END
         FROM proposals;
         INSERT INTO customer_requests (protocolo, proposal_id, tipo, motivo, solicitado_por, solicitado_em)
         SELECT '2026112900000001', id, 'cancelamento', 'Cliente desistiu', 'bo@x', now() FROM proposals WHERE identificador = 'p-2';",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, AUTHORIZATIONS).await,
        "p-1:ativa:sistema:cobranca,p-2:recusada:banco"
    );
    // The customer's revocation through the insurer: the request and the authorisation's change.
    conn.batch_execute(
        "INSERT INTO customer_requests (protocolo, proposal_id, tipo, motivo, solicitado_por, solicitado_em)
         SELECT '2026112900000002', id, 'revogacao_debito', 'Vai pagar por boleto', 'rep@x', now()
         FROM proposals WHERE identificador = 'p-1';
         UPDATE debit_authorizations SET situacao = 'revogada', situacao_por = 'rep@x',
             motivo = 'revogada a pedido do cliente: Vai pagar por boleto'
         WHERE id_proposta = (SELECT id FROM proposals WHERE identificador = 'p-1');",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, REQUESTS).await, "cancelamento,revogacao_debito");
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(action || ':' || changed_by, ',') AS line FROM proposal_history \
             WHERE action = 'autorizacao_debito'"
        )
        .await,
        "autorizacao_debito:rep@x"
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, REQUESTS).await, "cancelamento");
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(p.identificador || ':' || a.situacao, ',' ORDER BY p.identificador) AS line \
             FROM debit_authorizations a JOIN proposals p ON p.id = a.id_proposta"
        )
        .await,
        "p-1:revogada,p-2:recusada"
    );
    let refused = conn
        .batch_execute(
            "INSERT INTO customer_requests (protocolo, proposal_id, tipo, motivo, solicitado_por, solicitado_em)
             SELECT '2026112900000003', id, 'revogacao_debito', 'x', 'x', now() FROM proposals WHERE identificador = 'p-1'",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("customer_requests_tipo"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, AUTHORIZATIONS).await,
        "p-1:revogada:banco,p-2:recusada:banco"
    );
}
