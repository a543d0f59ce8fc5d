//! Migration 56 lets a payment received after its contract ended be given back under the
//! proposal's claim (`devolucao_tardia`): the operations stored before keep every row and kind;
//! going down is refused while a late refund is recorded (a sale's history is never deleted), and
//! without one it leaves every row; up again takes the new kind as the first time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const OPERATIONS: &str = "SELECT string_agg(kind || ':' || state, ',' ORDER BY kind) AS line FROM proposal_operations";
const LATE_REFUND: &str =
    "INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, state, started_at, finished_at)
     SELECT gen_random_uuid(), id, 'devolucao_tardia', 'sistema:devolucao', 'done', now(), now() FROM proposals";

#[tokio::test(flavor = "multi_thread")]
async fn the_operations_stored_before_are_kept_and_a_late_refund_is_never_forgotten() {
    let migration = MigrationRoundTrip::before("20261205000056").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "UPDATE proposals SET status = 'CANCELADO';
         INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, state, started_at, finished_at)
         SELECT gen_random_uuid(), id, 'cancelamento_contrato', 'bo@x', 'done', now(), now() FROM proposals;",
    )
    .await
    .unwrap();
    let refused = conn.batch_execute(LATE_REFUND).await.unwrap_err().to_string();
    assert!(refused.contains("proposal_operations_kind"), "{refused}");

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, OPERATIONS).await, "cancelamento_contrato:done");
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_indexes WHERE indexname = 'charges_paid_after_the_end'"
        )
        .await,
        "1"
    );

    // Without a late refund, down and up again leave every row.
    let mut conn = migration.down().await;
    assert_eq!(line(&mut conn, OPERATIONS).await, "cancelamento_contrato:done");
    let mut conn = migration.up().await;
    conn.batch_execute(LATE_REFUND).await.unwrap();
    assert_eq!(
        line(&mut conn, OPERATIONS).await,
        "cancelamento_contrato:done,devolucao_tardia:done"
    );

    // With one, going down is refused whole (the later migrations reverted first).
    let kept = migration.try_down().await.unwrap_err().to_string();
    assert!(kept.contains("devoluções tardias"), "{kept}");
    assert_eq!(
        line(&mut conn, OPERATIONS).await,
        "cancelamento_contrato:done,devolucao_tardia:done"
    );
}
