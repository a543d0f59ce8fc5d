//! Migration 34 keeps the webhook deliveries in monthly partitions and each attempt in its
//! delivery's month: every row moves into its month (up) and back (down) on a database with rows;
//! a delivery caught by the DEFAULT partition moves into its month with its attempts; retention
//! drops a month of attempts, then its deliveries, and counts what they held.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, line, lines, revert_through};
use adapters_postgres::{PgExpiredRecords, PgHooks, PgPool, PoolSettings, SealingKeys, build_pool, migrations};
use chrono::{Duration, Months, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use domain::hooks::ports::DeliveryQueue;

const VERSION: &str = "20261126000034";

/// Each delivery: `message month partition`, in order.
const DELIVERIES: &str = "SELECT message_id || ' ' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') || ' ' \
     || tableoid::regclass::text AS line FROM hook_deliveries ORDER BY id";
/// Each attempt: `message number partition`, in order.
const ATTEMPTS: &str = "SELECT d.message_id || ' ' || a.number || ' ' || a.tableoid::regclass::text AS line \
     FROM hook_attempts a JOIN hook_deliveries d ON d.id = a.delivery_id ORDER BY a.id";

fn month(offset: u32) -> String {
    Utc::now()
        .checked_add_months(Months::new(offset))
        .unwrap()
        .format("%Y_%m")
        .to_string()
}

async fn subscription(url: &str) -> AsyncPgConnection {
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed,
                                         created_at, updated_at)
         VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', 'https://a.exemplo.com.br/', ARRAY['ALTERAÇÃO_STATUS', 'TESTE'],
                 'ATIVO', '\\x00', now(), now())",
    )
    .await
    .unwrap();
    conn
}

/// A delivery `message` created at `at` (SQL).
fn delivery(message: &str, kind: &str, state: &str, at: &str) -> String {
    format!(
        "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, state, next_attempt_at, created_at)
         SELECT id, '{message}', '{kind}', '{{}}', '{state}', now(), {at} FROM hook_subscriptions;"
    )
}

/// An attempt of `message` (SQL, at migration 34 or later).
fn attempt(message: &str, number: i32, at: &str) -> String {
    format!(
        "INSERT INTO hook_attempts (delivery_id, delivery_created_at, number, attempted_at, duration_ms)
         SELECT id, created_at, {number}, {at}, 5 FROM hook_deliveries WHERE message_id = '{message}';"
    )
}

