//! Migration 33 keeps the providers' callback records in monthly partitions: every record moves
//! into its month and back on a database with rows; an event recorded last month is still
//! applied once this month; retention drops whole months and deletes the rest of what expired.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, line, lines, revert_through};
use adapters_postgres::{PgEcommerce, PgExpiredRecords, PoolSettings, build_pool, migrations};
use chrono::Utc;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use domain::ecommerce::EcommerceStore;
use domain::ecommerce::PaymentEvent;
use domain::retention::{ExpiredRecords, RetentionPolicy};

const VERSION: &str = "20261126000033";

const RECORDS: &str = "
    SELECT 'assinatura ' || event_id || ' ' || tableoid::regclass::text AS line FROM signature_callbacks
    UNION ALL
    SELECT 'pagamento ' || event_id || ' ' || kind || ' ' || tableoid::regclass::text FROM payment_events
    ORDER BY line";

fn this_month(table: &str) -> String {
    format!("{table}_{}", Utc::now().format("%Y_%m"))
}

#[tokio::test(flavor = "multi_thread")]
async fn records_move_into_their_months_and_back_and_an_event_is_applied_once_across_months() {
    let db = TestDatabase::new().await;
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO signature_callbacks (event_id, received_at) VALUES ('sig_old', '2025-03-10 10:00+00'), ('sig_new', now());
         INSERT INTO payment_events (event_id, kind, received_at) VALUES ('evt_old', 'ignored', '2025-03-10 10:00+00');",
    )
    .await
    .unwrap();

    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, RECORDS).await,
        [
            format!("assinatura sig_new {}", this_month("signature_callbacks")),
            "assinatura sig_old signature_callbacks_2025_03".to_owned(),
            "pagamento evt_old ignored payment_events_2025_03".to_owned(),
        ]
    );

    // The same event again, this month: not recorded twice, and the store says it was seen.
    let inserted = line(
        &mut conn,
        "WITH i AS (INSERT INTO signature_callbacks (event_id) VALUES ('sig_old') ON CONFLICT DO NOTHING RETURNING 1)
         SELECT count(*)::text AS line FROM i",
    )
    .await;
    assert_eq!(inserted, "0");
    let store = PgEcommerce::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    assert!(store.payment_event_seen("evt_old").await.unwrap());
    let again = PaymentEvent::Ignored {
        event_id: "evt_old".into(),
        kind: "ignored".into(),
    };
    assert!(
        !store.record_payment_event(&again, None, Utc::now()).await.unwrap(),
        "an event recorded in an older month is a repeat"
    );
    let fresh = PaymentEvent::Ignored {
        event_id: "evt_novo".into(),
        kind: "ignored".into(),
    };
    assert!(store.record_payment_event(&fresh, None, Utc::now()).await.unwrap());
    assert!(!store.record_payment_event(&fresh, None, Utc::now()).await.unwrap());
    assert_eq!(lines(&mut conn, RECORDS).await.len(), 4);

    // Down: one table each, every record kept; up again.
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, RECORDS).await,
        [
            "assinatura sig_new signature_callbacks",
            "assinatura sig_old signature_callbacks",
            "pagamento evt_novo ignored payment_events",
            "pagamento evt_old ignored payment_events",
        ]
    );
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(lines(&mut conn, RECORDS).await.len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn retention_drops_whole_months_and_deletes_what_expired_in_the_month_it_cuts() {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    let store = PgExpiredRecords::new(pool.clone());
    // A month made for March 2025 (as the housekeeping would have then), with two records.
    store
        .ensure_partitions("2025-03-01T00:00:00Z".parse().unwrap())
        .await
        .unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO signature_callbacks (event_id, received_at) VALUES
             ('sig_march_1', '2025-03-10 10:00+00'), ('sig_march_2', '2025-03-20 10:00+00'),
             ('sig_expired', now() - interval '31 days'), ('sig_kept', now() - interval '29 days'), ('sig_now', now());",
    )
    .await
    .unwrap();
    let policy = RetentionPolicy {
        callback_records: std::time::Duration::from_secs(30 * 24 * 3600),
        ..RetentionPolicy::default()
    };
    let purged = store.purge(Utc::now(), policy).await.unwrap();
    assert_eq!(purged.signature_callbacks, 3, "two in the dropped month, one deleted");
    let mut kept = lines(
        &mut conn,
        "SELECT event_id AS line FROM signature_callbacks ORDER BY event_id",
    )
    .await;
    kept.sort();
    assert_eq!(kept, ["sig_kept", "sig_now"]);
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regclass('signature_callbacks_2025_03') IS NULL)::text AS line"
        )
        .await,
        "true",
        "the month went as a table"
    );
}
