//! Migration 46 blocks a person's data under a legal hold: the documents written before it read as
//! unblocked; a block refuses any new registration or proposal of its CPF (and no other); going
//! down forgets the blocks and the refusal, keeping every row; up again blocks once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const DOCUMENT: &str = "INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento) \
     SELECT id, identificador, fluxo, id_parceiro, '{}'::jsonb FROM proposals";

const BLOCK: &str = "INSERT INTO personal_data_blocks (cpf, base, retido_ate, bloqueado_por) \
     VALUES ('12345678909', 'LGPD art. 16, I', NULL, 'bo@demo.com.br'); \
     UPDATE proposal_read_models SET bloqueado = true";

/// A second registration of the customer, by a partner.
const REGISTER_AGAIN: &str = "INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, alterado_por, aplicacao_vendedor, \
     id_parceiro_vendedor) SELECT '12345678909', 'José da Conceição', '1990-01-01', 'Masculino', 'x', 'PARCEIRO', id FROM partners";

const COUNTS: &str = "SELECT (SELECT count(*) FROM customers) || ':' || (SELECT count(*) FROM proposals) \
     || ':' || (SELECT count(*) FROM proposal_read_models) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn a_block_refuses_new_uses_of_its_cpf_and_comes_and_goes_with_the_migration() {
    let migration = MigrationRoundTrip::before("20261128000046").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(DOCUMENT).await.unwrap();
    conn.batch_execute(
        "INSERT INTO partners (cpf_cnpj, social_reason, alterado_por) VALUES ('11222333000181', 'P', 'x')",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, "SELECT bloqueado::text AS line FROM proposal_read_models").await,
        "false"
    );
    conn.batch_execute(BLOCK).await.unwrap();
    let refused = conn.batch_execute(REGISTER_AGAIN).await.unwrap_err().to_string();
    assert!(refused.contains("bloqueados por retenção legal"), "{refused}");
    let refused = conn
        .batch_execute(
            "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento) \
             SELECT 'p-2', id, cpf, 'x', 'sms', 'ECOMMERCE', (SELECT id FROM products), 5001 FROM customers",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("bloqueados por retenção legal"), "{refused}");
    // Another CPF is anyone's.
    conn.batch_execute(&REGISTER_AGAIN.replace("12345678909", "52998224725"))
        .await
        .unwrap();
    assert_eq!(line(&mut conn, COUNTS).await, "2:1:1");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, COUNTS).await, "2:1:1");
    conn.batch_execute(REGISTER_AGAIN).await.unwrap();
    conn.batch_execute("DELETE FROM customers WHERE aplicacao_vendedor = 'PARCEIRO'")
        .await
        .unwrap();

    let mut conn = migration.up().await;
    conn.batch_execute(BLOCK).await.unwrap();
    assert!(conn.batch_execute(REGISTER_AGAIN).await.is_err());
    assert_eq!(
        line(&mut conn, "SELECT bloqueado::text AS line FROM proposal_read_models").await,
        "true"
    );
}
