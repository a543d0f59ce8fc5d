//! Migration 21 stores each proposal's normalised customer name for the list's search: rows
//! written before it get theirs when it runs, it goes down and up again with rows, and a name
//! correction stays one change in the history.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::migrations;
use adapters_postgres::testing::{TestDatabase, revert_through};
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

/// An online sale of "José da Conceição", written as the schema before migration 21 stores it.
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

const INDEX: &str = "SELECT indexdef AS line FROM pg_indexes WHERE indexname = 'proposal_customers_name_search_idx'";

#[tokio::test(flavor = "multi_thread")]
async fn the_search_name_is_stored_for_existing_rows_both_ways_and_stays_out_of_the_history() {
    let db = TestDatabase::new().await;
    assert_eq!(
        revert_through(&db.url, "20261125000021").await.last().unwrap(),
        "20261125000021"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ROWS).await.unwrap();
    assert!(line(&mut conn, INDEX).await.contains("search_text(nome_completo)"));

    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT nome_busca AS line FROM proposal_customers").await,
        "jose da conceicao",
        "a row written before the migration is searchable"
    );
    assert!(line(&mut conn, INDEX).await.contains("(nome_busca gin_trgm_ops)"));

    conn.batch_execute("UPDATE proposal_customers SET nome_completo = 'José da Conceição Lima', alterado_por = 'y'")
        .await
        .unwrap();
    assert_eq!(
        line(&mut conn, "SELECT nome_busca AS line FROM proposal_customers").await,
        "jose da conceicao lima",
        "the stored name follows a correction"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(key, ',') AS line FROM proposal_history, jsonb_object_keys(changes) AS key
             WHERE action = 'correcao'"
        )
        .await,
        "nome_completo",
        "a name correction is one change, not two"
    );
    // Inside an anonymisation the entry says so (the action stays the transaction's, migration 17).
    conn.batch_execute(
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao';
         UPDATE proposal_customers SET nome_completo = 'Titular anonimizado'; COMMIT;",
    )
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT action AS line FROM proposal_history WHERE changes ? 'nome_completo' ORDER BY id DESC LIMIT 1"
        )
        .await,
        "anonimizacao"
    );

    assert_eq!(
        revert_through(&db.url, "20261125000021").await.last().unwrap(),
        "20261125000021"
    );
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'nome_busca'"
        )
        .await,
        "0"
    );
    assert!(line(&mut conn, INDEX).await.contains("search_text(nome_completo)"));
    migrations::run_pending(&db.url).await.unwrap();
}
