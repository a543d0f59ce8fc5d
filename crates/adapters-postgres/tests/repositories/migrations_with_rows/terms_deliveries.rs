//! Migration 44 keeps the online shop's terms beside the certificates, each row by its kind: a
//! certificate written before it reads as one; going down forgets the terms' records and keeps the
//! certificates; up again takes terms once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const ROWS: &str = "SELECT coalesce(string_agg(p.identificador || ':' || c.tipo, ',' ORDER BY c.tipo), '-') AS line \
     FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta";

const TERMS: &str =
    "INSERT INTO proposal_certificates (id_proposta, tipo, aceita_em) SELECT id, 'termos', now() FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn the_terms_sit_beside_the_certificate_both_ways() {
    let migration = MigrationRoundTrip::before("20261128000044").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute("INSERT INTO proposal_certificates (id_proposta, aceita_em) SELECT id, now() FROM proposals")
        .await
        .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, "p-1:certificado");
    conn.batch_execute(TERMS).await.unwrap();
    assert_eq!(line(&mut conn, ROWS).await, "p-1:certificado,p-1:termos");
    let refused = conn.batch_execute(TERMS).await.unwrap_err().to_string();
    assert!(
        refused.contains("proposal_certificates_pkey"),
        "one of each kind: {refused}"
    );
    let refused = conn
        .batch_execute("UPDATE proposal_certificates SET tipo = 'outro' WHERE tipo = 'termos'")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("proposal_certificates_tipo"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*) || ':' || (SELECT count(*) FROM information_schema.columns \
             WHERE table_name = 'proposal_certificates' AND column_name = 'tipo') AS line FROM proposal_certificates"
        )
        .await,
        "1:0"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, ROWS).await, "p-1:certificado");
    conn.batch_execute(TERMS).await.unwrap();
}
