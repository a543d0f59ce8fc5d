//! Migration 23 adds the social name to the registration and to the proposal's copy: rows written
//! before it keep every value and read a null social name, the read model's documents are written
//! again to hold it (the check finds nothing to mend), and it goes down and up again with rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, revert_through};
use adapters_postgres::{PoolSettings, build_pool, check_read_model, migrations};
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

/// A partner's sale to "José da Conceição", written as the schema before migration 23 stores it.
const ROWS: &str = "
INSERT INTO products (codigo_produto, nome, codigo_integracao, alterado_por) VALUES (101, 'P1', 9101, 'x');
INSERT INTO billing_groups (codigo_faturamento, descricao, codigo_integracao, codigo_produto, alterado_por)
    VALUES (5001, 'M', 9101, 101, 'x');
INSERT INTO addresses (cep, endereco, numero, bairro, cidade, estado)
    VALUES ('01310100', 'Avenida Paulista', '1', 'Bela Vista', 'São Paulo', 'SP');
INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, alterado_por, id_endereco, aplicacao_vendedor)
    VALUES ('12345678909', 'José da Conceição', '1990-01-01', 'Masculino', 'x', (SELECT max(id) FROM addresses), 'ECOMMERCE');
INSERT INTO proposals (identificador, id_cliente, cpf_cliente, alterado_por, tipo_envio, fluxo, id_produto, codigo_faturamento)
    SELECT 'p-1', c.id, c.cpf, 'x', 'sms', 'ECOMMERCE', (SELECT id FROM products), 5001 FROM customers c;
INSERT INTO proposal_customers (id_proposta, id_cliente, cpf, nome_completo, data_nascimento, sexo, trabalhando,
                                servidor_publico, pep, afastado, medicamento, e_analfabeto, cep, endereco, numero,
                                bairro, cidade, estado, alterado_por, criado_em, alterado_em)
    SELECT p.id, c.id, c.cpf, c.nome_completo, c.data_nascimento, c.sexo, false, false, false, false, false, false,
           '01310100', 'Avenida Paulista', '1', 'Bela Vista', 'São Paulo', 'SP', 'x', now(), now()
    FROM proposals p JOIN customers c ON c.id = p.id_cliente;
";

#[derive(diesel::QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

async fn line(conn: &mut AsyncPgConnection, query: &str) -> String {
    diesel::sql_query(query).get_result::<Line>(conn).await.unwrap().line
}

const DOCUMENT_CUSTOMER: &str = "SELECT (documento -> 'customer')::text AS line FROM proposal_read_models";

#[tokio::test(flavor = "multi_thread")]
async fn the_social_name_is_added_to_rows_written_before_it_both_ways_and_the_documents_follow() {
    let db = TestDatabase::new().await;
    assert_eq!(
        revert_through(&db.url, "20261126000023").await.last().unwrap(),
        "20261126000023"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ROWS).await.unwrap();
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_social"));

    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT c.nome_completo || ' ' || coalesce(c.nome_social, 'sem nome social') || ' ' || pc.nome_completo \
             || ' ' || coalesce(pc.nome_social, 'sem nome social') AS line \
             FROM customers c JOIN proposal_customers pc ON pc.id_cliente = c.id"
        )
        .await,
        "José da Conceição sem nome social José da Conceição sem nome social"
    );
    assert!(
        line(&mut conn, DOCUMENT_CUSTOMER)
            .await
            .contains("\"nome_social\": null"),
        "the document was written again with the new column"
    );
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let report = check_read_model(&pool, false).await.unwrap();
    assert!(report.drifted.is_empty(), "{report:?}");
    assert_eq!(report.checked, 1);

    // The database keeps the bounds even for a write that skips the service.
    let refused = conn
        .batch_execute("UPDATE customers SET nome_social = 'J'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("customers_nome_social_length"), "{refused}");
    conn.batch_execute("UPDATE proposal_customers SET nome_social = 'Josefa Conceição'")
        .await
        .unwrap();
    assert!(line(&mut conn, DOCUMENT_CUSTOMER).await.contains("Josefa Conceição"));

    assert_eq!(
        revert_through(&db.url, "20261126000023").await.last().unwrap(),
        "20261126000023"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'nome_social'"
        )
        .await,
        "0"
    );
    assert!(!line(&mut conn, DOCUMENT_CUSTOMER).await.contains("nome_social"));
    assert_eq!(
        line(&mut conn, "SELECT nome_completo AS line FROM proposal_customers").await,
        "José da Conceição"
    );
    migrations::run_pending(&db.url).await.unwrap();
}
