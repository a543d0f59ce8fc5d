//! Migration 78 keeps the screening's records (issue 70): the CPF statuses kept, development's
//! answers and each proposal's due diligence. Going down sets the three aside whole, and up again
//! brings them back with their rows and their rules.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const KEPT: &str = "SELECT concat_ws(',',
        (SELECT string_agg(cpf || ':' || situacao, ';') FROM kyc_cpf_status),
        (SELECT string_agg(cpf || ':' || resposta, ';') FROM kyc_sandbox_cpf_status),
        (SELECT string_agg(id_proposta || ':' || pep || ':' || situacao || ':' || (motivos -> 0 ->> 'codigo'), ';')
         FROM proposal_kyc)) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn the_screenings_records_survive_a_rollback() {
    let migration = MigrationRoundTrip::before("20261217000078").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();

    let mut conn = migration.up().await;
    conn.batch_execute(
        "INSERT INTO kyc_cpf_status (cpf, situacao, consultado_em) VALUES ('52998224725', 'REGULAR', now());
         INSERT INTO kyc_sandbox_cpf_status (cpf, resposta) VALUES ('11144477735', 'INDISPONIVEL');
         INSERT INTO proposal_kyc (id_proposta, pep, situacao, motivos, criada_em)
             SELECT id, true, 'pendente', '[{\"codigo\": \"pep_lista\", \"detalhe\": \"DEPUTADO\"}]', now() FROM proposals",
    )
    .await
    .unwrap();
    let kept = line(&mut conn, KEPT).await;
    assert!(
        kept.starts_with("52998224725:REGULAR,11144477735:INDISPONIVEL,"),
        "{kept}"
    );
    assert!(kept.ends_with(":true:pendente:pep_lista"), "{kept}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables
             WHERE tablename IN ('kyc_cpf_status', 'kyc_sandbox_cpf_status', 'proposal_kyc')"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, KEPT).await, kept);
    // The rules came back with the tables: a decision without its author, a status the Receita
    // does not have, are still refused.
    for refused in [
        "UPDATE proposal_kyc SET situacao = 'aprovada', decidida_em = now()",
        "INSERT INTO kyc_cpf_status (cpf, situacao, consultado_em) VALUES ('11144477735', 'ATIVO', now())",
    ] {
        assert!(conn.batch_execute(refused).await.is_err(), "{refused}");
    }
}
