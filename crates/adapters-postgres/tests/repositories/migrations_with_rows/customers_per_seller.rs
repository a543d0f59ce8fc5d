//! Migration 9 splits the one customer row per CPF into one registration per seller, gives every
//! proposal its own copy of the customer, and its reversal merges them back. Rows written under
//! the old schema are carried both ways.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, lines};
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

/// A customer shared by two partners under the old schema: partner A's open proposal, partner
/// B's cancelled one, and the shop's approved e-commerce sale with its subscription.
const LEGACY_ROWS: &str = "
INSERT INTO partners (cpf_cnpj, social_reason, alterado_por) VALUES ('11222333000181', 'A', 'x'), ('11444777000161', 'B', 'x');
INSERT INTO banks VALUES ('001', 'BB') ON CONFLICT DO NOTHING;
INSERT INTO products (codigo_produto, nome, codigo_integracao, alterado_por) VALUES (101, 'P1', 9101, 'x');
INSERT INTO billing_groups (codigo_faturamento, descricao, codigo_integracao, codigo_produto, alterado_por) VALUES (5001, 'M', 9101, 101, 'x');
INSERT INTO users (email, password_hash) VALUES ('r1@x', 'h'), ('r2@x', 'h');
INSERT INTO representatives (user_id, partner_id) SELECT u.id, p.id FROM users u, partners p
    WHERE (u.email, p.cpf_cnpj) IN (('r1@x', '11222333000181'), ('r2@x', '11444777000161'));
INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado) VALUES ('01310100', 'Avenida Paulista', '1', 'B', 'C', 'SP');
INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, celular, alterado_por, id_endereco, medicamento_descricao, ecommerce_customer_id)
    VALUES ('12345678909', 'Maria da Silva', '1990-01-01', 'Feminino', '11912345678', 'x', (SELECT max(id) FROM addresses), 'Losartana', 'cus_1');
INSERT INTO customer_partners SELECT c.id, p.id FROM customers c, partners p;
INSERT INTO proposals (identificador, id_parceiro, id_representante, id_cliente, cpf_cnpj_parceiro, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento)
    SELECT 'p-a', p.id, r.id, c.id, p.cpf_cnpj, 'x', 'sms', 'PARCEIRO', (SELECT id FROM products), 5001
    FROM customers c, partners p JOIN representatives r ON r.partner_id = p.id WHERE p.cpf_cnpj = '11222333000181';
INSERT INTO proposals (identificador, id_parceiro, id_representante, id_cliente, cpf_cnpj_parceiro, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento, status)
    SELECT 'p-b', p.id, r.id, c.id, p.cpf_cnpj, 'x', 'sms', 'PARCEIRO', (SELECT id FROM products), 5001, 'CANCELADO'
    FROM customers c, partners p JOIN representatives r ON r.partner_id = p.id WHERE p.cpf_cnpj = '11444777000161';
INSERT INTO proposals (identificador, id_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento, status)
    SELECT 'p-e', c.id, 'x', 'sms', 'ECOMMERCE', (SELECT id FROM products), 5001, 'APROVADO' FROM customers c;
INSERT INTO subscriptions (proposal_id, customer_id, product_id, status)
    SELECT p.id, p.id_cliente, p.id_produto, 'active' FROM proposals p WHERE identificador = 'p-e';
";

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = Nullable<Text>)]
    _unused: Option<String>,
}

async fn count(conn: &mut AsyncPgConnection, query: &str) -> i64 {
    diesel::sql_query(format!("SELECT ({query}) AS n, NULL::text AS _unused"))
        .get_result::<Count>(conn)
        .await
        .unwrap()
        .n
}

const SPLIT: &str = "20261122000009";

#[tokio::test(flavor = "multi_thread")]
async fn a_shared_customer_becomes_one_registration_per_seller_and_back() {
    let migration = MigrationRoundTrip::before(SPLIT).await;
    let mut conn = migration.connect().await;
    conn.batch_execute(LEGACY_ROWS).await.unwrap();

    migration.up().await;
    // One registration per seller, the shop's keeping the original row and its platform links.
    assert_eq!(
        lines(
            &mut conn,
            "SELECT c.aplicacao_vendedor || ' ' || coalesce(p.cpf_cnpj, '-') || ' ' || coalesce(c.ecommerce_customer_id, '-') \
             || ' ' || c.medicamento_descricao || ' ' || (c.id_endereco IS NOT NULL) AS line \
             FROM customers c LEFT JOIN partners p ON p.id = c.id_parceiro_vendedor ORDER BY c.id"
        )
        .await,
        [
            "ECOMMERCE - cus_1 Losartana true",
            "PARCEIRO 11222333000181 - Losartana true",
            "PARCEIRO 11444777000161 - Losartana true",
        ]
    );
    assert_eq!(
        count(&mut conn, "SELECT count(DISTINCT id_endereco) FROM customers").await,
        3
    );
    // Each proposal moved to its seller's registration, with its own copy of the customer.
    assert_eq!(
        lines(
            &mut conn,
            "SELECT p.identificador || ' ' || c.aplicacao_vendedor || ' ' || coalesce(pa.cpf_cnpj, '-') || ' ' \
             || pc.nome_completo || ' ' || pc.endereco || ' ' || p.cpf_cliente AS line \
             FROM proposals p JOIN customers c ON c.id = p.id_cliente LEFT JOIN partners pa ON pa.id = c.id_parceiro_vendedor \
             JOIN proposal_customers pc ON pc.id_proposta = p.id AND pc.id_cliente = c.id ORDER BY p.identificador"
        )
        .await,
        [
            "p-a PARCEIRO 11222333000181 Maria da Silva Avenida Paulista 12345678909",
            "p-b PARCEIRO 11444777000161 Maria da Silva Avenida Paulista 12345678909",
            "p-e ECOMMERCE - Maria da Silva Avenida Paulista 12345678909",
        ]
    );
    assert_eq!(
        count(
            &mut conn,
            "SELECT count(*) FROM subscriptions s JOIN customers c ON c.id = s.customer_id WHERE c.aplicacao_vendedor = 'ECOMMERCE'"
        )
        .await,
        1
    );

    // A seller's later change stays in its own registration...
    conn.batch_execute(
        "UPDATE customers SET nome_completo = 'Maria B', alterado_em = now() + interval '1 hour' \
         WHERE id_parceiro_vendedor = (SELECT id FROM partners WHERE cpf_cnpj = '11444777000161')",
    )
    .await
    .unwrap();
    // ...and the reversal merges the registrations into the one with the platform links.
    migration.down().await;
    assert_eq!(
        lines(
            &mut conn,
            "SELECT id || ' ' || nome_completo || ' ' || ecommerce_customer_id AS line FROM customers"
        )
        .await,
        ["1 Maria da Silva cus_1"]
    );
    assert_eq!(
        count(&mut conn, "SELECT count(DISTINCT id_cliente) FROM proposals").await,
        1
    );
    assert_eq!(count(&mut conn, "SELECT count(*) FROM customer_partners").await, 2);
    assert_eq!(count(&mut conn, "SELECT count(*) FROM addresses").await, 1);
    assert_eq!(
        count(&mut conn, "SELECT count(*) FROM subscriptions WHERE customer_id = 1").await,
        1
    );

    // And up again, on the merged data.
    migration.up().await;
    assert_eq!(count(&mut conn, "SELECT count(*) FROM customers").await, 3);
    assert_eq!(count(&mut conn, "SELECT count(*) FROM proposal_customers").await, 3);
}
