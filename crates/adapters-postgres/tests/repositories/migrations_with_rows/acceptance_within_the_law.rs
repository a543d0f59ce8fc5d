//! Migration 68 brings the acceptance within Lei 15.040/2024, art. 49 (decision 278): a product
//! decided by a person keeps its days as its analysts' target and is accepted by silence at 25; a
//! longer one is cut to 25; no more than one request for documents. An open clock silence did not
//! accept gets the law's deadline, 25 days from the receipt moved by the time it stood suspended,
//! its old deadline as the target. Going down gives back what each held; up again moves them alike.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

/// Product 101 decided by a person in 10 days with two suspensions, 102 given 90 days and ten,
/// 103 within the law. The proposal of 101 entered analysis 30 days ago, asked for documents
/// once (answered two days later), is overdue since its deadline at 12 days.
const BEFORE: &str = "
UPDATE products SET aceite_dias = 10, aceite_tacito = false, aceite_suspensoes = 2;
INSERT INTO products (codigo_produto, nome, codigo_integracao, alterado_por, aceite_dias, aceite_tacito, aceite_suspensoes)
    VALUES (102, 'P2', 9102, 'x', 90, true, 10), (103, 'P3', 9103, 'x', 15, true, 1);
UPDATE proposals SET status = 'EM ANÁLISE';
INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas, vencida_em)
    SELECT id, date_trunc('day', now()) - interval '30 days', date_trunc('day', now()) - interval '18 days', false, 2,
           date_trunc('day', now()) - interval '18 days'
    FROM proposals;
INSERT INTO proposal_pending_requests (id_proposta, itens, pedida_por, pedida_em, resposta, respondida_por, respondida_em)
    SELECT id, ARRAY['RG'], 'bo@x', date_trunc('day', now()) - interval '27 days', 'ok', 'rep@x',
           date_trunc('day', now()) - interval '25 days'
    FROM proposals;
";

/// Each product's policy: code, days, tacit, suspensions, target (`-`: none).
const POLICIES: &str = "SELECT string_agg(codigo_produto || ':' || aceite_dias || ':' || aceite_tacito || ':' || \
     aceite_suspensoes || ':' || coalesce(aceite_revisao_dias::text, '-'), ',' ORDER BY codigo_produto) AS line \
     FROM products";

/// The clock in days from its receipt: deadline, target, tacit, overdue, and whether its document
/// (which `migrate` builds again after the migrations) says the same deadline and target.
const CLOCK: &str = "SELECT extract(day FROM a.prazo_em - a.recebida_em) || ':' || \
     coalesce(extract(day FROM a.revisao_em - a.recebida_em)::text, '-') || ':' || a.tacito || ':' || \
     (a.vencida_em IS NOT NULL) || ':' || \
     ((d.documento -> 'acceptance' ->> 'prazo_em')::timestamptz = a.prazo_em \
      AND (d.documento -> 'acceptance' ->> 'revisao_em')::timestamptz = a.revisao_em) AS line \
     FROM proposal_acceptances a JOIN proposal_read_models d ON d.id_proposta = a.id_proposta";

#[tokio::test(flavor = "multi_thread")]
async fn products_and_open_clocks_come_within_the_law_and_go_back_down() {
    let migration = MigrationRoundTrip::before("20261210000068").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(BEFORE).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, POLICIES).await,
        "101:25:true:1:10,102:25:true:1:-,103:15:true:1:-"
    );
    assert_eq!(line(&mut conn, CLOCK).await, "27:12:true:true:true");
    for (statement, constraint) in [
        (
            "UPDATE products SET aceite_tacito = false",
            "products_aceite_tacito_lei",
        ),
        (
            "UPDATE products SET aceite_dias = 26, aceite_revisao_dias = NULL",
            "products_aceite_dias_range",
        ),
        (
            "UPDATE products SET aceite_suspensoes = 2",
            "products_aceite_suspensoes_range",
        ),
        (
            "UPDATE products SET aceite_revisao_dias = aceite_dias",
            "products_aceite_revisao_dias_range",
        ),
    ] {
        let refused = conn.batch_execute(statement).await.unwrap_err().to_string();
        assert!(refused.contains(constraint), "{statement}: {refused}");
    }

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(codigo_produto || ':' || aceite_dias || ':' || aceite_tacito || ':' || aceite_suspensoes, ',' \
             ORDER BY codigo_produto) AS line FROM products"
        )
        .await,
        "101:10:false:2,102:90:true:10,103:15:true:1"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT extract(day FROM prazo_em - recebida_em) || ':' || tacito || ':' || suspensoes_permitidas AS line \
             FROM proposal_acceptances"
        )
        .await,
        "12:false:2"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, POLICIES).await,
        "101:25:true:1:10,102:25:true:1:-,103:15:true:1:-"
    );
    assert_eq!(line(&mut conn, CLOCK).await, "27:12:true:true:true");
}
