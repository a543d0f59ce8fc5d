//! Migration 35 and the housekeeping keep ended sessions on record: a session whose last refresh
//! token expired moves from `sessions` to `ended_sessions` (partitioned by the month it ended)
//! with how it ended, instead of being deleted; the record's months past its retention are
//! dropped whole; the migration goes down and up on a database with rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, line, lines, revert_through};
use adapters_postgres::{PgExpiredRecords, PgSessions, PoolSettings, build_pool, migrations};
use chrono::Utc;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use domain::auth::ports::SessionRegistry;
use domain::retention::{ExpiredRecords, RetentionPolicy};
use uuid::Uuid;

const VERSION: &str = "20261126000035";

const RECORD: &str = "SELECT right(id::text, 1) || ' ' || end_reason || ' ' || to_char(ended_at AT TIME ZONE 'UTC', 'YYYY-MM') \
     || ' ' || tableoid::regclass::text AS line FROM ended_sessions ORDER BY id";
const LIVE: &str = "SELECT right(id::text, 1) || ' ' || COALESCE(end_reason, '-') AS line FROM sessions ORDER BY id";

fn session(n: u8) -> Uuid {
    Uuid::parse_str(&format!("00000000-0000-0000-0000-00000000000{n}")).unwrap()
}

/// Two users (the second's credentials moved on) and five sessions: 1 signed out in February
/// 2025, 2 expired yesterday, 3 of the second user expired two days ago, 4 a refresh token
/// presented twice then expired, 5 live.
const SESSIONS: &str = "
    INSERT INTO users (id, email, password_hash) VALUES (1, 'ana@exemplo.com.br', 'x'), (2, 'bia@exemplo.com.br', 'x');
    UPDATE users SET credentials_epoch = 1 WHERE id = 2;
    INSERT INTO sessions (id, user_id, application, credentials_epoch, created_at, expires_at, ended_at, end_reason)
    VALUES ('00000000-0000-0000-0000-000000000001', 1, 'PARCEIRO', 0, '2025-02-01', '2025-03-03', '2025-02-10', 'signout'),
           ('00000000-0000-0000-0000-000000000002', 1, 'PARCEIRO', 0, now() - interval '30 days', now() - interval '1 day', NULL, NULL),
           ('00000000-0000-0000-0000-000000000003', 2, 'BACKOFFICE', 0, now() - interval '30 days', now() - interval '2 days', NULL, NULL),
           ('00000000-0000-0000-0000-000000000004', 1, 'ECOMMERCE', 0, now() - interval '30 days', now() - interval '1 hour', now() - interval '3 days', 'reuse'),
           ('00000000-0000-0000-0000-000000000005', 1, 'PARCEIRO', 0, now(), now() + interval '1 day', NULL, NULL);
    INSERT INTO refresh_tokens (jti, session_id, user_id, application, expires_at)
    VALUES (gen_random_uuid(), '00000000-0000-0000-0000-000000000002', 1, 'PARCEIRO', now() - interval '1 day');";

/// Kept for ten years: nothing of the record is dropped.
fn keeping_all() -> RetentionPolicy {
    RetentionPolicy {
        ended_sessions: std::time::Duration::from_secs(3650 * 24 * 3600),
        ..policy()
    }
}

fn policy() -> RetentionPolicy {
    RetentionPolicy {
        batch: 2,
        ..RetentionPolicy::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn expired_sessions_move_to_the_record_with_how_they_ended_and_the_migration_goes_down_and_up() {
    let db = TestDatabase::new().await;
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(SESSIONS).await.unwrap();
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    // The migration moves nothing (the housekeeping does) and makes months from the oldest end.
    assert_eq!(lines(&mut conn, LIVE).await.len(), 5);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regclass('ended_sessions_2025_02') IS NOT NULL)::text AS line"
        )
        .await,
        "true"
    );

    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let purged = PgExpiredRecords::new(pool.clone())
        .purge(Utc::now(), keeping_all())
        .await
        .unwrap();
    assert_eq!(purged.sessions, 4, "moved in batches of two");
    let now = Utc::now();
    let month = |at: chrono::DateTime<Utc>| at.format("%Y-%m").to_string();
    let partition = |at: chrono::DateTime<Utc>| format!("ended_sessions_{}", at.format("%Y_%m"));
    let yesterday = now - chrono::Duration::days(1);
    let two_days = now - chrono::Duration::days(2);
    let three_days = now - chrono::Duration::days(3);
    assert_eq!(
        lines(&mut conn, RECORD).await,
        [
            "1 signout 2025-02 ended_sessions_2025_02".to_owned(),
            format!("2 expiry {} {}", month(yesterday), partition(yesterday)),
            format!("3 credentials {} {}", month(two_days), partition(two_days)),
            format!("4 reuse {} {}", month(three_days), partition(three_days)),
        ]
    );
    assert_eq!(lines(&mut conn, LIVE).await, ["5 -"]);
    assert_eq!(
        line(&mut conn, "SELECT count(*)::text AS line FROM refresh_tokens").await,
        "0",
        "the expired session's tokens went with it"
    );
    let sessions = PgSessions::new(pool.clone());
    assert!(!sessions.is_active(session(2)).await.unwrap());
    assert!(sessions.is_active(session(5)).await.unwrap());

    // Down: back in `sessions` as they were, the recorded ends kept; the old purge deletes them.
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, LIVE).await,
        ["1 signout", "2 -", "3 -", "4 reuse", "5 -"]
    );
    // Up again, and the housekeeping records them again.
    migrations::run_pending(&db.url).await.unwrap();
    let purged = PgExpiredRecords::new(pool.clone())
        .purge(Utc::now(), keeping_all())
        .await
        .unwrap();
    assert_eq!(purged.sessions, 4);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(lines(&mut conn, RECORD).await.len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_record_of_ended_sessions_drops_whole_months_past_its_retention() {
    let db = TestDatabase::new().await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(SESSIONS).await.unwrap();
    // One more, ended in June 2024: no month is made for it, so it sits in DEFAULT.
    conn.batch_execute(
        "INSERT INTO sessions (id, user_id, application, credentials_epoch, created_at, expires_at, ended_at, end_reason)
         VALUES ('00000000-0000-0000-0000-000000000006', 1, 'PARCEIRO', 0, '2024-06-01', '2024-07-01', '2024-06-02', 'signout')",
    )
    .await
    .unwrap();
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let records = PgExpiredRecords::new(pool.clone());
    records
        .ensure_partitions("2025-02-01T00:00:00Z".parse().unwrap())
        .await
        .unwrap();
    let purged = records.purge(Utc::now(), policy()).await.unwrap();
    assert_eq!(purged.sessions, 5);
    // Six months kept: February 2025 dropped as a table, June 2024 deleted from DEFAULT.
    assert_eq!(purged.ended_sessions, 2);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regclass('ended_sessions_2025_02') IS NULL)::text AS line"
        )
        .await,
        "true"
    );
    let kept: Vec<String> = lines(&mut conn, RECORD)
        .await
        .into_iter()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(kept, ["2 expiry", "3 credentials", "4 reuse"]);
    // Nothing left to drop: a second run removes nothing.
    assert_eq!(records.purge(Utc::now(), policy()).await.unwrap().total(), 0);
}
