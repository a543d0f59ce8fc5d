//! Migration 50 records what each proposal's document showed: on a database with a sale, up adds
//! the record (refusing a digest that is not one and an unknown channel) and touches no row (the
//! sale sealed before has no record: it was not kept then); down drops the record alone; up again
//! records once more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const SHOWN: &str = "INSERT INTO proposal_notices (id_proposta, aviso_versao, aviso_sha256, termos_sha256, canal) \
     SELECT id, '2026-11-28', repeat('ab', 32), repeat('cd', 32), 'sms' FROM proposals";

const COUNTS: &str = "SELECT (SELECT count(*) FROM customers) || ':' || (SELECT count(*) FROM proposals) \
     || ':' || (SELECT count(*) FROM proposal_customers) AS line";

#[tokio::test(flavor = "multi_thread")]
async fn the_record_of_what_a_document_showed_comes_and_goes_with_the_migration() {
    let migration = MigrationRoundTrip::before("20261128000050").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let before = line(&mut conn, COUNTS).await;

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM proposal_notices").await,
        "0",
        "nothing was recorded before"
    );
    for bad in [
        SHOWN.replace("repeat('ab', 32)", "'abc'"),
        SHOWN.replace("'sms'", "'pombo'"),
    ] {
        assert!(conn.batch_execute(&bad).await.is_err(), "{bad}");
    }
    conn.batch_execute(SHOWN).await.unwrap();
    assert_eq!(
        line(
            &mut conn,
            "SELECT aviso_versao || ':' || canal AS line FROM proposal_notices"
        )
        .await,
        "2026-11-28:sms"
    );

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, COUNTS).await, before);
    assert!(conn.batch_execute("SELECT 1 FROM proposal_notices").await.is_err());

    let mut conn = migration.up().await;
    conn.batch_execute(SHOWN).await.unwrap();
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM proposal_notices").await,
        "1"
    );
    assert_eq!(line(&mut conn, COUNTS).await, before);
}
