//! Migration 32 keeps the proposals' history and the webhooks' attempts in monthly partitions:
//! every existing row moves into its month (up) and back into one table (down) on a database with
//! rows; the history stays append-only on every partition; a row that landed in the DEFAULT
//! partition moves into its month when the housekeeping makes it; retention drops whole months of
//! attempts. Since migration 34 an attempt lives in its delivery's month (tests/delivery_partitions.rs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::{TestDatabase, line, lines, revert_through};
use adapters_postgres::{
    PgCatalog, PgExpiredRecords, PgHooks, PgPool, PgProposals, PoolSettings, SealingKeys, build_pool, migrations, seed,
};
use chrono::{Duration, Months, Utc};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use domain::catalog::ports::CatalogStore;
use domain::customers::Seller;
use domain::hooks::ports::DeliveryQueue;
use domain::proposals::model::{Flow, NewProposal, PaymentDetails};
use domain::proposals::ports::ProposalStore;
use domain::testing::{address, customer};
use domain::values::{SheetType, ShippingType};

const VERSION: &str = "20261126000032";

/// Where every row is: `table partition id`, in order.
const HISTORY: &str = "SELECT action || ' ' || to_char(at AT TIME ZONE 'UTC', 'YYYY-MM') || ' ' || tableoid::regclass::text \
     AS line FROM proposal_history ORDER BY id";
const ATTEMPTS: &str = "SELECT number || ' ' || to_char(attempted_at AT TIME ZONE 'UTC', 'YYYY-MM') || ' ' || tableoid::regclass::text \
     AS line FROM hook_attempts ORDER BY id";

/// `YYYY-MM` of the month `offset` months after this one (UTC).
fn month(offset: u32) -> String {
    Utc::now()
        .checked_add_months(Months::new(offset))
        .unwrap()
        .format("%Y-%m")
        .to_string()
}

fn partition(table: &str, month: &str) -> String {
    format!("{table}_{}", month.replace('-', "_"))
}

async fn a_proposal_and_a_delivery(db: &TestDatabase) -> PgPool {
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    let product_id = PgCatalog::new(pool.clone())
        .product_with_banks(101)
        .await
        .unwrap()
        .unwrap()
        .id;
    PgProposals::new(pool.clone())
        .create(&NewProposal {
            flow: Flow::Ecommerce,
            seller: Seller::Shop,
            product_id,
            billing_code: 5001,
            value: 0,
            payment: Some(PaymentDetails::PayrollDiscount {
                number: "123".into(),
                specie: 41,
                sheet_type: SheetType::Benefit,
            }),
            shipping: ShippingType::Sms,
            customer: customer("Maria da Silva"),
            address: address("Rua A"),
            partner: None,
            beneficiaries: Vec::new(),
            kyc: None,
            changed_by: "teste".into(),
            at: Utc::now(),
        })
        .await
        .unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO hook_subscriptions (uuid, owner_application, created_by, endpoint, events, status, secret_sealed,
                                         created_at, updated_at)
             VALUES (gen_random_uuid(), 'BACKOFFICE', 'x', 'https://a.exemplo.com.br/', ARRAY['ALTERAÇÃO_STATUS'],
                     'ATIVO', '\\x00', now(), now());
         INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, state, next_attempt_at, created_at)
             SELECT id, 'msg_old', 'ALTERAÇÃO_STATUS', '{}', 'ESGOTADA', now(), '2025-03-10' FROM hook_subscriptions;
         INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, state, next_attempt_at)
             SELECT id, 'msg_new', 'ALTERAÇÃO_STATUS', '{}', 'ENTREGUE', now() FROM hook_subscriptions;",
    )
    .await
    .unwrap();
    pool
}

