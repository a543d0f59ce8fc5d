//! Migration 52 adds débito em conta's authorisations and files: a contract billed by debit before
//! it holds the authorisation its signature gave (the sealed document's SHA-256 as evidence, the
//! bank of its payment), one billed by payroll discount does not; going down drops the
//! authorisations and files, the billings and charges as they were; up again writes the
//! authorisation once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const AUTHORIZATIONS: &str = "SELECT coalesce(string_agg(p.identificador || ':' || a.banco || ':' || a.situacao || ':' \
     || left(coalesce(a.evidencia_sha256, '-'), 8), ',' ORDER BY p.identificador), '-') AS line \
     FROM debit_authorizations a JOIN proposals p ON p.id = a.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_billed_by_debit_holds_its_authorisation_both_ways() {
    let migration = MigrationRoundTrip::before("20261128000052").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DÉBITO EM CONTA"))
        .await
        .unwrap();
    conn.batch_execute(&format!(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                                codigo_faturamento, status, id_parceiro, id_representante, tipo_pagamento, valor)
         SELECT 'p-2', id_cliente, cpf_cliente, 'x', 'sms', 'PARCEIRO', id_produto, codigo_faturamento, 'APROVADO',
                id_parceiro, id_representante, 'DESCONTO EM FOLHA', 1990 FROM proposals;
         INSERT INTO proposal_payments (id_proposta, tipo, banco, agencia, conta, alterado_por)
         SELECT id, 'DÉBITO EM CONTA', '001', '1234-5', '56789-0', 'x' FROM proposals WHERE identificador = 'p-1';
         INSERT INTO sealed_documents (proposal_id, pdf, sha256, sealed_by)
         SELECT id, '\\x25504446', '{}', 'x' FROM proposals WHERE identificador = 'p-1';
         INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
         SELECT id, tipo_pagamento, valor, now(), current_date + 10, current_date + 10, '{{1,3,5}}', 5, 30, now(), 'x'
         FROM proposals;
         INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, criada_em, alterada_em, alterada_por)
         SELECT id_proposta, 1, primeiro_vencimento, valor, metodo, now(), now(), 'x' FROM contract_billings;",
        "ab".repeat(32)
    ))
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, AUTHORIZATIONS).await, "p-1:001:ativa:abababab");
    conn.batch_execute(
        "INSERT INTO debit_files (tipo, banco, convenio, nsa, nome, registros, valor_total, sha256, em)
         VALUES ('remessa', '001', '123456', 1, 'CNAB150_001_123456_000001.REM', 3, 3990, repeat('c', 64), now());
         INSERT INTO debit_file_items (id_cobranca, tentativa, id_remessa, data_debito, valor)
         SELECT c.id, 1, f.id, c.vencimento, c.valor FROM charges c, debit_files f WHERE c.metodo = 'DÉBITO EM CONTA';",
    )
    .await
    .unwrap();
    let refused = conn
        .batch_execute(
            "INSERT INTO debit_files (tipo, banco, convenio, nsa, nome, registros, valor_total, sha256, em)
             VALUES ('remessa', '001', '123456', 1, 'outro', 3, 3990, repeat('d', 64), now())",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("debit_files_remessa_once"),
        "one file per number: {refused}"
    );

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*) || '' AS line FROM pg_tables WHERE tablename LIKE 'debit%'"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(metodo || ':' || status, ',' ORDER BY metodo) AS line FROM charges"
        )
        .await,
        "DESCONTO EM FOLHA:aberta,DÉBITO EM CONTA:aberta"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, AUTHORIZATIONS).await, "p-1:001:ativa:abababab");
}
