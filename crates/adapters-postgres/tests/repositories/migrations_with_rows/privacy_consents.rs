//! Migration 48 records consents: on a database with a sale, up adds the record (refusing a
//! purpose it does not know) and touches no row; down drops the record alone; up again records
//! once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const CONSENT: &str = "INSERT INTO privacy_consents (cpf, finalidade, concedido, registrado_por) \
     VALUES ('52998224725', 'ofertas', true, 'bo@demo.com.br')";

const COUNTS: &str = "SELECT (SELECT count(*) FROM customers) || ':' || (SELECT count(*) FROM proposals) \
     || ':' || (SELECT count(*) FROM proposal_customers) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn the_record_of_consents_comes_and_goes_with_the_migration_and_no_sale_moves() {
    let migration = MigrationRoundTrip::before("20261128000048").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let before = line(&mut conn, COUNTS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    conn.batch_execute(CONSENT).await.unwrap();
    let refused = conn
        .batch_execute(&CONSENT.replace("'ofertas'", "'marketing'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("finalidade"), "{refused}");
    assert_eq!(
        line(
            &mut conn,
            "SELECT finalidade || ':' || concedido AS line FROM privacy_consents"
        )
        .await,
        "ofertas:true"
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    assert!(conn.batch_execute("SELECT 1 FROM privacy_consents").await.is_err());

    let mut conn = migration.up().await;
    conn.batch_execute(CONSENT).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM privacy_consents").await,
        "1"
    );
    assert_eq!(line(&mut conn, COUNTS).await, before);
}