#[tokio::test(flavor = "multi_thread")]
async fn rows_move_into_their_months_and_back_and_the_history_stays_append_only_on_every_partition() {
    let db = TestDatabase::new().await;
    let pool = a_proposal_and_a_delivery(&db).await;
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    // Rows of an older month, written before the migration.
    conn.batch_execute(
        "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
             SELECT id, '2025-03-15 12:00+00', 'teste', 'antiga', '{}' FROM proposals;
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 1, '2025-03-10 10:00+00', 5 FROM hook_deliveries WHERE message_id = 'msg_old';
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 2, '2025-04-02 10:00+00', 5 FROM hook_deliveries WHERE message_id = 'msg_old';
         INSERT INTO hook_attempts (delivery_id, number, attempted_at, duration_ms)
             SELECT id, 1, now(), 5 FROM hook_deliveries WHERE message_id = 'msg_new';",
    )
    .await
    .unwrap();

    migrations::run_pending(&db.url).await.unwrap();
    let now = month(0);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, HISTORY).await,
        [
            format!("criacao {now} {}", partition("proposal_history", &now)),
            "antiga 2025-03 proposal_history_2025_03".to_owned(),
        ]
    );
    assert_eq!(
        lines(&mut conn, ATTEMPTS).await,
        [
            "1 2025-03 hook_attempts_2025_03".to_owned(),
            // Attempted in April, kept in its delivery's month (migration 34).
            "2 2025-04 hook_attempts_2025_03".to_owned(),
            format!("1 {now} {}", partition("hook_attempts", &now)),
        ]
    );
    // Every month from the oldest row's to three ahead of this one is made.
    let made = line(
        &mut conn,
        "SELECT count(*)::text AS line FROM pg_inherits WHERE inhparent = 'proposal_history'::regclass",
    )
    .await;
    assert!(made.parse::<i32>().unwrap() >= 6, "{made}");
    assert_eq!(
        line(
            &mut conn,
            &format!(
                "SELECT (to_regclass('{}') IS NOT NULL)::text AS line",
                partition("proposal_history", &month(3))
            )
        )
        .await,
        "true"
    );

    // Append-only on every partition, and through the parent.
    for statement in [
        "UPDATE proposal_history_2025_03 SET action = 'outra'".to_owned(),
        format!("DELETE FROM {}", partition("proposal_history", &now)),
        "DELETE FROM proposal_history".to_owned(),
        "TRUNCATE proposal_history_2025_03".to_owned(),
        "TRUNCATE proposal_history_default".to_owned(),
        "TRUNCATE proposal_history".to_owned(),
    ] {
        let refused = conn.batch_execute(&statement).await.unwrap_err().to_string();
        assert!(refused.contains("não pode ser alterado"), "{statement}: {refused}");
    }

    // A row outside every month made lands in DEFAULT and moves into its month once made.
    conn.batch_execute(
        "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes)
             SELECT id, now() + interval '200 days', 'teste', 'futura', '{}' FROM proposals",
    )
    .await
    .unwrap();
    let far = (Utc::now() + Duration::days(200)).format("%Y-%m").to_string();
    let far_line = |table: &str| format!("futura {far} {table}");
    assert_eq!(
        lines(&mut conn, HISTORY).await.last().unwrap(),
        &far_line("proposal_history_default")
    );
    let made = PgExpiredRecords::new(pool.clone())
        .ensure_partitions(Utc::now() + Duration::days(200))
        .await
        .unwrap();
    assert!(made >= 1, "{made}");
    assert_eq!(
        lines(&mut conn, HISTORY).await.last().unwrap(),
        &far_line(&partition("proposal_history", &far))
    );
    // Made again: nothing new, nothing moved.
    assert_eq!(
        PgExpiredRecords::new(pool.clone())
            .ensure_partitions(Utc::now() + Duration::days(200))
            .await
            .unwrap(),
        0
    );

    // Down: one table each, every row kept, the history still append-only.
    assert_eq!(revert_through(&db.url, VERSION).await.last().unwrap(), VERSION);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(
        lines(&mut conn, HISTORY).await,
        [
            format!("criacao {now} proposal_history"),
            "antiga 2025-03 proposal_history".to_owned(),
            format!("futura {far} proposal_history"),
        ]
    );
    assert_eq!(lines(&mut conn, ATTEMPTS).await.len(), 3);
    let refused = conn
        .batch_execute("DELETE FROM proposal_history")
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("não pode ser alterado"), "{refused}");
    // New rows get new ids after the way down and up again.
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    assert_eq!(lines(&mut conn, HISTORY).await.len(), 3);
    conn.batch_execute(
        "INSERT INTO proposal_history (proposal_id, changed_by, action, changes)
             SELECT id, 'teste', 'nova', '{}' FROM proposals",
    )
    .await
    .unwrap();
    assert_eq!(
        lines(&mut conn, HISTORY).await.last().unwrap(),
        &format!("nova {now} {}", partition("proposal_history", &now))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn retention_drops_whole_months_of_attempts_and_keeps_the_months_it_must() {
    let db = TestDatabase::new().await;
    let pool = a_proposal_and_a_delivery(&db).await;
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(
        "INSERT INTO hook_attempts (delivery_id, delivery_created_at, number, attempted_at, duration_ms)
             SELECT id, created_at, 1, '2025-03-10 10:00+00', 5 FROM hook_deliveries WHERE message_id = 'msg_old';
         INSERT INTO hook_attempts (delivery_id, delivery_created_at, number, attempted_at, duration_ms)
             SELECT id, created_at, 1, now(), 5 FROM hook_deliveries WHERE message_id = 'msg_new';",
    )
    .await
    .unwrap();
    // The housekeeping made no month for March 2025: the row is in DEFAULT until it does.
    PgExpiredRecords::new(pool.clone())
        .ensure_partitions("2025-03-01T00:00:00Z".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(lines(&mut conn, ATTEMPTS).await[0], "1 2025-03 hook_attempts_2025_03");
    let hooks = PgHooks::new(
        pool.clone(),
        &SealingKeys {
            current: [7; 32],
            previous: Vec::new(),
        },
    );
    let purged = hooks.purge(Utc::now() - Duration::days(30)).await.unwrap();
    assert_eq!(purged, 1, "the old delivery goes");
    let kept = lines(&mut conn, ATTEMPTS).await;
    assert_eq!(
        kept,
        [format!("1 {} {}", month(0), partition("hook_attempts", &month(0)))]
    );
    assert_eq!(
        line(
            &mut conn,
            "SELECT (to_regclass('hook_attempts_2025_03') IS NULL)::text AS line"
        )
        .await,
        "true",
        "the month is dropped as a table"
    );
}
