//! The delivery engine across real processes: the built `sales-api` killed with SIGKILL while
//! deliveries are in flight loses no committed event, and two processes on one database share the
//! queue without sending any attempt twice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{PgHooks, PgPool, PgSignatures, PoolSettings, SealingKeys, build_pool, seed};
use chrono::Utc;
use diesel_async::RunQueryDsl;
use domain::hooks::ports::HookStore;
use domain::hooks::{HookOwner, NewSubscription, SigningSecret};
use domain::proposals::lifecycle::StatusChange;
use domain::signature::SignatureStore;
use domain::values::{EventKind, HookStatus, ProposalStatus};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use uuid::Uuid;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `HOOKS_ENCRYPTION_KEY` of the processes: base64 of 32 bytes of 5.
const KEY_B64: &str = "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=";
const KEY: [u8; 32] = [5; 32];

#[derive(diesel::QueryableByName)]
struct Row {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

async fn scalar(pool: &PgPool, sql: &str) -> i64 {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(sql).get_result::<Row>(&mut conn).await.unwrap().n
}

async fn ids(pool: &PgPool, sql: &str) -> Vec<i64> {
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(sql)
        .load::<Row>(&mut conn)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.n)
        .collect()
}

struct World {
    db: TestDatabase,
    pool: PgPool,
    keys: PathBuf,
}

/// A database with the demo catalog, `n` e-commerce proposals in `NOVO` and one back-office
/// subscription pointing at `receiver`.
async fn world(n: i64, receiver: &MockServer) -> World {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    let mut conn = pool.get().await.unwrap();
    diesel::sql_query(format!(
        "INSERT INTO customers (cpf, nome_completo, data_nascimento, sexo, alterado_por, aplicacao_vendedor)
         SELECT lpad(i::text, 11, '0'), 'Cliente De Teste', date '1990-01-01', 'Feminino', 'teste', 'ECOMMERCE'
         FROM generate_series(1, {n}) AS i"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    diesel::sql_query(
        "INSERT INTO proposals (identificador, id_cliente, cpf_cliente, status, alterado_por, tipo_envio, fluxo, id_produto,
                                codigo_faturamento)
         SELECT gen_random_uuid()::text, c.id, c.cpf, 'NOVO', 'teste', 'sms', 'ECOMMERCE',
                (SELECT id FROM products WHERE codigo_produto = 101), 5002
         FROM customers c",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    PgHooks::new(
        pool.clone(),
        &SealingKeys {
            current: KEY,
            previous: vec![],
        },
    )
    .create(
        &NewSubscription {
            uuid: Uuid::new_v4(),
            contract_version: "2026-11-29".into(),
            owner: HookOwner::BackOffice,
            created_by: "teste".into(),
            endpoint: format!("{}/eventos", receiver.uri()),
            events: vec![EventKind::StatusChange],
            status: HookStatus::Active,
            secret: SigningSecret::from_key([1; 32]),
            at: Utc::now(),
        },
        20,
    )
    .await
    .unwrap()
    .unwrap();
    let keys = std::env::temp_dir().join(format!("sales-api-hooks-{}", db.name));
    let status = Command::new(env!("CARGO_BIN_EXE_sales-api"))
        .args(["keys", "generate", "--out", keys.to_str().unwrap()])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    World { db, pool, keys }
}

