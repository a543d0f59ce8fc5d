//! Headless Chromium driven through chromedriver, for the tests that look at pages as a person
//! does. `scripts/test.sh` installs Debian's `chromium` and `chromium-driver` when they are missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use fantoccini::ClientBuilder;
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The chromedriver process, in a process group of its own with the Chromium it starts: dropping
/// it (at a test's end, or while a failing test unwinds) kills the whole group, so that no browser
/// outlives its test. A test process killed outright (a timeout) cannot drop it: `scripts/test.sh`
/// kills what is left of the groups when it exits.
pub struct Driver(Child);

impl Driver {
    /// The process group of chromedriver and its browser.
    pub fn group(&self) -> i32 {
        i32::try_from(self.0.id()).expect("a pid fits an i32")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The group, not just chromedriver: the Chromium it started would outlive it.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.group())])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The processes of `group` still running (not zombies waiting for their parent to reap them).
pub fn live_members(group: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // /proc/PID/stat: `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                return false;
            };
            let fields: Vec<&str> = after.split_whitespace().collect();
            fields.first().is_some_and(|state| *state != "Z") && fields.get(2) == Some(&group.to_string().as_str())
        })
        .collect()
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
    // fantoccini's client speaks rustls, which needs the process's provider.
    api_actix::install_crypto_provider();
    let chromedriver = program("CHROMEDRIVER", &["/usr/bin/chromedriver"]);
    let chrome = program("CHROME_BIN", &["/usr/bin/chromium", "/usr/bin/chromium-browser"]);
    let port = free_port();
    let driver = Driver(
        Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
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

/// How long a page may take to reach the state a test waits for before the test fails.
const PAGE_DEADLINE: Duration = Duration::from_secs(15);
/// How often a waiting test looks at the page again.
const PAGE_POLL: Duration = Duration::from_millis(50);

/// Whether the page has loaded and htmx has no request, swap or settle in flight: an element
/// found now stays on the page until the next action (htmx marks what it is working on with
/// these classes).
const QUIET: &str = "return document.readyState === 'complete' \
    && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling');";

/// Waits until the page is quiet (see [`QUIET`]).
pub async fn quiet(browser: &fantoccini::Client) {
    let started = Instant::now();
    loop {
        if browser.execute(QUIET, vec![]).await.unwrap() == Value::Bool(true) {
            return;
        }
        assert!(started.elapsed() < PAGE_DEADLINE, "a página não terminou de desenhar");
        tokio::time::sleep(PAGE_POLL).await;
    }
}

/// The element `locator` finds once the page is quiet and the element is shown (a test acts on
/// the page the person would see, never on one half drawn).
async fn shown(browser: &fantoccini::Client, locator: fantoccini::Locator<'_>) -> fantoccini::elements::Element {
    let started = Instant::now();
    loop {
        quiet(browser).await;
        match browser.find(locator).await {
            Ok(element) => match element.is_displayed().await {
                Ok(true) => return element,
                Ok(false) => {}
                // Replaced since it was found: the next look finds the one drawn since.
                Err(error) if error.is_stale_element_reference() => {}
                Err(error) => panic!("{locator:?}: {error}"),
            },
            Err(error) if error.is_no_such_element() => {}
            Err(error) => panic!("{locator:?}: {error}"),
        }
        assert!(started.elapsed() < PAGE_DEADLINE, "{locator:?} não apareceu na página");
        tokio::time::sleep(PAGE_POLL).await;
    }
}

/// Clicks the element `locator` finds, once shown on a quiet page. A list drawn again between
/// the find and the click leaves a stale element: it is found again on the page drawn since;
/// any other refusal fails the test.
pub async fn click(browser: &fantoccini::Client, locator: fantoccini::Locator<'_>) {
    let started = Instant::now();
    loop {
        match shown(browser, locator).await.click().await {
            Ok(()) => return,
            Err(error) if error.is_stale_element_reference() && started.elapsed() < PAGE_DEADLINE => {}
            Err(error) => panic!("{locator:?}: {error}"),
        }
    }
}

/// Types `text` into the element `locator` finds, once shown on a quiet page (a stale element is
/// found again, as [`click`] does).
pub async fn type_into(browser: &fantoccini::Client, locator: fantoccini::Locator<'_>, text: &str) {
    let started = Instant::now();
    loop {
        match shown(browser, locator).await.send_keys(text).await {
            Ok(()) => return,
            Err(error) if error.is_stale_element_reference() && started.elapsed() < PAGE_DEADLINE => {}
            Err(error) => panic!("{locator:?}: {error}"),
        }
    }
}

/// Waits until `check` holds on the text of the element `selector` finds on a quiet page, and
/// returns that text.
pub async fn wait_for_text(browser: &fantoccini::Client, selector: &str, check: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        quiet(browser).await;
        if let Ok(element) = browser.find(fantoccini::Locator::Css(selector)).await
            && let Ok(text) = element.text().await
            && check(&text)
        {
            return text;
        }
        assert!(started.elapsed() < PAGE_DEADLINE, "{selector} não chegou ao esperado");
        tokio::time::sleep(PAGE_POLL).await;
    }
}
