//! The built `sales-api` binary, stopped with SIGTERM while a request is in flight, finishes that
//! request before it exits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{free_port, sales_api, service_env, wait_until_live};
use adapters_postgres::testing::TestDatabase;
use std::process::{Command, Stdio};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_lets_the_request_in_flight_finish() {
    let db = TestDatabase::new().await;
    let port = free_port();
    let keys = std::env::temp_dir().join(format!("sales-api-shutdown-{}-{port}", std::process::id()));
    // A slow hash makes the sign-in take long enough to be caught in flight.
    let env = service_env(&db.url, &keys, port, &[("BCRYPT_COST", "13".to_owned())]);
    let run = |args: &[&str]| {
        let status = sales_api()
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "sales-api {args:?}");
    };
    run(&["keys", "generate", "--out", keys.to_str().unwrap()]);
    let mut create = sales_api()
        .args([
            "user",
            "create",
            "--email",
            "ana@exemplo.com.br",
            "--password-stdin",
            "--application",
            "BACKOFFICE",
        ])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        create.stdin.take().unwrap().write_all(b"Vendas#2026\n").unwrap();
    }
    assert!(create.wait().unwrap().success(), "user create");

    let mut server = sales_api()
        .arg("serve")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .spawn()
        .unwrap();
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    wait_until_live(&client, &base).await;

    let body = serde_json::json!({"email": "ana@exemplo.com.br", "password": "Vendas#2026", "aplicacao": "BACKOFFICE"});
    let in_flight = tokio::spawn({
        let client = client.clone();
        let url = format!("{base}/signin");
        async move { client.post(url).json(&body).send().await }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let pid = server.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());

    let response = in_flight.await.unwrap().expect("the request in flight was answered");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    let exit = tokio::task::spawn_blocking(move || server.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(exit.success(), "{exit:?}");
    // Stopped: new connections are refused.
    assert!(client.get(format!("{base}/health/live")).send().await.is_err());
    let _ = std::fs::remove_dir_all(keys);
}
