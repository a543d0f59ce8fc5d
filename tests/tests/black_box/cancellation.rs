//! Cancellation at the customer's request (`POST /proposal/{identificador}/cancel`): by the seller
//! that owns the proposal or the back office, before it is signed, under a protocol the back office
//! finds; the envelope is closed to late signatures and the signing link stops working.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, error_fields, shop_proposal_body, signature_callback};
use serde_json::{Value, json};

const SECRET: &str = "segredo-de-teste-1234567890";
const PARTNER: &str = "11222333000181";
const REASON: &str = "Cliente desistiu da contratação";

struct Sellers {
    app: TestApp,
    partner: String,
    other_partner: String,
    office: String,
    shop: String,
}

async fn sellers(extra: &[(&str, &str)]) -> Sellers {
    let mut settings = vec![("SIGNATURE_CALLBACK_SECRET", SECRET)];
    settings.extend_from_slice(extra);
    let app = TestApp::spawn_with(&settings).await;
    app.seed_catalog().await;
    Sellers {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        other_partner: app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        app,
    }
}

async fn sent_proposal(s: &Sellers, cpf: &str) -> String {
    s.app.sent_proposal(&s.partner, cpf).await
}

async fn cancel(s: &Sellers, token: &str, identifier: &str, reason: Value) -> reqwest::Response {
    s.app
        .post_json_as(
            &format!("/proposal/{identifier}/cancel"),
            token,
            &json!({"reason": reason}),
        )
        .await
}

async fn proposal(s: &Sellers, identifier: &str) -> Value {
    s.app.proposal_data(identifier, &s.office).await
}