fn hooks(pool: &PgPool) -> PgHooks {
    PgHooks::new(
        pool.clone(),
        &SealingKeys {
            current: [7; 32],
            previous: Vec::new(),
        },
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn deliveries_and_their_attempts_move_into_the_deliverys_month_and_back() {
    let db = TestDatabase::new().await;
    let mut conn = subscription(&db.url).await;
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    // Rows written before the migration: attempts then had no delivery_created_at.
    conn.batch_execute(&format!(
        "{}{}{}
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 1, '2025-03-10 10:00+00', 5 FROM hook_deliveries WHERE message_id = 'msg_old';
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 2, '2025-04-02 10:00+00', 5 FROM hook_deliveries WHERE message_id = 'msg_old';
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 1, now(), 5 FROM hook_deliveries WHERE message_id = 'msg_new';",
        delivery("msg_old", "ALTERAÇÃO_STATUS", "ESGOTADA", "'2025-03-10 00:00+00'"),
        delivery("msg_test", "TESTE", "PENDENTE", "now()"),
        delivery("msg_new", "ALTERAÇÃO_STATUS", "ENTREGUE", "now()"),
    ))
    .await
    .unwrap();

    migrations::run_pending(&db.url).await.unwrap();
    let now = month(0);
    let now_dash = now.replace('_', "-");
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, DELIVERIES).await,
        [
            "msg_old 2025-03 hook_deliveries_2025_03".to_owned(),
            format!("msg_test {now_dash} hook_deliveries_{now}"),
            format!("msg_new {now_dash} hook_deliveries_{now}"),
        ]
    );
    assert_eq!(
        lines(&mut conn, ATTEMPTS).await,
        [
            "msg_old 1 hook_attempts_2025_03".to_owned(),
            "msg_old 2 hook_attempts_2025_03".to_owned(),
            format!("msg_new 1 hook_attempts_{now}"),
        ]
    );
    // Months are made three ahead for both tables.
    for table in ["hook_deliveries", "hook_attempts"] {
        assert_eq!(
            line(
                &mut conn,
                &format!("SELECT (to_regclass('{table}_{}') IS NOT NULL)::text AS line", month(3))
            )
            .await,
            "true",
            "{table}"
        );
    }
    // An attempt must name its delivery's month: the foreign key is on both columns.
    let refused = conn
        .batch_execute(
            &attempt("msg_new", 2, "now()")
                .replace("SELECT id, created_at,", "SELECT id, created_at - interval '1 day',"),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_attempts_delivery_id_fkey"), "{refused}");

    // Down: one table of deliveries, attempts by the month they were made, the one-waiting-test
    // index back, every row kept.
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, DELIVERIES).await,
        [
            "msg_old 2025-03 hook_deliveries".to_owned(),
            format!("msg_test {now_dash} hook_deliveries"),
            format!("msg_new {now_dash} hook_deliveries"),
        ]
    );
    assert_eq!(
        lines(&mut conn, ATTEMPTS).await,
        [
            "msg_old 1 hook_attempts_2025_03".to_owned(),
            "msg_old 2 hook_attempts_2025_04".to_owned(),
            format!("msg_new 1 hook_attempts_{now}"),
        ]
    );
    let refused = conn
        .batch_execute(&delivery("msg_test2", "TESTE", "PENDENTE", "now()"))
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("hook_deliveries_one_pending_test"), "{refused}");

    // Up again: the rows as before, and new ids after the old ones.
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(lines(&mut conn, DELIVERIES).await.len(), 3);
    assert_eq!(lines(&mut conn, ATTEMPTS).await.len(), 3);
    conn.batch_execute(&delivery("msg_later", "ALTERAÇÃO_STATUS", "PENDENTE", "now()"))
        .await
        .unwrap();
    assert_eq!(
        lines(&mut conn, DELIVERIES).await.last().unwrap(),
        &format!("msg_later {now_dash} hook_deliveries_{now}")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delivery_in_default_moves_with_its_attempts_and_retention_drops_months_whole() {
    let db = TestDatabase::new().await;
    let mut conn = subscription(&db.url).await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    // Months no partition was made for: the rows wait in DEFAULT.
    conn.batch_execute(&format!(
        "{}{}{}{}{}{}{}",
        delivery("msg_far", "ALTERAÇÃO_STATUS", "PENDENTE", "now() + interval '200 days'"),
        attempt("msg_far", 1, "now()"),
        attempt("msg_far", 2, "now()"),
        delivery("msg_old", "ALTERAÇÃO_STATUS", "ESGOTADA", "'2025-03-10 00:00+00'"),
        attempt("msg_old", 1, "'2025-03-10 10:00+00'"),
        delivery("msg_new", "ALTERAÇÃO_STATUS", "ENTREGUE", "now()"),
        attempt("msg_new", 1, "now()"),
    ))
    .await
    .unwrap();
    // A delivery a day older than the cut-off: in the month the cut-off falls in, or just before.
    conn.batch_execute(&format!(
        "{}{}",
        delivery("msg_cut", "ALTERAÇÃO_STATUS", "ENTREGUE", "now() - interval '31 days'"),
        attempt("msg_cut", 1, "now() - interval '31 days'"),
    ))
    .await
    .unwrap();
    let far = (Utc::now() + Duration::days(200)).format("%Y_%m").to_string();
    assert!(
        lines(&mut conn, ATTEMPTS)
            .await
            .contains(&"msg_far 2 hook_attempts_default".to_owned())
    );

    let records = PgExpiredRecords::new(pool.clone());
    assert!(
        records
            .ensure_partitions(Utc::now() + Duration::days(200))
            .await
            .unwrap()
            >= 2
    );
    records
        .ensure_partitions("2025-03-01T00:00:00Z".parse().unwrap())
        .await
        .unwrap();
    let placed = lines(&mut conn, DELIVERIES).await;
    assert!(
        placed.contains(&"msg_old 2025-03 hook_deliveries_2025_03".to_owned()),
        "{placed:?}"
    );
    assert!(
        placed
            .iter()
            .any(|l| l.starts_with("msg_far ") && l.ends_with(&format!("hook_deliveries_{far}"))),
        "{placed:?}"
    );
    let attempts = lines(&mut conn, ATTEMPTS).await;
    for expected in [
        format!("msg_far 1 hook_attempts_{far}"),
        format!("msg_far 2 hook_attempts_{far}"),
        "msg_old 1 hook_attempts_2025_03".to_owned(),
    ] {
        assert!(attempts.contains(&expected), "{expected} in {attempts:?}");
    }
    assert_eq!(attempts.len(), 5, "no attempt lost in the move");

    // 30 days kept: March 2025 goes as tables (its attempts first), the day-older delivery by its
    // row with its attempt; this month's and the far one stay.
    let purged = hooks(&pool).purge(Utc::now() - Duration::days(30)).await.unwrap();
    assert_eq!(purged, 2, "one in a dropped month, one deleted");
    for table in ["hook_deliveries_2025_03", "hook_attempts_2025_03"] {
        assert_eq!(
            line(
                &mut conn,
                &format!("SELECT (to_regclass('{table}') IS NULL)::text AS line")
            )
            .await,
            "true",
            "{table} dropped"
        );
    }
    let kept: Vec<String> = lines(&mut conn, ATTEMPTS)
        .await
        .into_iter()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(kept, ["msg_far 1", "msg_far 2", "msg_new 1"]);
}
