//! Migration 75 sends requests for documents to whoever answers them (decision 289): the requests
//! made before it were the seller's (`documentacao`, `vendedor`), and every product leaves its
//! documentation to its sellers; a request for the proponent carries its link's digest. Going
//! down keeps aside the requests that were not the seller's and the products that keep
//! documentation from their sellers; up again brings them back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const REQUESTS: &str = "SELECT string_agg(nota || ':' || categoria_motivo || ':' || destinatario \
     || ':' || coalesce(link_sha256, '-') || ':' || coalesce(link_enviado_para, '-'), ',' ORDER BY id) AS line \
     FROM proposal_pending_requests";
const PRODUCTS: &str = "SELECT string_agg(codigo_produto || '=' || aceite_documentos_vendedor, ',' \
     ORDER BY codigo_produto) AS line FROM products";

const A_REQUEST: &str = "INSERT INTO proposal_pending_requests (id_proposta, itens, nota, pedida_por, pedida_em)
    SELECT id, ARRAY['Comprovante de residência'], 'antes', 'bo@x', now() FROM proposals;";

#[tokio::test(flavor = "multi_thread")]
async fn requests_made_before_were_the_sellers_and_a_rollback_keeps_who_answers_each() {
    let migration = MigrationRoundTrip::before("20261215000075").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(A_REQUEST).await.unwrap();
    let product = line(&mut conn, "SELECT min(codigo_produto)::text AS line FROM products").await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, REQUESTS).await, "antes:documentacao:vendedor:-:-");
    assert!(line(&mut conn, PRODUCTS).await.contains(&format!("{product}=true")));
    // A proponent's request carries its link; one without is refused.
    let refused = conn
        .batch_execute(
            "INSERT INTO proposal_pending_requests (id_proposta, itens, nota, pedida_por, pedida_em, destinatario)
             SELECT id, ARRAY['Laudo'], 'sem link', 'bo@x', now(), 'proponente' FROM proposals",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("proposal_pending_requests_link"), "{refused}");
    conn.batch_execute(&format!(
        "UPDATE proposal_pending_requests SET resposta = 'segue', respondida_por = 'rep@x', respondida_em = now();
         INSERT INTO proposal_pending_requests
             (id_proposta, itens, nota, pedida_por, pedida_em, categoria_motivo, destinatario, link_sha256, link_enviado_para)
         SELECT id, ARRAY['Laudo'], 'depois', 'bo@x', now(), 'saude', 'proponente', 'ab12', 'm***@exemplo.com.br'
           FROM proposals;
         UPDATE products SET aceite_documentos_vendedor = false WHERE codigo_produto = {product};"
    ))
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns
             WHERE (table_name = 'proposal_pending_requests' AND column_name IN ('categoria_motivo', 'destinatario', 'link_sha256'))
                OR (table_name = 'products' AND column_name = 'aceite_documentos_vendedor')"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(nota, ',' ORDER BY id) AS line FROM proposal_pending_requests"
        )
        .await,
        "antes,depois",
        "the requests stay"
    );

    let mut conn = migration.up().await;
    assert_eq!(
        line(&mut conn, REQUESTS).await,
        "antes:documentacao:vendedor:-:-,depois:saude:proponente:ab12:m***@exemplo.com.br"
    );
    assert!(line(&mut conn, PRODUCTS).await.contains(&format!("{product}=false")));
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables
             WHERE tablename IN ('__pending_recipients_before_rollback', '__seller_documents_before_rollback')"
        )
        .await,
        "0"
    );
}
