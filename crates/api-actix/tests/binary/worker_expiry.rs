//! `sales-api worker` runs the background work without an HTTP server: with the webhook
//! deliveries, the signing deadlines' expiry (a proposal past its deadline moves to `EXPIRADO`
//! once, with its event).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::migrations;
use adapters_postgres::testing::{ONE_SHOP_SALE, TestDatabase, line};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn the_worker_expires_a_proposal_past_its_signing_deadline_once() {
    let db = TestDatabase::new().await;
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    conn.batch_execute(
        "UPDATE proposals SET status = 'AGUARDANDO ASSINATURA';
         INSERT INTO signatures (proposal_id, document_key, alterado_por, prazo_em)
         SELECT id, 'doc-sandbox', 'x', now() - interval '1 minute' FROM proposals",
    )
    .await
    .unwrap();
    let keys = std::env::temp_dir().join(format!("sales-api-worker-{}", db.name));
    assert!(
        crate::support::sales_api()
            .args(["keys", "generate", "--out", keys.to_str().unwrap()])
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success()
    );
    let env = crate::support::service_env(
        &db.url,
        &keys,
        crate::support::free_port(),
        &[
            ("SIGNATURE_EXPIRY_INTERVAL_MS", "100".to_owned()),
            ("MIGRATE_ON_START", "false".to_owned()),
        ],
    );
    let mut workers: Vec<_> = (0..2)
        .map(|_| {
            crate::support::sales_api()
                .arg("worker")
                .envs(env.clone())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let started = Instant::now();
    let status = loop {
        let status = line(&mut conn, "SELECT status AS line FROM proposals").await;
        if status == "EXPIRADO" || started.elapsed() > Duration::from_secs(20) {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // A few more passes of both workers: nothing moves twice.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for worker in &mut workers {
        worker.kill().unwrap();
        worker.wait().unwrap();
    }
    assert_eq!(status, "EXPIRADO");
    assert_eq!(
        line(
            &mut conn,
            "SELECT count(*)::text AS line FROM proposal_events WHERE to_status = 'EXPIRADO'"
        )
        .await,
        "1"
    );
}
