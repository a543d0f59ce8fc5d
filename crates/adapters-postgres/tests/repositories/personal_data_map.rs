//! Every personal column is declared (issue 47): the map of where each category of personal data
//! is stored (`adapters_postgres::personal_data_map`) agrees with the migrated schema, column for
//! column, and no table whose columns look personal is left out of it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::personal_data_map::{NOT_PERSONAL_TABLES, STORED, stored_in};
use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PoolSettings, build_pool};
use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use domain::privacy::declarations::Category;
use std::collections::BTreeSet;

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
}

/// The columns of the schema's tables (partitions and their staging tables are their parent's).
async fn columns() -> Vec<(String, String)> {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let mut conn = pool.get().await.unwrap();
    let rows: Vec<Column> = diesel::sql_query(
        "SELECT c.table_name::text AS table_name, c.column_name::text AS column_name
         FROM information_schema.columns c
         JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = 'public'::regnamespace
         WHERE c.table_schema = 'public' AND k.relkind IN ('r', 'p') AND NOT k.relispartition
           AND c.table_name NOT LIKE '%\\_moving'
         ORDER BY 1, 2",
    )
    .load(&mut conn)
    .await
    .unwrap();
    rows.into_iter().map(|r| (r.table_name, r.column_name)).collect()
}

/// A column name that tells of a person: a CPF, a name, contact, an address, money, health, a
/// place or device, something written or sent.
fn looks_personal(column: &str) -> bool {
    [
        "cpf",
        "nome",
        "name",
        "email",
        "celular",
        "telefone",
        "endereco",
        "cep",
        "salario",
        "medicamento",
        "afastado",
        "conta",
        "agencia",
        "cartao",
        "folha",
        "latitude",
        "longitude",
        "user_agent",
        "motivo",
        "reason",
        "body",
        "object",
        "documento",
        "changes",
        "resposta",
        "nota",
        "conteudo",
        "pdf",
        "mae",
        "nascimento",
    ]
    .iter()
    .any(|fragment| column.contains(fragment))
        || column == "ip"
}

#[tokio::test(flavor = "multi_thread")]
async fn every_column_of_a_table_with_personal_data_is_declared_and_every_such_table_is_mapped() {
    let schema = columns().await;
    for stored in STORED {
        let actual: BTreeSet<&str> = schema
            .iter()
            .filter(|(t, _)| t == stored.table)
            .map(|(_, c)| c.as_str())
            .collect();
        assert!(!actual.is_empty(), "{} is mapped but not in the schema", stored.table);
        let declared: Vec<&str> = stored
            .personal
            .iter()
            .map(|(c, _)| *c)
            .chain(stored.other.iter().copied())
            .collect();
        let unique: BTreeSet<&str> = declared.iter().copied().collect();
        assert_eq!(
            unique.len(),
            declared.len(),
            "{}: a column declared twice",
            stored.table
        );
        let undeclared: Vec<&&str> = actual.difference(&unique).collect();
        assert!(
            undeclared.is_empty(),
            "{}: columns declared nowhere in personal_data_map.rs: {undeclared:?}",
            stored.table
        );
        let gone: Vec<&&str> = unique.difference(&actual).collect();
        assert!(
            gone.is_empty(),
            "{}: declared columns not in the schema: {gone:?}",
            stored.table
        );
        for (column, categories) in stored.personal {
            assert!(!categories.is_empty(), "{}.{column} holds no category", stored.table);
        }
    }
    let mapped: BTreeSet<&str> = STORED
        .iter()
        .map(|s| s.table)
        .chain(NOT_PERSONAL_TABLES.iter().map(|(t, _)| *t))
        .collect();
    let unmapped: BTreeSet<String> = schema
        .iter()
        .filter(|(t, c)| looks_personal(c) && !mapped.contains(t.as_str()))
        .map(|(t, c)| format!("{t}.{c}"))
        .collect();
    assert!(
        unmapped.is_empty(),
        "columns that look personal in tables personal_data_map.rs does not map: {unmapped:?}"
    );
}

#[test]
fn health_data_is_stored_where_the_map_says_and_every_category_is_stored_somewhere() {
    let health = stored_in(Category::Health);
    for place in [
        "customers.medicamento",
        "customers.medicamento_descricao",
        "customers.afastado",
        "proposal_customers.medicamento",
        "proposal_read_models.documento",
    ] {
        assert!(health.contains(&place.to_owned()), "{place} not in {health:?}");
    }
    for category in Category::ALL {
        assert!(!stored_in(category).is_empty(), "{category:?} is stored nowhere");
    }
}
