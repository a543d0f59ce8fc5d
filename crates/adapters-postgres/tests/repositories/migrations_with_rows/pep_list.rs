//! Migration 77 keeps the CGU's PEP list in force and the record of its loads (issue 70): going
//! down sets both aside whole, and up again brings them back with their rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, line};
use diesel_async::SimpleAsyncConnection;

const LIST: &str =
    "SELECT string_agg(i.arquivo || ':' || e.cpf_meio || ':' || e.nome_chave || ':' || e.orgao, ',') AS line
     FROM kyc_pep_entries e JOIN kyc_pep_imports i ON i.id = e.id_importacao";

#[tokio::test(flavor = "multi_thread")]
async fn the_list_in_force_and_its_loads_survive_a_rollback() {
    let migration = MigrationRoundTrip::before("20261216000077").await;
    let _db = &migration.db;

    let mut conn = migration.up().await;
    conn.batch_execute(
        "INSERT INTO kyc_pep_imports (arquivo, sha256, linhas_lidas, pessoas, recusadas, importada_por)
         VALUES ('202611_PEP.csv', repeat('a', 64), 2, 1, 1, 'cli:kyc');
         INSERT INTO kyc_pep_entries (id_importacao, cpf_meio, nome, nome_chave, sigla_funcao, descricao_funcao,
                                      nivel_funcao, orgao, inicio_exercicio)
         SELECT id, '982247', 'JOSÉ DA SILVA', 'JOSE DA SILVA', 'DAS', 'DIRETOR', '6', 'MINISTÉRIO', '2020-02-01'
         FROM kyc_pep_imports",
    )
    .await
    .unwrap();
    let kept = line(&mut conn, LIST).await;
    assert_eq!(kept, "202611_PEP.csv:982247:JOSE DA SILVA:MINISTÉRIO");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename IN ('kyc_pep_entries', 'kyc_pep_imports')"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, LIST).await, kept);
    // The constraints came back with the tables: a malformed row is still refused.
    let refused = conn
        .batch_execute(
            "INSERT INTO kyc_pep_entries (id_importacao, cpf_meio, nome, nome_chave, sigla_funcao, descricao_funcao,
                                          nivel_funcao, orgao, inicio_exercicio)
             SELECT id, '98224', 'X', 'X', '', '', '', '', '2020-02-01' FROM kyc_pep_imports",
        )
        .await;
    assert!(refused.is_err());
}