async fn read(s: &Sellers, path: &str, token: &str) -> Value {
    let response = s.app.get(path, Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_owner_cancels_a_proposal_awaiting_signature_under_a_protocol_the_back_office_finds() {
    let s = sellers(&[]).await;
    let identifier = sent_proposal(&s, "12345678909").await;

    let response = cancel(&s, &s.partner, &identifier, json!(format!("  {REASON}  "))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    let data = &body["data"];
    let protocol = data["protocol"].as_str().unwrap().to_owned();
    let today = chrono::Utc::now()
        .with_timezone(&chrono::FixedOffset::west_opt(3 * 3600).unwrap())
        .format("%Y%m%d")
        .to_string();
    assert!(
        protocol.len() == 16 && protocol.starts_with(&today) && protocol.bytes().all(|b| b.is_ascii_digit()),
        "{protocol}"
    );
    assert_eq!(data["identifier"], identifier.as_str());
    assert_eq!(data["previousStatus"], "AGUARDANDO ASSINATURA");
    assert_eq!(data["status"], "CANCELADO");
    assert_eq!(data["reason"], REASON, "the reason is kept trimmed");
    assert_eq!(data["changedBy"], "rep@demo.com.br");
    assert_eq!(data["sequence"], 2);
    assert_eq!(proposal(&s, &identifier).await["proposal"]["status"], "CANCELADO");

    // The event partners receive carries the reason; the history the reason and the protocol.
    let events = read(&s, &format!("/proposal/{identifier}/events"), &s.office).await;
    let last = &events["document"][1];
    assert_eq!(last["status"], "CANCELADO");
    assert_eq!(last["reason"], REASON);
    let history = read(&s, &format!("/proposal/{identifier}/history"), &s.partner).await;
    let entries = history["data"]["entries"].as_array().unwrap();
    let moved = entries
        .iter()
        .find(|e| e["changes"]["status"]["to"] == "CANCELADO")
        .unwrap();
    assert_eq!(moved["changes"]["motivo"]["to"], REASON);
    let request = entries.iter().find(|e| e["action"] == "solicitacao").unwrap();
    assert_eq!(request["changes"]["protocolo"]["to"], protocol.as_str());
    assert_eq!(request["changes"]["tipo"]["to"], "cancelamento");

    // The back office finds the request by its protocol; a seller may not look protocols up.
    let found = read(&s, &format!("/protocol/{protocol}"), &s.office).await;
    assert_eq!(
        found["data"],
        json!({"protocol": protocol, "kind": "cancelamento", "identifier": identifier,
               "reason": REASON, "requestedBy": "rep@demo.com.br", "requestedAt": found["data"]["requestedAt"]})
    );
    assert_error(
        s.app.get(&format!("/protocol/{protocol}"), Some(&s.partner)).await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_error(
        s.app.get("/protocol/2026112600009999", Some(&s.office)).await,
        StatusCode::NOT_FOUND,
        "protocolo_nao_encontrado",
    )
    .await;
    let malformed = assert_error(
        s.app.get("/protocol/abc", Some(&s.office)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&malformed), ["protocolo"]);

    // The signing link no longer works, and a second cancellation names the state.
    assert_error(
        s.app
            .get(&format!("/signer/signLink?identifier={identifier}"), Some(&s.partner))
            .await,
        StatusCode::CONFLICT,
        "proposta_cancelada",
    )
    .await;
    let again = assert_error(
        cancel(&s, &s.partner, &identifier, json!(REASON)).await,
        StatusCode::CONFLICT,
        "cancelamento_nao_permitido",
    )
    .await;
    assert!(again["message"].as_str().unwrap().contains("CANCELADO"), "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_late_signature_or_refusal_after_the_cancellation_changes_nothing() {
    let s = sellers(&[]).await;
    let identifier = sent_proposal(&s, "12345678909").await;
    let sign = proposal(&s, &identifier).await["sign"].clone();
    assert_eq!(
        cancel(&s, &s.office, &identifier, json!(REASON)).await.status(),
        StatusCode::OK
    );
    let history_before = s.app.count("SELECT count(*) AS n FROM proposal_history").await;

    for (kind, key) in [("sign", "clientKey"), ("refusal", "associationKey")] {
        let (body, hmac) = signature_callback(SECRET, kind, sign[key].as_str().unwrap());
        let response = s
            .app
            .client
            .post(s.app.url("/callbacks/signature"))
            .header("content-type", "application/json")
            .header("content-hmac", hmac)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::OK,
            "answered so the provider stops retrying"
        );
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["message"], "Evento ignorado: a proposta está CANCELADO.");
    }
    // The sandbox's button refuses as a closed envelope would.
    let pressed = s
        .app
        .client
        .post(
            s.app
                .url(&format!("/sandbox/sign/{}", sign["federationKey"].as_str().unwrap())),
        )
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_error(pressed, StatusCode::CONFLICT, "proposta_cancelada").await;

    let after = proposal(&s, &identifier).await;
    assert_eq!(after["proposal"]["status"], "CANCELADO");
    for status in ["clientStatus", "associationStatus", "federationStatus"] {
        assert_eq!(after["sign"][status], "PENDENTE", "{status}");
    }
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM proposal_history").await,
        history_before
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_and_the_shop_cancel_new_proposals_and_other_sellers_find_nothing() {
    let s = sellers(&[]).await;
    let partners = s.app.create_proposal(&s.partner, "12345678909").await;

    // Another partner and the shop see no such proposal; nothing changes.
    for token in [&s.other_partner, &s.shop] {
        assert_error(
            cancel(&s, token, &partners, json!(REASON)).await,
            StatusCode::NOT_FOUND,
            "proposta_nao_encontrada",
        )
        .await;
    }
    assert_eq!(proposal(&s, &partners).await["proposal"]["status"], "NOVO");
    assert_eq!(s.app.count("SELECT count(*) AS n FROM customer_requests").await, 0);

    let by_office = cancel(&s, &s.office, &partners, json!(REASON)).await;
    assert_eq!(by_office.status(), StatusCode::OK);
    let by_office: Value = by_office.json().await.unwrap();
    assert_eq!(by_office["data"]["previousStatus"], "NOVO");
    assert_eq!(by_office["data"]["changedBy"], "bo@demo.com.br");

    // The shop cancels its own e-commerce proposal; a partner may not.
    let created = s
        .app
        .post_json_as(
            "/proposal/create/ecommerce",
            &s.shop,
            &shop_proposal_body("52998224725"),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    let shops = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    assert_error(
        cancel(&s, &s.partner, &shops, json!(REASON)).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    let by_shop = cancel(&s, &s.shop, &shops, json!(REASON)).await;
    assert_eq!(by_shop.status(), StatusCode::OK);
    let by_shop: Value = by_shop.json().await.unwrap();
    assert_ne!(
        by_shop["data"]["protocol"], by_office["data"]["protocol"],
        "each request its own protocol"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_signed_proposal_is_not_cancelled_and_the_reason_is_checked_first() {
    let s = sellers(&[]).await;
    let identifier = sent_proposal(&s, "12345678909").await;

    for (reason, code) in [
        (json!(null), "campo_obrigatorio"),
        (json!("   "), "campo_obrigatorio"),
        (json!("ok"), "texto_curto"),
        (json!("x".repeat(501)), "texto_longo"),
        (json!(7), "tipo_invalido"),
    ] {
        let refused = assert_error(
            cancel(&s, &s.partner, &identifier, reason.clone()).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&refused), ["reason"], "{reason}");
        assert_eq!(refused["errors"][0]["code"], code, "{reason}");
    }
    assert_eq!(
        proposal(&s, &identifier).await["proposal"]["status"],
        "AGUARDANDO ASSINATURA"
    );

    s.app.sign_as_every_party(&s.office, &identifier).await;
    let refused = assert_error(
        cancel(&s, &s.office, &identifier, json!(REASON)).await,
        StatusCode::CONFLICT,
        "cancelamento_nao_permitido",
    )
    .await;
    assert!(refused["message"].as_str().unwrap().contains("EM ANÁLISE"), "{refused}");
    assert_eq!(proposal(&s, &identifier).await["proposal"]["status"], "EM ANÁLISE");
    assert_eq!(s.app.count("SELECT count(*) AS n FROM customer_requests").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_clicksign_the_envelope_is_cancelled_first_and_a_provider_failure_changes_nothing() {
    use wiremock::matchers::{body_partial_json, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let clicksign = MockServer::start().await;
    let uri = clicksign.uri();
    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let s = sellers(&[("CLICKSIGN_BASE_URL", &uri), ("CLICKSIGN_ACCESS_TOKEN", "token")]).await;
    let identifier = sent_proposal(&s, "12345678909").await;

    // The provider refuses the first cancellation, and reads the envelope back as still running.
    let canceled = json!({"data": {"attributes": {"status": "canceled"}}});
    Mock::given(method("PATCH"))
        .and(path("/api/v3/envelopes/env-1"))
        .and(body_partial_json(&canceled))
        .respond_with(ResponseTemplate::new(409).set_body_json(json!({"errors": [{"detail": "ocupado"}]})))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&clicksign)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                json!({"data": {"id": "env-1", "type": "envelopes", "attributes": {"status": "running"}}}),
            ),
        )
        .mount(&clicksign)
        .await;
    assert_error(
        cancel(&s, &s.partner, &identifier, json!(REASON)).await,
        StatusCode::BAD_GATEWAY,
        "provedor_assinatura_indisponivel",
    )
    .await;
    assert_eq!(
        proposal(&s, &identifier).await["proposal"]["status"],
        "AGUARDANDO ASSINATURA"
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM customer_requests").await, 0);

    // The provider accepts the retry.
    let done = cancel(&s, &s.partner, &identifier, json!(REASON)).await;
    assert_eq!(done.status(), StatusCode::OK);
    let cancellations = clicksign
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| {
            r.method.as_str() == "PATCH"
                && r.url.path() == "/api/v3/envelopes/env-1"
                && serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["attributes"]["status"] == "canceled"
        })
        .count();
    assert_eq!(cancellations, 2, "the refused attempt and the one that worked");
    assert_eq!(proposal(&s, &identifier).await["proposal"]["status"], "CANCELADO");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_export_lists_the_requests_and_anonymisation_keeps_their_protocols_without_their_reasons() {
    let s = sellers(&[]).await;
    let identifier = sent_proposal(&s, "52998224725").await;
    let reason = "Maria da Silva ligou e pediu o cancelamento";
    let cancelled: Value = cancel(&s, &s.partner, &identifier, json!(reason))
        .await
        .json()
        .await
        .unwrap();
    let protocol = cancelled["data"]["protocol"].as_str().unwrap().to_owned();

    let export = read(&s, "/privacy/customers/52998224725", &s.office).await;
    let requests = &export["data"]["propostas"][0]["protocolos"];
    assert_eq!(requests.as_array().unwrap().len(), 1, "{export}");
    assert_eq!(requests[0]["protocolo"], protocol.as_str());
    assert_eq!(requests[0]["tipo"], "cancelamento");
    assert_eq!(requests[0]["motivo"], reason);
    assert_eq!(requests[0]["solicitado_por"], "rep@demo.com.br");

    let anonymized = s
        .app
        .client
        .post(s.app.url("/privacy/customers/52998224725/anonymize"))
        .bearer_auth(&s.office)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymized.status(), StatusCode::OK);
    let found = read(&s, &format!("/protocol/{protocol}"), &s.office).await;
    assert_eq!(found["data"]["reason"], "[removido na anonimização]");
    assert_eq!(found["data"]["identifier"], identifier.as_str());
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM customer_requests WHERE motivo LIKE '%Maria%'")
            .await,
        0
    );
}
