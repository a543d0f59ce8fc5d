//! Migration 40 adds the acceptance clock (issue 45): the products written before it take the
//! default policy (15 days, tacit, one suspension), a proposal already in analysis gets its clock
//! (received when it entered `EM ANÁLISE`, its deadline counted from the migration so that nothing
//! is accepted by silence on deploy) and its document shows it; going down removes the clocks and
//! the member of the documents, and up again writes them once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use adapters_postgres::{PoolSettings, build_pool, check_read_model};
use diesel_async::SimpleAsyncConnection;

const CLOCK: &str = "SELECT (p.identificador || ' ' || (a.recebida_em = now() - interval '20 days')::text || ' ' \
     || (a.prazo_em - now() BETWEEN interval '14 days 23 hours' AND interval '15 days')::text || ' ' \
     || a.tacito::text || ' ' || a.suspensoes_permitidas::text || ' ' \
     || coalesce(a.decidida_em::text, 'aberto')) AS line \
     FROM proposal_acceptances a JOIN proposals p ON p.id = a.id_proposta";
const POLICY: &str =
    "SELECT string_agg(aceite_dias || '/' || aceite_tacito || '/' || aceite_suspensoes, ',') AS line FROM products";
const DOCUMENT_HAS_CLOCK: &str =
    "SELECT coalesce(string_agg((documento ? 'acceptance')::text, ','), 'nenhum') AS line FROM proposal_read_models";

#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_in_analysis_before_the_migration_gets_its_clock_both_ways() {
    let migration = MigrationRoundTrip::before("20261128000040").await;
    let mut conn = migration.connect().await;
    // In analysis for 20 days (its event says when it entered), with a document written in the
    // same transaction (so the guard leaves it unmarked): only the migration's own mark makes
    // `migrate` build it again with its clock. (The service's build reads 000040's tables, so a
    // document of the schema before it is written here by SQL.)
    conn.batch_execute(&format!(
        "BEGIN; {ONE_SHOP_SALE}
         UPDATE proposals SET status = 'EM ANÁLISE';
         INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence)
         SELECT id, 'ALTERAÇÃO_STATUS', 'NOVO', 'EM ANÁLISE', 'x', now() - interval '20 days', 1 FROM proposals;
         INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento)
         SELECT id, identificador, fluxo, id_parceiro, '{{}}' FROM proposals;
         COMMIT;"
    ))
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM proposal_read_model_stale"
        )
        .await,
        "0"
    );
    let pool = build_pool(&PoolSettings::new(&migration.db.url)).unwrap();

    // `migrate` runs in one transaction per migration: now() is the migration's; the test reads
    // in later transactions, so the clock's times are compared within a margin.
    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, POLICY).await, "15/true/1");
    let clock = line(
        &mut conn,
        "SELECT (p.identificador || ' ' \
         || (abs(extract(epoch FROM a.recebida_em - (now() - interval '20 days'))) < 120)::text || ' ' \
         || (a.prazo_em - now() BETWEEN interval '14 days 23 hours' AND interval '15 days')::text || ' ' \
         || a.tacito::text || ' ' || a.suspensoes_permitidas::text || ' ' \
         || coalesce(a.decidida_em::text, 'aberto')) AS line \
         FROM proposal_acceptances a JOIN proposals p ON p.id = a.id_proposta",
    )
    .await;
    assert_eq!(clock, "p-1 true true true 1 aberto");
    assert_eq!(
        line(&mut conn, DOCUMENT_HAS_CLOCK).await,
        "true",
        "migrate wrote the marked document"
    );
    let report = check_read_model(&pool, false).await.unwrap();
    assert_eq!((report.checked, report.drifted.len()), (1, 0), "{report:?}");
    let refused = conn
        .batch_execute("UPDATE products SET aceite_dias = 0")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("products_aceite_dias_range"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, DOCUMENT_HAS_CLOCK).await, "false");
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.tables WHERE table_name LIKE 'proposal_acceptances'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CLOCK).await.split(' ').count(), 6);
    assert_eq!(line(&mut conn, DOCUMENT_HAS_CLOCK).await, "true");
    assert_eq!((check_read_model(&pool, false).await.unwrap().drifted.len()), 0);
}
