//! The hourly housekeeping on real PostgreSQL: what has expired goes, in batches; what may still
//! serve stays.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgExpiredRecords, PoolSettings, build_pool};
use chrono::Utc;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::retention::{ExpiredRecords, Purged, RetentionPolicy};
use std::time::Duration;

async fn sql(url: &str, statement: &str) {
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    diesel::sql_query(statement).execute(&mut conn).await.unwrap();
}

async fn count(url: &str, table: &str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = AsyncPgConnection::establish(url).await.unwrap();
    diesel::sql_query(format!("SELECT count(*) AS n FROM {table}"))
        .get_result::<Count>(&mut conn)
        .await
        .unwrap()
        .n
}

#[tokio::test(flavor = "multi_thread")]
async fn expired_records_go_in_batches_and_live_ones_stay() {
    let db = TestDatabase::new().await;
    sql(
        &db.url,
        "INSERT INTO users (id, email, password_hash) VALUES (1, 'ana@exemplo.com.br', 'x')",
    )
    .await;
    // Sessions: one whose last refresh token expired yesterday goes (with its token); the live
    // one stays.
    sql(
        &db.url,
        "INSERT INTO sessions (id, user_id, application, credentials_epoch, expires_at)
         VALUES ('00000000-0000-0000-0000-00000000000a', 1, 'PARCEIRO', 0, now() - interval '1 day'),
                ('00000000-0000-0000-0000-00000000000b', 1, 'PARCEIRO', 0, now() + interval '1 day')",
    )
    .await;
    sql(
        &db.url,
        "INSERT INTO refresh_tokens (jti, session_id, user_id, application, expires_at)
         VALUES (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 1, 'PARCEIRO', now() - interval '1 day')",
    )
    .await;
    // Refresh tokens of the live session: 3 expired (one of them used), 2 live (one used: kept
    // for reuse detection).
    sql(
        &db.url,
        "INSERT INTO refresh_tokens (jti, session_id, user_id, application, issued_at, expires_at, used_at)
         SELECT gen_random_uuid(), '00000000-0000-0000-0000-00000000000b', 1, 'PARCEIRO', now() - interval '40 days', expires, used
         FROM (VALUES (now() - interval '1 day', NULL::timestamptz), (now() - interval '2 days', NULL),
                      (now() - interval '1 hour', now() - interval '2 hours'),
                      (now() + interval '1 day', NULL), (now() + interval '1 day', now())) AS t(expires, used)",
    )
    .await;
    // Recovery tokens: expired, used, revoked go; the live one stays.
    sql(
        &db.url,
        "INSERT INTO password_recovery_tokens (user_id, token_hash, created_at, expires_at, used_at, revoked_at)
         VALUES (1, repeat('a', 64), now() - interval '2 days', now() - interval '1 hour', NULL, NULL),
                (1, repeat('b', 64), now(), now() + interval '1 day', now(), NULL),
                (1, repeat('c', 64), now(), now() + interval '1 day', NULL, now()),
                (1, repeat('d', 64), now(), now() + interval '1 day', NULL, NULL)",
    )
    .await;
    // The person's links: expired or spent go; the live one stays.
    sql(
        &db.url,
        "INSERT INTO privacy_person_links (token_sha256, cpf, finalidade, enviado_para, emitido_em, expira_em, usado_em)
         VALUES (repeat('a', 64), '52998224725', 'acesso', 'm***@exemplo.com.br', now() - interval '1 hour', now() - interval '30 minutes', NULL),
                (repeat('b', 64), '52998224725', 'acesso', 'm***@exemplo.com.br', now(), now() + interval '30 minutes', now()),
                (repeat('c', 64), '52998224725', 'consentimentos', 'm***@exemplo.com.br', now(), now() + interval '30 minutes', NULL)",
    )
    .await;
    // Throttle counters: idle for two days goes; recent, or old but still blocking, stays.
    sql(
        &db.url,
        "INSERT INTO signin_throttle (scope, key, failures, window_started_at, blocked_until)
         VALUES ('signin_email', 'velho', 3, now() - interval '2 days', NULL),
                ('signin_email', 'recente', 3, now() - interval '1 minute', NULL),
                ('signin_ip', 'bloqueado', 9, now() - interval '2 days', now() + interval '1 hour')",
    )
    .await;
    // Callback records: 40 days old go, yesterday's stay.
    sql(
        &db.url,
        "INSERT INTO signature_callbacks (event_id, received_at)
         VALUES ('velho-1', now() - interval '40 days'), ('velho-2', now() - interval '40 days'),
                ('ontem', now() - interval '1 day')",
    )
    .await;
    sql(
        &db.url,
        "INSERT INTO payment_events (event_id, kind, received_at)
         VALUES ('evt_velho', 'setup_intent.succeeded', now() - interval '40 days'),
                ('evt_ontem', 'setup_intent.succeeded', now() - interval '1 day')",
    )
    .await;

    // Idempotency keys: first used two days ago goes, an hour ago stays.
    sql(
        &db.url,
        "INSERT INTO idempotency_keys (user_id, key, fingerprint, created_at)
         VALUES (1, 'anteontem', repeat('a', 64), now() - interval '2 days'),
                (1, 'agora', repeat('b', 64), now() - interval '1 hour')",
    )
    .await;

    let store = PgExpiredRecords::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    let policy = RetentionPolicy {
        callback_records: Duration::from_secs(30 * 24 * 3600),
        idle_throttle: Duration::from_secs(24 * 3600),
        idempotency_keys: Duration::from_secs(24 * 3600),
        ended_sessions: Duration::from_secs(183 * 24 * 3600),
        // Smaller than what expired: several batches run.
        batch: 2,
    };
    let purged = store.purge(Utc::now(), policy).await.unwrap();
    assert_eq!(
        purged,
        Purged {
            sessions: 1,
            refresh_tokens: 3,
            recovery_tokens: 3,
            person_links: 2,
            refusal_defences: 0,
            throttle_counters: 1,
            signature_callbacks: 2,
            payment_events: 1,
            idempotency_keys: 1,
            ended_sessions: 0,
        }
    );
    assert_eq!(count(&db.url, "idempotency_keys").await, 1);
    assert_eq!(count(&db.url, "sessions").await, 1);
    assert_eq!(
        count(&db.url, "ended_sessions").await,
        1,
        "moved to the record, not deleted"
    );
    assert_eq!(count(&db.url, "refresh_tokens").await, 2);
    assert_eq!(count(&db.url, "password_recovery_tokens").await, 1);
    assert_eq!(count(&db.url, "privacy_person_links").await, 1);
    assert_eq!(count(&db.url, "signin_throttle").await, 2);
    assert_eq!(count(&db.url, "signature_callbacks").await, 1);
    assert_eq!(count(&db.url, "payment_events").await, 1);
    // Nothing left to purge: a second run removes nothing.
    assert_eq!(store.purge(Utc::now(), policy).await.unwrap().total(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusals_defence_is_erased_on_its_day_and_not_before() {
    let db = TestDatabase::new().await;
    {
        use diesel_async::SimpleAsyncConnection;
        let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
        conn.batch_execute(adapters_postgres::testing::ONE_SHOP_SALE)
            .await
            .unwrap();
    }
    sql(
        &db.url,
        "INSERT INTO refusal_defences (id_proposta, identificador, cpf_tag, recusada_em, declaracao, guardada_em,
                                       guardada_por, apagar_em)
         SELECT id, identificador, '\\x01', now() - interval '5 years', '{}', now(), 'sistema:retencao',
                now() - interval '1 minute'
         FROM proposals",
    )
    .await;
    let store = PgExpiredRecords::new(build_pool(&PoolSettings::new(&db.url)).unwrap());
    let policy = RetentionPolicy {
        callback_records: Duration::from_secs(30 * 24 * 3600),
        idle_throttle: Duration::from_secs(24 * 3600),
        idempotency_keys: Duration::from_secs(24 * 3600),
        ended_sessions: Duration::from_secs(183 * 24 * 3600),
        batch: 10,
    };
    // The day before, it stays.
    let purged = store
        .purge(Utc::now() - chrono::Duration::days(1), policy)
        .await
        .unwrap();
    assert_eq!(purged.refusal_defences, 0);
    assert_eq!(count(&db.url, "refusal_defences").await, 1);
    let purged = store.purge(Utc::now(), policy).await.unwrap();
    assert_eq!(purged.refusal_defences, 1);
    assert_eq!(count(&db.url, "refusal_defences").await, 0);
}
