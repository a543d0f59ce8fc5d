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
