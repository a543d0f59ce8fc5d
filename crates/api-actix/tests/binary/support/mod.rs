//! What the tests of the built binary share: the command, a free port, waiting for it to listen.

#![allow(clippy::unwrap_used, dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

/// The built `sales-api`.
pub fn sales_api() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sales-api"))
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (up to 30 s) until the service at `base` answers `/health/live`.
pub async fn wait_until_live(client: &reqwest::Client, base: &str) {
    let started = Instant::now();
    while client.get(format!("{base}/health/live")).send().await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A development service of one worker on `port` over `database_url`, its signing key under
/// `keys`, without a metrics listener (tests run side by side); `extra` adds or overrides.
pub fn service_env(
    database_url: &str,
    keys: &std::path::Path,
    port: u16,
    extra: &[(&'static str, String)],
) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("SALES_ENV", "development".to_owned()),
        ("DATABASE_URL", database_url.to_owned()),
        (
            "JWT_PRIVATE_KEY_FILE",
            keys.join("jwt-ed25519.pem").display().to_string(),
        ),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("WORKERS", "1".to_owned()),
        ("RUST_LOG", "warn".to_owned()),
        ("METRICS_ADDR", "off".to_owned()),
    ];
    env.retain(|(name, _)| !extra.iter().any(|(e, _)| e == name));
    env.extend_from_slice(extra);
    env
}
