//! Migration 73 gives the back office's refusals and cancellations a reason category (decision
//! 283): the ones recorded before it get theirs (a refusal `outros`, a back-office cancellation
//! under a customer's request `a_pedido`, a seller's own none), their history entries carry it
//! beside the words; going down drops the columns and the entries' category, keeping aside what
//! was chosen, and up again brings the chosen categories back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, ONE_SHOP_SALE, line};
use diesel_async::SimpleAsyncConnection;

const CATEGORIES: &str = "SELECT string_agg(sequence || ':' || coalesce(reason_category, '-'), ',' ORDER BY sequence) \
     AS line FROM proposal_events";
const HISTORY: &str = "SELECT string_agg(coalesce(changes -> 'motivo' ->> 'to', '-') || '=' \
     || coalesce(changes -> 'categoria_motivo' ->> 'to', '-'), ',' ORDER BY at) AS line \
     FROM proposal_history WHERE action = 'status'";

const DECISIONS: &str = "
INSERT INTO users (email, password_hash) VALUES ('bo@x', 'x'), ('rep@x', 'x');
INSERT INTO user_applications (user_id, application)
    SELECT id, CASE email WHEN 'bo@x' THEN 'BACKOFFICE' ELSE 'PARCEIRO' END FROM users;
INSERT INTO customer_requests
    SELECT '2026120700000001', id, 'cancelamento', 'vai operar o joelho', 'bo@x', now() FROM proposals;
INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence, reason)
SELECT p.id, 'ALTERAÇÃO_STATUS', e.from_status, e.to_status, e.changed_by, now() + e.sequence * interval '1 minute', e.sequence, e.reason
FROM proposals p, (VALUES
    (1, 'EM ANÁLISE', 'REPROVADO', 'bo@x', 'usa Losartana'),
    (2, 'NOVO', 'CANCELADO', 'bo@x', 'vai operar o joelho'),
    (3, 'NOVO', 'CANCELADO', 'rep@x', 'desistiu')
) AS e(sequence, from_status, to_status, changed_by, reason);
";

#[tokio::test(flavor = "multi_thread")]
async fn the_back_offices_decisions_get_their_categories_and_keep_the_chosen_ones_through_a_rollback() {
    let migration = MigrationRoundTrip::before("20261213000073").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(DECISIONS).await.unwrap();
    assert_eq!(
        line(&mut conn, HISTORY).await,
        "usa Losartana=-,vai operar o joelho=-,desistiu=-"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CATEGORIES).await, "1:outros,2:a_pedido,3:-");
    assert_eq!(
        line(&mut conn, HISTORY).await,
        "usa Losartana=outros,vai operar o joelho=a_pedido,desistiu=-"
    );
    let refused = conn
        .batch_execute("UPDATE proposal_events SET reason_category = 'doenca' WHERE sequence = 1")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("proposal_events_reason_category"), "{refused}");
    // What the back office chose after the deploy, on an event and on a claimed operation.
    conn.batch_execute(
        "UPDATE proposal_events SET reason_category = 'saude' WHERE sequence = 1;
         INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, reason, reason_category, started_at)
             SELECT gen_random_uuid(), id, 'recusa', 'bo@x', 'usa Losartana', 'saude', now() FROM proposals;",
    )
    .await
    .unwrap();

    let mut conn = migration.down().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'reason_category' \
             AND table_name IN ('proposal_events', 'proposal_operations')"
        )
        .await,
        "0"
    );
    assert_eq!(
        line(&mut conn, HISTORY).await,
        "usa Losartana=-,vai operar o joelho=-,desistiu=-"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, CATEGORIES).await, "1:saude,2:a_pedido,3:-");
    assert_eq!(
        line(&mut conn, "SELECT reason_category AS line FROM proposal_operations").await,
        "saude"
    );
    assert_eq!(
        line(&mut conn, HISTORY).await,
        "usa Losartana=saude,vai operar o joelho=a_pedido,desistiu=-"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM pg_tables WHERE tablename = '__reason_categories_before_rollback'"
        )
        .await,
        "0"
    );
}
