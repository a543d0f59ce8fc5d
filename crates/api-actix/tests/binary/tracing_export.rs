//! The built binary continues a caller's W3C trace: its log line carries the request id and the
//! trace id, and with `OTEL_EXPORTER_OTLP_ENDPOINT` set its spans reach an OTLP collector (here a
//! mock one) under the caller's trace id.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{free_port, sales_api, service_env, wait_until_live};
use adapters_postgres::testing::TestDatabase;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";

#[tokio::test(flavor = "multi_thread")]
async fn a_callers_trace_is_logged_and_exported_over_otlp() {
    let collector = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/traces"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&collector)
        .await;
    let db = TestDatabase::new().await;
    let port = free_port();
    let keys = std::env::temp_dir().join(format!("sales-api-otlp-{}-{port}", std::process::id()));
    let env = service_env(
        &db.url,
        &keys,
        port,
        &[
            ("LOG_JSON", "true".to_owned()),
            ("RUST_LOG", "info".to_owned()),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.uri()),
            // Send each batch at once rather than every five seconds.
            ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
        ],
    );
    let generated = sales_api()
        .args(["keys", "generate", "--out", keys.to_str().unwrap()])
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(generated.success());
    let mut server = sales_api()
        .arg("serve")
        .env_clear()
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let stdout = server.stdout.take().unwrap();
    let lines = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });

    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    wait_until_live(&client, &base).await;
    let started = Instant::now();
    let answered = client
        .get(format!("{base}/health/ready"))
        .header("x-request-id", "rastreio-1")
        .header("traceparent", format!("00-{TRACE}-b7ad6b7169203331-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(answered.headers()["x-request-id"], "rastreio-1");

    // The collector receives the request's span under the caller's trace id (protobuf: its 16 raw
    // bytes).
    let trace_bytes: Vec<u8> = (0..TRACE.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&TRACE[i..i + 2], 16).unwrap())
        .collect();
    let exported = loop {
        let received = collector.received_requests().await.unwrap_or_default();
        if let Some(request) = received
            .iter()
            .find(|r| r.body.windows(trace_bytes.len()).any(|w| w == trace_bytes.as_slice()))
        {
            break request.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no span of the caller's trace exported"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(exported.headers["content-type"], "application/x-protobuf");

    // The request's log line names both.
    let line = loop {
        let found = log
            .lock()
            .unwrap()
            .iter()
            .find(|l| l.contains("request finished") && l.contains("rastreio-1"))
            .cloned();
        if let Some(line) = found {
            break line;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no log line for the request"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(line.contains(TRACE), "the trace id is logged: {line}");

    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let _ = server.wait();
}
