//! Migration 55 lets a user be pinned to a contract version and keeps the version of each
//! subscription: the users and subscriptions stored before are never pinned and of `2026-11-29`,
//! what they read before versions existed; going down drops both and leaves every row; up again
//! makes them as the first time.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{MigrationRoundTrip, line};
use diesel_async::SimpleAsyncConnection;

const USERS: &str =
    "SELECT string_agg(email || ':' || coalesce(api_version, 'nunca'), ',' ORDER BY email) AS line FROM users";
const SUBSCRIPTIONS: &str =
    "SELECT string_agg(endpoint || ':' || api_version, ',' ORDER BY endpoint) AS line FROM hook_subscriptions";

#[tokio::test(flavor = "multi_thread")]
async fn users_and_subscriptions_stored_before_read_the_shapes_they_always_read() {
    let migration = MigrationRoundTrip::before("20261201000055").await;
    let mut conn = migration.connect().await;
    conn.batch_execute(
        "INSERT INTO users (email, password_hash) VALUES ('a@x', 'x'), ('b@x', 'x');
         INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed, created_at, updated_at)
         VALUES (gen_random_uuid(), 'BACKOFFICE', 'a@x', 'https://a.example/h', '{ALTERAÇÃO_STATUS}', 'ATIVO', '\\x00', now(), now());",
    )
    .await
    .unwrap();

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, USERS).await, "a@x:nunca,b@x:nunca");
    assert_eq!(line(&mut conn, SUBSCRIPTIONS).await, "https://a.example/h:2026-11-29");
    conn.batch_execute(
        "UPDATE users SET api_version = '2026-12-01' WHERE email = 'b@x';
         INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed, created_at, updated_at, api_version)
         VALUES (gen_random_uuid(), 'BACKOFFICE', 'b@x', 'https://b.example/h', '{ALTERAÇÃO_STATUS}', 'ATIVO', '\\x00', now(), now(), '2026-11-21');",
    )
    .await
    .unwrap();
    assert_eq!(line(&mut conn, USERS).await, "a@x:nunca,b@x:2026-12-01");
    let refused = conn
        .batch_execute("UPDATE users SET api_version = 'latest'")
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("users_api_version_check"), "{refused}");

    let mut conn = migration.down().await;
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM users").await,
        "2",
        "every user kept"
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT string_agg(endpoint, ',' ORDER BY endpoint) AS line FROM hook_subscriptions"
        )
        .await,
        "https://a.example/h,https://b.example/h",
        "every subscription kept"
    );

    let mut conn = migration.up().await;
    assert_eq!(line(&mut conn, USERS).await, "a@x:nunca,b@x:nunca");
    assert_eq!(
        line(&mut conn, SUBSCRIPTIONS).await,
        "https://a.example/h:2026-11-29,https://b.example/h:2026-11-29"
    );
}
