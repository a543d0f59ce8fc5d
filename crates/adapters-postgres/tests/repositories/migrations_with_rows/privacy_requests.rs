//! Migration 49 records data-subject requests: on a database with a sale, up adds the record
//! (refusing an unknown kind, a deadline before the request and half an answer) and touches no
//! row; down drops the record alone; up again records once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const REQUEST: &str = "INSERT INTO privacy_requests (protocolo, cpf, tipo, canal, recebido_em, recebido_por, prazo) \
     VALUES ('2026112800000001', '52998224725', 'acesso', 'telefone', now(), 'bo@demo.com.br', now() + interval '15 days')";

const COUNTS: &str = "SELECT (SELECT count(*) FROM customers) || ':' || (SELECT count(*) FROM proposals) \
     || ':' || (SELECT count(*) FROM customer_requests) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn the_record_of_requests_comes_and_goes_with_the_migration_and_no_sale_moves() {
    let migration = MigrationRoundTrip::before("20261128000049").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let before = line(&mut conn, COUNTS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    conn.batch_execute(REQUEST).await.unwrap();
    for (bad, named) in [
        (REQUEST.replace("'acesso'", "'apagar'").replace("01'", "02'"), "tipo"),
        (
            REQUEST
                .replace("+ interval '15 days'", "- interval '1 day'")
                .replace("01'", "03'"),
            "check",
        ),
    ] {
        let refused = conn.batch_execute(&bad).await.unwrap_err().to_string();
        assert!(refused.contains(named), "{refused}");
    }
    let half = conn
        .batch_execute("UPDATE privacy_requests SET resposta = 'Respondido.' WHERE protocolo = '2026112800000001'")
        .await
        .unwrap_err()
        .to_string();
    assert!(half.contains("check"), "{half}");
    conn.batch_execute(
        "UPDATE privacy_requests SET resposta = 'Respondido.', respondido_em = now(), respondido_por = 'bo@demo.com.br'",
    )
    .await
    .unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT tipo || ':' || canal || ':' || resposta AS line FROM privacy_requests"
        )
        .await,
        "acesso:telefone:Respondido."
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    assert!(conn.batch_execute("SELECT 1 FROM privacy_requests").await.is_err());

    let mut conn = migration.up().await;
    conn.batch_execute(REQUEST).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM privacy_requests").await,
        "1"
    );
    assert_eq!(line(&mut conn, COUNTS).await, before);
}
