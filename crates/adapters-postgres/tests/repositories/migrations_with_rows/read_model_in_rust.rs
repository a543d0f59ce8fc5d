//! Migration 38 moves the read model's definition into Rust: up, the PL/pgSQL document and its
//! eleven deferred triggers are gone and the documents they wrote read as the Rust definition's
//! (the check finds no drift); a part written past the service then waits for the repair; down,
//! the triggers are back and write every document again; up again, nothing drifted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use adapters_postgres::{PoolSettings, build_pool, check_read_model};
use diesel_async::SimpleAsyncConnection;

/// What the database still defines of the PL/pgSQL read model: its functions and triggers.
const PLPGSQL_READ_MODEL: &str = "SELECT (SELECT count(*) FROM pg_proc WHERE proname IN ('proposal_document', \
     'write_proposal_read_model', 'refresh_proposal_read_model') OR proname LIKE 'proposal_read_model_on_%') \
     || '/' || (SELECT count(*) FROM pg_trigger WHERE tgname LIKE '%_read_model') AS line";
const RESENDS_IN_DOCUMENT: &str = "SELECT documento->'proposal'->>'reenvios' AS line FROM proposal_read_models";

#[tokio::test(flavor = "multi_thread")]
async fn the_read_model_moves_into_rust_and_back_with_its_documents() {
    let migration = MigrationRoundTrip::before("20261127000038").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    assert_eq!(line(&mut conn, PLPGSQL_READ_MODEL).await, "7/11");
    assert_eq!(
        line(&mut conn, RESENDS_IN_DOCUMENT).await,
        "0",
        "written by the triggers"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, PLPGSQL_READ_MODEL).await, "0/0");
    let pool = build_pool(&PoolSettings::new(&migration.db.url)).unwrap();
    let report = check_read_model(&pool, false).await.unwrap();
    assert_eq!((report.checked, report.drifted.len()), (1, 0), "{report:?}");

    // Past the service, a part's change waits for the repair.
    conn.batch_execute("UPDATE proposals SET reenvios = 2").await.unwrap();
    assert_eq!(line(&mut conn, RESENDS_IN_DOCUMENT).await, "0");
    assert_eq!(check_read_model(&pool, false).await.unwrap().drifted.len(), 1);
    conn.batch_execute("UPDATE proposals SET reenvios = 3").await.unwrap();

    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, PLPGSQL_READ_MODEL).await, "7/11");
    assert_eq!(
        line(&mut conn, RESENDS_IN_DOCUMENT).await,
        "3",
        "the down writes every document again"
    );
    conn.batch_execute("UPDATE proposals SET reenvios = 4").await.unwrap();
    assert_eq!(
        line(&mut conn, RESENDS_IN_DOCUMENT).await,
        "4",
        "and its triggers are back"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, PLPGSQL_READ_MODEL).await, "0/0");
    let report = check_read_model(&pool, false).await.unwrap();
    assert_eq!((report.checked, report.drifted.len()), (1, 0), "{report:?}");
    assert_eq!(line(&mut conn, RESENDS_IN_DOCUMENT).await, "4");
}
