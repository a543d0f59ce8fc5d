//! A person's view of the sandbox: headless Chromium (driven through chromedriver) opens each
//! party's signing link, clicks the button, and the proposal moves to analysis.
//! `scripts/test.sh` installs Debian's `chromium` and `chromium-driver` when they are missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp};
use fantoccini::{ClientBuilder, Locator};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Driver(Child);

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

async fn start_browser() -> (Driver, fantoccini::Client) {
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
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
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

#[tokio::test(flavor = "multi_thread")]
async fn a_person_opens_each_sandbox_link_clicks_sign_and_the_proposal_moves_to_analysis() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let body = json!({
        "billingCode": 5002, "productCode": 101, "typeOfPayments": "DESCONTO EM FOLHA", "shippingType": "sms",
        "customer": {"fullName": "Maria da Silva", "cpf": "12345678909", "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Casado", "nationality": "Brasileira", "cellPhone": "(11) 91234-5678",
            "email": "maria@exemplo.com.br", "profession": "Professora", "salary": 141200},
        "address": {"zipCode": "01310100", "address": "Avenida Paulista", "number": "1000", "neighborhood": "Bela Vista",
            "city": "São Paulo", "state": "SP"},
        "discountOnSheet": {"number": "1234567890", "specie": 41, "type": "BENEFÍCIO"}
    });
    let created: Value = app
        .post_json_as("/proposal/create", &partner, &body)
        .await
        .json()
        .await
        .unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = created["document"][0]["id_cliente"].as_i64().unwrap();
    let sent = app
        .post_json_as(
            "/signer",
            &partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let detail: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let keys: Vec<String> = ["clientKey", "associationKey", "federationKey", "enterpriseKey"]
        .iter()
        .map(|k| detail["data"]["sign"][*k].as_str().unwrap().to_owned())
        .collect();

    let (_driver, browser) = start_browser().await;
    for key in &keys {
        browser.goto(&app.url(&format!("/sandbox/sign/{key}"))).await.unwrap();
        assert_eq!(
            browser
                .find(Locator::Id("situacao"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap(),
            "PENDENTE"
        );
        browser
            .find(Locator::Id("assinar"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // The form posts and the page comes back showing the party signed.
        let started = Instant::now();
        loop {
            let status = match browser.find(Locator::Id("situacao")).await {
                Ok(element) => element.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if status == "ASSINADO" {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the page never showed ASSINADO (now {status:?})"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    browser.close().await.unwrap();

    let detail: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "EM ANÁLISE");
}
