//! Migration 26 records replays: deliveries written before it are kept and belong to no replay;
//! going down forgets only which replay re-sent a delivery, never the delivery or its state.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, line, lines};
use diesel_async::SimpleAsyncConnection;

const ONE_SUBSCRIPTION_TWO_DELIVERIES: &str = "
INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed,
                                created_at, updated_at)
    VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', 'https://a.exemplo.com.br/', ARRAY['ALTERAÇÃO_STATUS'], 'ATIVO',
            '\\x00', now(), now());
INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, state, next_attempt_at)
    SELECT id, 'msg_1', 'ALTERAÇÃO_STATUS', '{}', 'ENTREGUE', now() FROM hook_subscriptions;
INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, state, next_attempt_at)
    SELECT id, 'msg_2', 'ALTERAÇÃO_STATUS', '{}', 'ESGOTADA', now() FROM hook_subscriptions;
";

const DELIVERIES: &str = "SELECT message_id || ' ' || state AS line FROM hook_deliveries ORDER BY id";

#[tokio::test(flavor = "multi_thread")]
async fn replays_are_recorded_beside_the_deliveries_which_survive_both_ways() {
    let migration = MigrationRoundTrip::before("20261126000026").await;
    let _db = &migration.db;
    let mut conn = migration.connect().await;
    conn.batch_execute(ONE_SUBSCRIPTION_TWO_DELIVERIES).await.unwrap();

    let mut conn = migration.up().await;
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM hook_deliveries WHERE replay_id IS NULL"
        )
        .await,
        "2"
    );
    conn.batch_execute(
        "INSERT INTO hook_replays (subscription_id, since, until, requested_by, requested_at, deliveries)
             SELECT id, now() - interval '1 hour', now(), 'x', now(), 1 FROM hook_subscriptions;
         UPDATE hook_deliveries SET state = 'PENDENTE', replay_id = (SELECT id FROM hook_replays)
             WHERE message_id = 'msg_2';",
    )
    .await
    .unwrap();
    let refused = conn
        .batch_execute(
            "INSERT INTO hook_replays (subscription_id, since, until, requested_by, requested_at)
                 SELECT id, now(), now() - interval '1 hour', 'x', now() FROM hook_subscriptions",
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_replays_window"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(lines(&mut conn, DELIVERIES).await, ["msg_1 ENTREGUE", "msg_2 PENDENTE"]);
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM information_schema.columns WHERE column_name = 'replay_id'"
        )
        .await,
        "0"
    );

    let mut conn = migration.up().await;
    assert_eq!(lines(&mut conn, DELIVERIES).await.len(), 2);
}
