//! A person's view of the sandbox: headless Chromium (driven through chromedriver) opens each
//! party's signing link, clicks the button, and the proposal moves to analysis.
//! `scripts/test.sh` installs Debian's `chromium` and `chromium-driver` when they are missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::browser::start_browser;
use black_box_tests::{StatusCode, TestApp};
use fantoccini::Locator;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

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
        black_box_tests::browser::click(&browser, Locator::Id("assinar")).await;
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

/// A browser test that fails still ends its browser: the driver's process group (chromedriver and
/// the Chromium it started) is killed as the failing test unwinds.
#[tokio::test(flavor = "multi_thread")]
async fn a_failing_browser_test_leaves_no_chromium_or_chromedriver_running() {
    let (started, group) = tokio::sync::oneshot::channel();
    let failing = tokio::spawn(async move {
        let (driver, browser) = start_browser().await;
        browser.goto("about:blank").await.unwrap();
        let members = black_box_tests::browser::live_members(driver.group());
        started.send((driver.group(), members)).unwrap();
        panic!("um teste de navegador que falha");
    });
    assert!(failing.await.unwrap_err().is_panic());
    let (group, members) = group.await.unwrap();
    assert!(
        members.len() >= 2,
        "chromedriver e o Chromium que ele abriu estão no grupo {group}: {members:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = black_box_tests::browser::live_members(group);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = black_box_tests::browser::live_members(group);
    }
    assert!(left.is_empty(), "processos do navegador ainda vivos: {left:?}");
}
