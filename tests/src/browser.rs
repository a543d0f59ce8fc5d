//! Headless Chromium driven through chromedriver, for the tests that look at pages as a person
//! does. `scripts/test.sh` installs Debian's `chromium` and `chromium-driver` when they are missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use fantoccini::ClientBuilder;
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The chromedriver process, stopped when dropped.
pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn program(variable: &str, candidates: &[&str]) -> String {
    std::env::var(variable)
        .ok()
        .or_else(|| {
            candidates
                .iter()
                .find(|p| std::path::Path::new(p).exists())
                .map(|p| (*p).to_owned())
        })
        .unwrap_or_else(|| {
            panic!("{variable} não encontrado: rode scripts/test.sh, que instala os pacotes chromium e chromium-driver")
        })
}

pub async fn start_browser() -> (Driver, fantoccini::Client) {
    let chromedriver = program("CHROMEDRIVER", &["/usr/bin/chromedriver"]);
    let chrome = program("CHROME_BIN", &["/usr/bin/chromium", "/usr/bin/chromium-browser"]);
    let port = free_port();
    let driver = Driver(
        Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver"),
    );
    let profile = std::env::temp_dir().join(format!("sales-api-chromium-{}-{port}", std::process::id()));
    let capabilities = json!({"goog:chromeOptions": {"binary": chrome, "args": [
        "--headless=new", "--window-size=1280,1000", "--lang=pt-BR", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        format!("--user-data-dir={}", profile.display()),
    ]}});
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let started = Instant::now();
    loop {
        let connected = ClientBuilder::rustls()
            .unwrap()
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match connected {
            Ok(client) => return (driver, client),
            Err(e) if started.elapsed() < Duration::from_secs(20) => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("chromedriver não respondeu: {e}"),
        }
    }
}
