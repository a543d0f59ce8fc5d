//! The right of regret (`POST /proposal/{identificador}/withdraw`; CDC art. 49): a concluded
//! sale undone within 7 calendar days, every paid invoice refunded and the subscription
//! cancelled, under a protocol; after the 7th day, or with a refund refused, nothing changes.
//! The days are lived through with the sandbox's clock (`POST /sandbox/clock`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::WEBHOOK_SECRET;
use super::subscriptions::{another_paid_sale, paid_sale};
use black_box_tests::{StatusCode, TestApp, assert_error, error_fields};
use serde_json::{Value, json};

async fn withdraw(app: &TestApp, token: &str, identifier: &str, body: Value) -> reqwest::Response {
    app.post_json_as(&format!("/proposal/{identifier}/withdraw"), token, &body)
        .await
}

/// Moves the clock the right of regret is judged by `days` ahead of today.
async fn days_later(app: &TestApp, days: i64) {
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": days})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    assert_eq!(moved.json::<Value>().await.unwrap()["data"]["daysAhead"], days);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_online_sale_withdrawn_on_day_7_is_refunded_and_cancelled_and_on_day_8_is_refused() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let (_, late_identifier, _) = another_paid_sale(&app, &shop, "39053344705", "maria@exemplo.com.br").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;

    for wrong in [
        json!({"daysAhead": -1}),
        json!({"daysAhead": "sete"}),
        json!({"daysAhead": 3651}),
    ] {
        let refused = assert_error(
            app.post_json("/sandbox/clock", &wrong).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&refused), ["daysAhead"], "{wrong}");
    }
    days_later(&app, 7).await;
    let response = withdraw(
        &app,
        &shop,
        &identifier,
        json!({"reason": "Encontrei um plano mais barato"}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let data = response.json::<Value>().await.unwrap()["data"].clone();
    assert_eq!(data["status"], "CANCELADO");
    assert_eq!(data["previousStatus"], "EM ANÁLISE");
    assert_eq!(data["reason"], "ARREPENDIMENTO");
    let refunds = data["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{data}");
    assert!(refunds[0]["id"].as_str().unwrap().starts_with("re_"));
    assert_eq!(refunds[0]["amount"], 3990, "the whole month, in cents");
    assert_eq!(refunds[0]["status"], "succeeded");
    let protocol = data["protocol"].as_str().unwrap();

    // The subscription is cancelled at the platform and the proposal shows it.
    let after = app.proposal_data(&identifier, &shop).await;
    assert_eq!(after["proposal"]["status"], "CANCELADO");
    assert_eq!(after["subscription"]["id"], subscription.as_str());
    assert_eq!(after["subscription"]["status"], "canceled");
    // The back office finds the request; the export lists it with its refund.
    let request: Value = app
        .get(&format!("/protocol/{protocol}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(request["data"]["kind"], "arrependimento");
    assert_eq!(request["data"]["reason"], "Encontrei um plano mais barato");
    let export: Value = app
        .get("/privacy/customers/52998224725", Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let exported = &export["data"]["propostas"][0];
    assert_eq!(exported["reembolsos"][0]["id"], refunds[0]["id"]);
    assert_eq!(exported["reembolsos"][0]["valor_centavos"], 3990);
    assert_eq!(exported["reembolsos"][0]["protocolo"], protocol);

    // Once undone, it is finished: a second withdrawal names the state.
    assert_error(
        withdraw(&app, &shop, &identifier, json!({})).await,
        StatusCode::CONFLICT,
        "arrependimento_nao_permitido",
    )
    .await;

    days_later(&app, 8).await;
    let refused = assert_error(
        withdraw(&app, &shop, &late_identifier, json!({})).await,
        StatusCode::CONFLICT,
        "prazo_arrependimento_encerrado",
    )
    .await;
    let last_day = (chrono::Utc::now() + chrono::Duration::days(7))
        .with_timezone(&chrono::FixedOffset::west_opt(3 * 3600).unwrap())
        .format("%d/%m/%Y")
        .to_string();
    assert!(
        refused["message"].as_str().unwrap().contains(&last_day),
        "names the last day: {refused}"
    );
    let untouched = app.proposal_data(&late_identifier, &shop).await;
    assert_eq!(untouched["proposal"]["status"], "EM ANÁLISE");
    assert_eq!(untouched["subscription"]["status"], "active");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refund_the_platform_refuses_leaves_everything_as_it_was() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, _) = paid_sale(&app, "52998224725", "joao.reembolso-negado@exemplo.com.br").await;
    let refused = assert_error(
        withdraw(&app, &shop, &identifier, json!({})).await,
        StatusCode::CONFLICT,
        "reembolso_recusado",
    )
    .await;
    assert!(
        refused["message"].as_str().unwrap().contains("refund_declined"),
        "{refused}"
    );
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE");
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(app.count("SELECT count(*) AS n FROM customer_requests").await, 0);
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_sale_is_withdrawn_by_its_seller_from_its_last_signature_and_no_one_else() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let other = app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let signed = app.sent_proposal(&partner, "52998224725").await;
    app.sign_as_every_party(&office, &signed).await;
    let unsigned = app.create_proposal(&partner, "39053344705").await;

    assert_error(
        withdraw(&app, &other, &signed, json!({})).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    let short = assert_error(
        withdraw(&app, &partner, &signed, json!({"reason": "ab"})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&short), ["reason"]);
    for (wrong, code) in [(json!("x".repeat(501)), "texto_longo"), (json!(42), "tipo_invalido")] {
        let refused = assert_error(
            withdraw(&app, &partner, &signed, json!({"reason": wrong})).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&refused), ["reason"]);
        assert_eq!(refused["errors"][0]["code"], code);
    }
    assert_eq!(
        withdraw(&app, &partner, &signed, json!(["reason"])).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "a body that is not an object"
    );
    let not_sold = assert_error(
        withdraw(&app, &partner, &unsigned, json!({})).await,
        StatusCode::CONFLICT,
        "arrependimento_nao_permitido",
    )
    .await;
    assert!(not_sold["message"].as_str().unwrap().contains("NOVO"), "{not_sold}");

    let response = withdraw(&app, &partner, &signed, json!({})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let data = response.json::<Value>().await.unwrap()["data"].clone();
    assert_eq!(data["status"], "CANCELADO");
    assert_eq!(
        data["refunds"],
        json!([]),
        "paid outside the platform: nothing to refund here"
    );
    let history: Value = app
        .get(&format!("/proposal/{signed}/history"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let request = history["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "solicitacao")
        .unwrap();
    assert_eq!(request["changes"]["tipo"]["to"], "arrependimento");
    assert_eq!(request["changes"]["protocolo"]["to"], data["protocol"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_regret_returns_what_was_paid_monetarily_corrected_and_confirms_it_to_the_customer() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, _) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    days_later(&app, 5).await;
    let response = withdraw(&app, &shop, &identifier, json!({"reason": "Mudei de ideia"})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let data = response.json::<Value>().await.unwrap()["data"].clone();
    let protocol = data["protocol"].as_str().unwrap().to_owned();

    // CDC art. 49, sole paragraph: what was paid returns "monetariamente atualizado". The card
    // takes back what it was charged; the correction above it is the finance team's to pay.
    let refunds = app.proposal_data(&identifier, &shop).await["refunds"].clone();
    let card = &refunds[0];
    assert_eq!(card["reason"], "ARREPENDIMENTO");
    assert_eq!(card["amount"], 3990);
    let correction = &card["correction"];
    assert_eq!(correction["index"], "IPCA", "{refunds}");
    let factor: f64 = correction["factor"].as_str().unwrap().parse().unwrap();
    assert!(factor > 1.0, "five days of IPCA: {correction}");
    let corrected = (3990.0 * factor).round() as i64;
    let to_pay: i64 = refunds
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "a_pagar")
        .map(|r| r["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(3990 + to_pay, corrected, "{refunds}");

    // The customer is told, as a cancellation's customer is: the protocol and what goes back.
    let mails = app
        .mails_to(
            "joao@exemplo.com.br",
            "Arrependimento registrado: sua contratação foi desfeita",
        )
        .await;
    assert_eq!(mails.len(), 1);
    let text = mails[0].text();
    assert!(text.contains(&format!("Protocolo: {protocol}")), "{text}");
    assert!(text.contains("R$ 39,90 devolvidos no cartão"), "{text}");
    assert!(text.contains("Mudei de ideia"), "{text}");
}
