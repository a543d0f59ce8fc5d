//! Migration 45 lets a clock in analysis be assigned to an analyst: the clocks written before it
//! read as unassigned; an assignment and a request for documents write their history's entries;
//! going down forgets the assignments (and the triggers reading them) and keeps the clocks and the
//! requests; up again assigns once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const CLOCK: &str = "INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas) \
     SELECT id, now(), now() + interval '15 days', true, 1 FROM proposals";

const ASSIGN: &str = "UPDATE proposal_acceptances \
     SET analista = 'ana@demo.com.br', atribuida_por = 'bo@demo.com.br', atribuida_em = now()";

const REQUEST: &str = "INSERT INTO proposal_pending_requests (id_proposta, itens, pedida_por, pedida_em) \
     SELECT id, ARRAY['RG'], 'bo@demo.com.br', now() FROM proposals";

const HISTORY: &str = "SELECT coalesce(string_agg(action || ':' || changes::text, ',' ORDER BY id), '-') AS line \
     FROM proposal_history WHERE action IN ('atribuicao', 'pendencia', 'pendencia_resposta')";

#[tokio::test(flavor = "multi_thread")]
async fn an_assignment_comes_and_goes_and_the_clocks_and_requests_stay() {
    let migration = MigrationRoundTrip::before("20261128000045").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(CLOCK).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT coalesce(analista, '-') AS line FROM proposal_acceptances"
        )
        .await,
        "-"
    );
    conn.batch_execute(ASSIGN).await.unwrap();
    conn.batch_execute(REQUEST).await.unwrap();
    conn.batch_execute(
        "UPDATE proposal_pending_requests SET resposta = 'ok', respondida_por = 'rep', respondida_em = now()",
    )
    .await
    .unwrap();
    let history = line(&mut conn, HISTORY).await;
    assert!(
        history.starts_with(
            r#"atribuicao:{"analista": {"to": "ana@demo.com.br", "from": null}},pendencia:{"itens": {"to": ["RG"], "from": null}},pendencia_resposta:{"pedido": {"to": "#
        ),
        "{history}"
    );
    // Who assigned goes with when.
    let refused = conn
        .batch_execute("UPDATE proposal_acceptances SET atribuida_por = NULL")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("proposal_acceptances_assignment"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT (SELECT count(*) FROM proposal_acceptances) || ':' || (SELECT count(*) FROM proposal_pending_requests) \
             || ':' || (SELECT count(*) FROM information_schema.columns \
                        WHERE table_name = 'proposal_acceptances' AND column_name = 'analista') AS line"
        )
        .await,
        "1:1:0"
    );
    // Without the triggers, a clock and a request still change.
    conn.batch_execute("UPDATE proposal_acceptances SET suspensa_desde = now()")
        .await
        .unwrap();
    conn.batch_execute("DELETE FROM proposal_pending_requests")
        .await
        .unwrap();
    conn.batch_execute(REQUEST).await.unwrap();

    let mut conn = migration.up().await;
    conn.batch_execute(ASSIGN).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT analista AS line FROM proposal_acceptances").await,
        "ana@demo.com.br"
    );
}
