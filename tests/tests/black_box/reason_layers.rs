//! A decision's reason in two layers (issue 69, decision 283; LGPD arts. 6, III and 11): the back
//! office's refusal or cancellation keeps its words for the customer (by e-mail), the back office
//! and the export; what a seller reads or receives carries the category only. What a seller wrote
//! itself it still reads back (`cancellation.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::hooks::requests;
use super::settlements::{decide, signed_partner_sale};
use black_box_tests::{TestApp, assert_error, error_fields};
use reqwest::StatusCode;
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";
const WORDS: &str = "Declarou uso contínuo de Losartana para hipertensão";

async fn read(app: &TestApp, path: &str, token: &str) -> Value {
    let response = app.get(path, Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

/// The status entry of the history that moved the proposal to `status`.
fn moved_to<'a>(history: &'a Value, status: &str) -> &'a Value {
    history["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["changes"]["status"]["to"] == status)
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_for_health_reaches_the_seller_as_its_category_and_the_customer_and_the_back_office_with_its_words() {
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let sellers_receiver = app.subscribed_receiver(&partner, &["ALTERAÇÃO_STATUS"]).await;
    let identifier = signed_partner_sale(&app, &partner, &office, CPF).await;

    // The category is one of the closed list, and only a refusal's or a cancellation's.
    for (body, code) in [
        (
            json!({"status": "REPROVADO", "reason": WORDS, "reasonCategory": "doenca"}),
            "categoria_motivo_invalida",
        ),
        (
            json!({"status": "APROVADO", "reason": "Documentação conferida", "reasonCategory": "saude"}),
            "categoria_motivo_indevida",
        ),
    ] {
        let refused = assert_error(
            decide(&app, &office, &identifier, body).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&refused), ["reasonCategory"]);
        assert_eq!(refused["errors"][0]["code"], code);
    }

    let refused = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "REPROVADO", "reason": WORDS, "reasonCategory": "saude"}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let event = refused.json::<Value>().await.unwrap()["document"][0].clone();
    assert_eq!(event["reason"], WORDS, "the back office reads its own words");
    assert_eq!(event["reasonCategory"], "saude");

    // Nothing the seller reads carries the words: route 7, the events, the history.
    let route_7 = read(&app, &format!("/proposal/byIdentifier/{identifier}"), &partner).await;
    let events = read(&app, &format!("/proposal/{identifier}/events"), &partner).await;
    let history = read(&app, &format!("/proposal/{identifier}/history"), &partner).await;
    for read in [&route_7, &events, &history] {
        assert!(!read.to_string().contains("Losartana"), "{read}");
    }
    assert_eq!(route_7["data"]["proposal"]["status"], "REPROVADO");
    let last = events["document"].as_array().unwrap().last().unwrap();
    assert_eq!(last["status"], "REPROVADO");
    assert_eq!(last["reason"], Value::Null);
    assert_eq!(last["reasonCategory"], "saude");
    let moved = moved_to(&history, "REPROVADO");
    assert_eq!(moved["changes"]["categoria_motivo"]["to"], "saude");
    assert!(moved["changes"].get("motivo").is_none(), "{moved}");

    // Nor what it receives: every delivery of the refusal, to whichever subscriber.
    let received = requests(&sellers_receiver, 3).await;
    let bodies: Vec<Value> = received
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let delivered = bodies.iter().find(|b| b["data"]["statusAtual"] == "REPROVADO").unwrap();
    assert_eq!(delivered["data"]["motivo"], Value::Null);
    assert_eq!(delivered["data"]["categoriaMotivo"], "saude");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM hook_deliveries WHERE body LIKE '%Losartana%'")
            .await,
        0
    );

    // The back office reads the words in the events and the history.
    let events = read(&app, &format!("/proposal/{identifier}/events"), &office).await;
    let last = events["document"].as_array().unwrap().last().unwrap();
    assert_eq!(last["reason"], WORDS);
    let history = read(&app, &format!("/proposal/{identifier}/history"), &office).await;
    let moved = moved_to(&history, "REPROVADO");
    assert_eq!(moved["changes"]["motivo"]["to"], WORDS);
    assert_eq!(moved["changes"]["categoria_motivo"]["to"], "saude");

    // The customer reads them in the refusal's e-mail, and the export keeps them.
    let mails = app
        .mails_to("maria@exemplo.com.br", "Sua proposta não foi aceita")
        .await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].text().contains(WORDS), "{}", mails[0].text());
    let export = read(&app, &format!("/privacy/customers/{CPF}"), &office).await;
    assert!(export.to_string().contains(WORDS), "{export}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancellation_the_back_office_records_reaches_the_seller_as_at_the_customers_request() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = app.sent_proposal(&partner, CPF).await;

    let told = "Cliente ligou: vai operar o joelho e quer desistir";
    app.cancel_at_customers_request(&office, &identifier, told).await;

    let events = read(&app, &format!("/proposal/{identifier}/events"), &partner).await;
    let last = events["document"].as_array().unwrap().last().unwrap();
    assert_eq!(last["status"], "CANCELADO");
    assert_eq!(last["reason"], Value::Null);
    assert_eq!(last["reasonCategory"], "a_pedido");
    let history = read(&app, &format!("/proposal/{identifier}/history"), &partner).await;
    assert!(!history.to_string().contains("joelho"), "{history}");
    assert_eq!(
        moved_to(&history, "CANCELADO")["changes"]["categoria_motivo"]["to"],
        "a_pedido"
    );
    let events = read(&app, &format!("/proposal/{identifier}/events"), &office).await;
    assert_eq!(events["document"].as_array().unwrap().last().unwrap()["reason"], told);
}
