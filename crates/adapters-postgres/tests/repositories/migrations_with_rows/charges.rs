//! Migration 51 adds the products' dunning policies, the contracts' billings and their charges,
//! and the kind `COBRANCA_ALTERADA`: a partner's contract accepted before it starts its billing
//! (first due 10 days from the migration's Brasília day, its document marked to be built again),
//! a card sale does not; going down drops the billings and charges and what holds the new kind,
//! the proposals as they were; up again starts the billing once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line, one_partner_contract};
use diesel_async::SimpleAsyncConnection;

const BILLINGS: &str = "SELECT coalesce(string_agg(p.identificador || ':' || b.metodo || ':' || b.valor || ':' || b.situacao \
     || ':' || (b.primeiro_vencimento - (now() AT TIME ZONE 'America/Sao_Paulo')::date) \
     || ':' || array_to_string(b.retentativas_dias, '+') || ':' || b.carencia_dias || ':' || b.suspensao_dias, ',' \
     ORDER BY p.identificador), '-') AS line \
     FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_partner_contract_starts_its_billing_both_ways() {
    let migration = MigrationRoundTrip::before("20261128000051").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(&one_partner_contract("DESCONTO EM FOLHA"))
        .await
        .unwrap();
    // p-1 becomes a partner's contract paid by payroll discount; p-2, an accepted card sale.
    conn.batch_execute(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto,
                                codigo_faturamento, status)
         SELECT 'p-2', id_cliente, cpf_cliente, 'x', 'sms', 'ECOMMERCE', id_produto, codigo_faturamento, 'APROVADO'
         FROM proposals;
         INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed,
                                         created_at, updated_at)
         VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', 'https://a.example', ARRAY['ALTERAÇÃO_STATUS'], 'ATIVO', '\\x00',
                 now(), now());",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, BILLINGS).await,
        "p-1:DESCONTO EM FOLHA:3990:em_dia:10:1+3+5:5:30"
    );
    // Its document was marked and `migrate` built it again: it shows the billing.
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(identificador || ':' || coalesce(documento -> 'billing' ->> 'situacao', '-'), ',' \
             ORDER BY identificador) AS line FROM proposal_read_models"
        )
        .await,
        "p-1:em_dia"
    );
    conn.batch_execute(
        "INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, criada_em, alterada_em, alterada_por)
         SELECT id_proposta, 1, primeiro_vencimento, valor, metodo, now(), now(), 'x' FROM contract_billings;
         INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed,
                                         created_at, updated_at)
         VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', 'https://b.example', ARRAY['COBRANCA_ALTERADA'], 'ATIVO', '\\x00',
                 now(), now());",
    )
    .await
    .unwrap();
    let refused = conn
        .batch_execute(
            "INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, criada_em, alterada_em, alterada_por)
             SELECT id_proposta, 1, primeiro_vencimento, valor, metodo, now(), now(), 'x' FROM contract_billings",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("charges_once_per_period"), "{refused}");
    let refused = conn
        .batch_execute("UPDATE products SET cobranca_suspensao_dias = cobranca_carencia_dias")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("products_cobranca_suspensao"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT (SELECT count(*) FROM pg_tables WHERE tablename IN ('charges', 'contract_billings'))
                  + (SELECT count(*) FROM information_schema.columns WHERE table_name = 'products'
                     AND column_name LIKE 'cobranca%') || '' AS line"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(identificador || ':' || status || ':' || fluxo, ',' ORDER BY identificador) AS line FROM proposals"
        )
        .await,
        "p-1:APROVADO:PARCEIRO,p-2:APROVADO:ECOMMERCE"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(endpoint, ',') AS line FROM hook_subscriptions"
        )
        .await,
        "https://a.example"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, BILLINGS).await,
        "p-1:DESCONTO EM FOLHA:3990:em_dia:10:1+3+5:5:30"
    );
}
