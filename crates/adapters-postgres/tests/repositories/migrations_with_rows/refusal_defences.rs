//! Migration 76 keeps refused proposals' defences apart (decision 290). They are the only copy
//! left of what they hold once the proposal's data went: going down sets the table aside, and up
//! again brings it back with its rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const DEFENCES: &str = "SELECT string_agg(identificador || ':' || motivo || ':' || (declaracao ->> 'medicamento_descricao'), ',') \
     AS line FROM refusal_defences";

#[tokio::test(flavor = "multi_thread")]
async fn the_defences_survive_a_rollback() {
    let migration = MigrationRoundTrip::before("20261215000076").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();

    let mut conn = migration.up().await;
    conn.batch_execute(
        "INSERT INTO refusal_defences (id_proposta, identificador, cpf_tag, recusada_em, motivo, categoria_motivo,
                                       declaracao, guardada_em, guardada_por, apagar_em)
         SELECT id, identificador, '\\x01', now(), 'usa Losartana', 'saude',
                '{\"medicamento_descricao\": \"Losartana\"}', now(), 'sistema:retencao', now() + interval '5 years'
         FROM proposals",
    )
    .await
    .unwrap();
    let kept = line(&mut conn, DEFENCES).await;
    assert!(kept.ends_with(":usa Losartana:Losartana"), "{kept}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = 'refusal_defences'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, DEFENCES).await, kept);
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = '__refusal_defences_before_rollback'"
        )
        .await,
        "0"
    );
}
