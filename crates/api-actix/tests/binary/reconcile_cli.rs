//! `sales-api reconcile signatures` and `reconcile payments`: with `--dry-run`, exit status 1 when
//! anything differs from the outside service and 0 when nothing does; without it, an envelope
//! still open on a cancelled proposal is cancelled at the provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::migrations;
use adapters_postgres::testing::{ONE_SHOP_SALE, TestDatabase};
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use std::process::Stdio;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Runs `sales-api reconcile <what> [--dry-run]`: (success, what it printed).
fn reconcile(env: &[(&'static str, String)], what: &str, dry_run: bool) -> (bool, String) {
    let mut command = crate::support::sales_api();
    command.args(["reconcile", what]);
    if dry_run {
        command.arg("--dry-run");
    }
    let output = command
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), said)
}

fn envelope(status: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(
        serde_json::json!({"data": {"id": "env-9", "type": "envelopes", "attributes": {"status": status}}}),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_open_envelope_on_a_cancelled_proposal_is_drift_until_it_is_cancelled() {
    let db = TestDatabase::new().await;
    migrations::run_pending(&db.url).await.unwrap();
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    conn.batch_execute(ONE_SHOP_SALE).await.unwrap();
    let keys = std::env::temp_dir().join(format!("sales-api-reconcile-{}", db.name));
    assert!(
        crate::support::sales_api()
            .args(["keys", "generate", "--out", keys.to_str().unwrap()])
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success()
    );
    let clicksign = MockServer::start().await;
    let env = crate::support::service_env(
        &db.url,
        &keys,
        crate::support::free_port(),
        &[
            ("CLICKSIGN_BASE_URL", clicksign.uri()),
            ("CLICKSIGN_ACCESS_TOKEN", "token".to_owned()),
            ("SIGNATURE_CALLBACK_SECRET", "segredo-do-callback-0123".to_owned()),
        ],
    );
    // Nothing stored to compare: both agree.
    for what in ["signatures", "payments"] {
        let (clean, said) = reconcile(&env, what, true);
        assert!(clean, "{what}: {said}");
    }

    // A cancelled proposal whose envelope the provider still holds open (a cancellation whose
    // provider call was lost).
    conn.batch_execute(
        "UPDATE proposals SET status = 'CANCELADO';
         INSERT INTO signatures (proposal_id, document_key, alterado_por, prazo_em)
         SELECT id, 'env-9', 'x', now() + interval '10 days' FROM proposals",
    )
    .await
    .unwrap();
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-9"))
        .respond_with(envelope("running"))
        .mount(&clicksign)
        .await;
    Mock::given(method("PATCH"))
        .and(path("/api/v3/envelopes/env-9"))
        .and(body_partial_json(
            serde_json::json!({"data": {"attributes": {"status": "canceled"}}}),
        ))
        .respond_with(envelope("canceled"))
        .expect(1)
        .mount(&clicksign)
        .await;
    let (clean, said) = reconcile(&env, "signatures", true);
    assert!(!clean, "{said}");
    assert!(said.contains("env-9") && said.contains("1 divergente"), "{said}");

    let (mended, said) = reconcile(&env, "signatures", false);
    assert!(mended, "{said}");
    assert!(said.contains("1 cancelado"), "{said}");
    // The provider now holds it cancelled: nothing differs.
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-9"))
        .respond_with(envelope("canceled"))
        .with_priority(1)
        .mount(&clicksign)
        .await;
    let (clean, said) = reconcile(&env, "signatures", true);
    assert!(clean, "{said}");
    assert!(said.contains("0 divergente"), "{said}");
}
