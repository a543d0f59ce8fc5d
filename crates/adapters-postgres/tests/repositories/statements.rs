//! Every hand-written statement checked against the migrated schema (issue 66, decision 260):
//! each one the adapter declares with `statement!` is prepared, and the row type that reads its
//! answer reads exactly its columns, of types it can read. The check itself is shown to fail on
//! the three ways a statement and its row type drift apart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{Declared, TestDatabase, check_statements, declared, read_rows};
use diesel::QueryableByName;
use diesel::sql_types::{Int4, Int8, Text};

#[tokio::test]
async fn every_declared_statement_prepares_and_its_row_type_reads_exactly_its_answer() {
    let db = TestDatabase::new().await;
    let statements: Vec<&Declared> = declared().collect();
    // The registry holds the adapter's statements (over 120 when this was written): an empty
    // or half-linked registry would make the check below pass for nothing.
    assert!(
        statements.len() >= 120,
        "só {} instruções registradas",
        statements.len()
    );
    assert!(
        statements.iter().filter(|s| s.reads.is_some()).count() >= 40,
        "poucas instruções com tipo de linha"
    );
    let problems = check_statements(&db.url, statements).await;
    assert!(
        problems.is_empty(),
        "instruções em desacordo com o esquema:\n{}",
        problems.join("\n")
    );
}

#[derive(QueryableByName)]
#[allow(dead_code)]
struct NameOnly {
    #[diesel(sql_type = Text)]
    nome: String,
}

#[derive(QueryableByName)]
#[allow(dead_code)]
struct CodeAsInt4 {
    #[diesel(sql_type = Int4)]
    codigo_produto: i32,
}

#[derive(QueryableByName)]
#[allow(dead_code)]
struct NameAndMissing {
    #[diesel(sql_type = Text)]
    nome: String,
    #[diesel(sql_type = Int8)]
    nao_existe: i64,
}

#[tokio::test]
async fn the_check_names_a_refused_statement_an_unread_column_a_missing_one_and_a_wrong_type() {
    let db = TestDatabase::new().await;
    let statements = [
        Declared {
            name: "teste::TABELA_INEXISTENTE",
            sql: "SELECT nome FROM tabela_que_nao_existe",
            reads: None,
        },
        Declared {
            name: "teste::COLUNA_A_MAIS",
            sql: "SELECT nome, codigo_produto FROM products WHERE id = $1",
            reads: Some(("NameOnly", read_rows::<NameOnly>)),
        },
        Declared {
            name: "teste::COLUNA_A_MENOS",
            sql: "SELECT nome FROM products",
            reads: Some(("NameAndMissing", read_rows::<NameAndMissing>)),
        },
        Declared {
            name: "teste::TIPO_ERRADO",
            sql: "SELECT codigo_produto::int8 AS codigo_produto FROM products",
            reads: Some(("CodeAsInt4", read_rows::<CodeAsInt4>)),
        },
        Declared {
            name: "teste::CERTA",
            sql: "SELECT nome FROM products WHERE id = $1",
            reads: Some(("NameOnly", read_rows::<NameOnly>)),
        },
    ];
    let problems = check_statements(&db.url, &statements).await;
    let named = |name: &str| problems.iter().filter(|p| p.starts_with(name)).count();
    assert_eq!(named("teste::TABELA_INEXISTENTE"), 1, "{problems:#?}");
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("teste::COLUNA_A_MAIS") && p.contains("codigo_produto")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("teste::COLUNA_A_MENOS") && p.contains("nao_existe")),
        "{problems:#?}"
    );
    assert_eq!(named("teste::TIPO_ERRADO"), 1, "{problems:#?}");
    assert_eq!(named("teste::CERTA"), 0, "{problems:#?}");
    assert_eq!(problems.len(), 4, "{problems:#?}");
}