impl World {
    fn start(&self, command: &str) -> Child {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Command::new(env!("CARGO_BIN_EXE_sales-api"))
            .arg(command)
            .envs([
                ("SALES_ENV", "development".into()),
                ("DATABASE_URL", self.db.url.clone()),
                (
                    "JWT_PRIVATE_KEY_FILE",
                    self.keys.join("jwt-ed25519.pem").display().to_string(),
                ),
                ("BIND_ADDR", format!("127.0.0.1:{port}")),
                ("WORKERS", "1".into()),
                ("MIGRATE_ON_START", "false".into()),
                ("RUST_LOG", "warn".into()),
                // Several processes at once: no fixed metrics port.
                ("METRICS_ADDR", "off".into()),
                ("HOOKS_ENCRYPTION_KEY", KEY_B64.into()),
                ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8".into()),
                ("HOOKS_LEASE_SECS", "3".into()),
                ("HOOKS_REQUEST_TIMEOUT_MS", "2000".into()),
                ("HOOKS_POLL_INTERVAL_MS", "200".into()),
                ("HOOKS_RETRY_SCHEDULE_SECS", "1,1,1,1,1".into()),
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Cancels proposals `from..to` (by id order) through the same port the service uses.
    async fn change(&self, range: std::ops::Range<usize>) {
        let proposals = ids(&self.pool, "SELECT id AS n FROM proposals ORDER BY id").await;
        let store = PgSignatures::new(self.pool.clone());
        for id in &proposals[range] {
            store
                .change_status(&StatusChange {
                    proposal_id: *id,
                    from: ProposalStatus::New,
                    to: ProposalStatus::Cancelled,
                    changed_by: "teste".into(),
                    reason: None,
                    reason_category: None,
                    at: Utc::now(),
                    operation: None,
                })
                .await
                .unwrap();
        }
    }

    async fn wait_until_all_delivered(&self, expected: i64) {
        let started = Instant::now();
        loop {
            let delivered = scalar(
                &self.pool,
                "SELECT count(*) AS n FROM hook_deliveries WHERE state = 'ENTREGUE'",
            )
            .await;
            if delivered == expected {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{delivered} of {expected} delivered"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn kill(child: &mut Child, signal: &str) {
    let pid = child.id().to_string();
    assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
    child.wait().unwrap();
}

/// webhook-id → the bodies received with it.
async fn received_by_id(receiver: &MockServer) -> HashMap<String, Vec<Vec<u8>>> {
    let mut by_id: HashMap<String, Vec<Vec<u8>>> = HashMap::new();
    for request in receiver.received_requests().await.unwrap() {
        let id = request.headers["webhook-id"].to_str().unwrap().to_owned();
        by_id.entry(id).or_default().push(request.body);
    }
    by_id
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_mid_delivery_loses_no_committed_event() {
    let receiver = MockServer::start().await;
    // Slow answers: deliveries are in flight when the process dies.
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_millis(500)))
        .mount(&receiver)
        .await;
    let world = world(50, &receiver).await;
    let mut service = world.start("serve");
    world.change(0..40).await;
    let started = Instant::now();
    while receiver.received_requests().await.unwrap().len() < 5 {
        assert!(started.elapsed() < Duration::from_secs(30), "no delivery started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    kill(&mut service, "-KILL");
    // Committed while no process runs: delivered after the restart.
    world.change(40..50).await;
    let mut restarted = world.start("serve");
    world.wait_until_all_delivered(50).await;
    kill(&mut restarted, "-TERM");

    let by_id = received_by_id(&receiver).await;
    let mut queued: Vec<String> = {
        let mut conn = world.pool.get().await.unwrap();
        #[derive(diesel::QueryableByName)]
        struct Id {
            #[diesel(sql_type = diesel::sql_types::Text)]
            message_id: String,
        }
        diesel::sql_query("SELECT message_id FROM hook_deliveries")
            .load::<Id>(&mut conn)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.message_id)
            .collect()
    };
    queued.sort();
    let mut received: Vec<String> = by_id.keys().cloned().collect();
    received.sort();
    assert_eq!(queued.len(), 50);
    assert_eq!(received, queued, "every committed event reached the receiver");
    // Those in flight at the kill were sent again: same id, same bytes.
    let repeated: Vec<&Vec<Vec<u8>>> = by_id.values().filter(|bodies| bodies.len() > 1).collect();
    assert!(!repeated.is_empty(), "the kill caught no delivery in flight");
    assert!(repeated.iter().all(|bodies| bodies.iter().all(|b| *b == bodies[0])));
    let _ = std::fs::remove_dir_all(&world.keys);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_share_the_queue_without_sending_an_attempt_twice() {
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204).set_delay(Duration::from_millis(5)))
        .mount(&receiver)
        .await;
    let world = world(200, &receiver).await;
    let mut first = world.start("serve");
    let mut second = world.start("worker");
    world.change(0..200).await;
    world.wait_until_all_delivered(200).await;
    // Let any stray duplicate arrive before counting.
    tokio::time::sleep(Duration::from_millis(500)).await;
    kill(&mut first, "-TERM");
    kill(&mut second, "-TERM");

    let by_id = received_by_id(&receiver).await;
    assert_eq!(by_id.len(), 200);
    let twice: Vec<&String> = by_id.iter().filter(|(_, b)| b.len() > 1).map(|(id, _)| id).collect();
    assert!(twice.is_empty(), "sent twice: {twice:?}");
    assert_eq!(
        scalar(&world.pool, "SELECT count(*) AS n FROM hook_attempts").await,
        200
    );
    let _ = std::fs::remove_dir_all(&world.keys);
}
