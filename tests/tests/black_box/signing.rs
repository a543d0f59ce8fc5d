//! Routes 12 and 13 and the proposal lifecycle, through the sandbox signature provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, error_fields, proposal_body};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

const SECRET: &str = "segredo-de-teste-1234567890";
const PARTNER: &str = "11222333000181";

struct Setup {
    app: TestApp,
    partner: String,
    other_partner: String,
    office: String,
    shop: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn_with(&[
        ("SIGNATURE_CALLBACK_SECRET", SECRET),
        ("SIGNATURE_MAX_RESENDS", "2"),
        ("PUBLIC_URL", "https://vendas.exemplo.com.br"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let other_partner = app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    Setup {
        app,
        partner,
        other_partner,
        office,
        shop,
    }
}

/// The sellers over a service whose provider is Clicksign's Envelope API, mocked: its envelope,
/// signers and notifications accepted.
async fn with_clicksign() -> (wiremock::MockServer, Setup) {
    let clicksign = wiremock::MockServer::start().await;
    let uri = clicksign.uri();
    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", SECRET),
    ])
    .await;
    app.seed_catalog().await;
    let s = Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        other_partner: app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        app,
    };
    (clicksign, s)
}

/// A new proposal: (identifier, customer id).
async fn new_proposal(s: &Setup, cpf: &str) -> (String, i64) {
    let response = s
        .app
        .post_json_as("/proposal/create", &s.partner, &proposal_body(cpf))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    let record = &body["document"][0];
    (
        record["identificador"].as_str().unwrap().to_owned(),
        record["id_cliente"].as_i64().unwrap(),
    )
}

async fn send(s: &Setup, identifier: &str, customer_id: i64) -> reqwest::Response {
    s.app
        .post_json_as(
            "/signer",
            &s.partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await
}

async fn detail(s: &Setup, identifier: &str) -> Value {
    let body: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    body["data"].clone()
}

async fn events(s: &Setup, identifier: &str) -> Vec<Value> {
    let body: Value = s
        .app
        .get(&format!("/proposal/{identifier}/events"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    body["document"].as_array().unwrap().clone()
}

async fn sandbox_sign(s: &Setup, key: &str) -> Value {
    let response = s
        .app
        .client
        .post(s.app.url(&format!("/sandbox/sign/{key}")))
        .header("accept", "application/json")
        .header("user-agent", "Mozilla/5.0 (Teste de Assinatura)")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

fn signed_callback(body: &str) -> (String, String) {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    (body.to_owned(), format!("sha256={hex}"))
}

async fn post_callback(s: &Setup, body: &str, hmac_header: &str) -> reqwest::Response {
    s.app
        .client
        .post(s.app.url("/callbacks/signature"))
        .header("content-type", "application/json")
        .header("content-hmac", hmac_header)
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

fn callback_body(kind: &str, key: &str) -> String {
    callback_body_at(kind, key, chrono::Utc::now())
}

fn callback_body_at(kind: &str, key: &str, occurred_at: chrono::DateTime<chrono::Utc>) -> String {
    json!({"event": {"name": kind, "occurred_at": occurred_at.to_rfc3339(), "data": {"signer": {"key": key, "auths": ["whatsapp"], "address": "203.0.113.7", "latitude": "-23.56", "longitude": "-46.65"}}}}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn from_a_new_proposal_to_analysis_through_the_sandbox_with_one_event_per_change() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    assert_eq!(detail(&s, &identifier).await["sign"]["clientStatus"], Value::Null);

    let response = send(&s, &identifier, customer_id).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(body["document"], json!([]));
    assert_eq!(body["rowsAffected"], json!([]));
    let sign_url = body["data"]["signUrl"].as_str().unwrap().to_owned();
    assert!(
        sign_url.starts_with("https://vendas.exemplo.com.br/sandbox/sign/"),
        "{sign_url}"
    );

    let link: Value = s
        .app
        .get(&format!("/signer/signLink?identifier={identifier}"), Some(&s.partner))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(link["data"]["signUrl"], sign_url.as_str());
    assert_eq!(link["rowsAffected"], json!([1]));

    let data = detail(&s, &identifier).await;
    assert_eq!(data["proposal"]["status"], "AGUARDANDO ASSINATURA");
    let sign = &data["sign"];
    let keys: Vec<String> = ["clientKey", "associationKey", "federationKey", "enterpriseKey"]
        .iter()
        .map(|k| sign[*k].as_str().unwrap().to_owned())
        .collect();
    assert!(sign_url.ends_with(&keys[0]));
    for status in [
        "clientStatus",
        "associationStatus",
        "federationStatus",
        "enterpriseStatus",
    ] {
        assert_eq!(sign[status], "PENDENTE");
    }

    for key in &keys[..3] {
        let answer = sandbox_sign(&s, key).await;
        assert_eq!(answer["data"]["proposalStatus"], Value::Null);
    }
    assert_eq!(
        detail(&s, &identifier).await["proposal"]["status"],
        "AGUARDANDO ASSINATURA"
    );
    let fourth = sandbox_sign(&s, &keys[3]).await;
    assert_eq!(fourth["data"]["proposalStatus"], "EM ANÁLISE");

    let data = detail(&s, &identifier).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE");
    for status in [
        "clientStatus",
        "associationStatus",
        "federationStatus",
        "enterpriseStatus",
    ] {
        assert_eq!(data["sign"][status], "ASSINADO");
    }
    let history = events(&s, &identifier).await;
    let moves: Vec<(i64, String, String, String)> = history
        .iter()
        .map(|e| {
            (
                e["sequence"].as_i64().unwrap(),
                e["previousStatus"].as_str().unwrap().into(),
                e["status"].as_str().unwrap().into(),
                e["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        moves,
        vec![
            (
                1,
                "NOVO".into(),
                "AGUARDANDO ASSINATURA".into(),
                "ALTERAÇÃO_STATUS".into()
            ),
            (
                2,
                "AGUARDANDO ASSINATURA".into(),
                "EM ANÁLISE".into(),
                "ALTERAÇÃO_STATUS".into()
            )
        ]
    );
    assert_eq!(history[0]["changedBy"], "rep@demo.com.br");

    // The back office approves; a second verdict is refused naming both states.
    let approved = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "APROVADO", "reason": "ok"}))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), StatusCode::OK);
    let approved: Value = approved.json().await.unwrap();
    assert_eq!(approved["document"][0]["sequence"], 3);
    assert_eq!(approved["document"][0]["reason"], "ok");
    let again = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "REPROVADO"}))
        .send()
        .await
        .unwrap();
    let refused = assert_error(again, StatusCode::BAD_REQUEST, "transicao_invalida").await;
    assert!(
        refused["message"].as_str().unwrap().contains("APROVADO")
            && refused["message"].as_str().unwrap().contains("REPROVADO")
    );
    assert_eq!(
        detail(&s, &identifier).await["proposal"]["modifiedBy"],
        "bo@demo.com.br"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resending_notifies_again_counts_and_stops_at_the_limit() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    let first: Value = send(&s, &identifier, customer_id).await.json().await.unwrap();
    for expected in 1..=2 {
        let again = send(&s, &identifier, customer_id).await;
        assert_eq!(again.status(), StatusCode::OK);
        let again: Value = again.json().await.unwrap();
        assert_eq!(again["data"]["signUrl"], first["data"]["signUrl"], "the same link");
        assert_eq!(
            s.app
                .count(&format!(
                    "SELECT reenvios::bigint AS n FROM proposals WHERE identificador = '{identifier}'"
                ))
                .await,
            expected
        );
    }
    assert_error(
        send(&s, &identifier, customer_id).await,
        StatusCode::BAD_REQUEST,
        "limite_reenvios",
    )
    .await;
    assert_eq!(events(&s, &identifier).await.len(), 1, "resends change no status");
}

#[tokio::test(flavor = "multi_thread")]
async fn sending_is_refused_for_another_customer_another_partner_the_shop_and_finished_proposals() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    let wrong = assert_error(
        send(&s, &identifier, customer_id + 1).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&wrong), ["customerId"]);
    let elsewhere = s
        .app
        .post_json_as(
            "/signer",
            &s.other_partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_error(elsewhere, StatusCode::NOT_FOUND, "proposta_nao_encontrada").await;
    let shop = s
        .app
        .post_json_as(
            "/signer",
            &s.shop,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_error(shop, StatusCode::FORBIDDEN, "sem_permissao").await;
    let missing = assert_error(
        s.app.post_json_as("/signer", &s.partner, &json!({})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&missing), ["customerId", "identifier"]);

    assert_error(
        s.app
            .get(&format!("/signer/signLink?identifier={identifier}"), Some(&s.partner))
            .await,
        StatusCode::NOT_FOUND,
        "assinatura_nao_enviada",
    )
    .await;
    assert_error(
        s.app
            .get(
                &format!("/signer/signLink?identifier={identifier}"),
                Some(&s.other_partner),
            )
            .await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_error(
        s.app.get("/signer/signLink", Some(&s.partner)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;

    let cancelled = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "CANCELADO"}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::OK);
    assert_error(
        send(&s, &identifier, customer_id).await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    // Cancelled frees the customer to open a new proposal for the product.
    new_proposal(&s, "12345678909").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn callbacks_are_verified_recorded_once_and_a_refusal_cancels() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    send(&s, &identifier, customer_id).await;
    let sign = detail(&s, &identifier).await["sign"].clone();
    let client_key = sign["clientKey"].as_str().unwrap();

    let (body, header) = signed_callback(&callback_body("sign", client_key));
    let first = post_callback(&s, &body, &header).await;
    assert_eq!(first.status(), StatusCode::OK);
    let second = post_callback(&s, &body, &header).await;
    assert_eq!(second.status(), StatusCode::OK);
    assert_eq!(
        second.json::<Value>().await.unwrap()["message"],
        "Evento já registrado."
    );
    let data = detail(&s, &identifier).await;
    assert_eq!(data["sign"]["clientStatus"], "ASSINADO");
    assert_eq!(
        data["sign"]["location"],
        json!({"latitude": "-23.56", "longitude": "-46.65"})
    );

    assert_error(
        post_callback(&s, &body, "sha256=00").await,
        StatusCode::UNAUTHORIZED,
        "callback_nao_autenticado",
    )
    .await;
    let forged = callback_body("sign", sign["associationKey"].as_str().unwrap());
    assert_error(
        post_callback(&s, &forged, &header).await,
        StatusCode::UNAUTHORIZED,
        "callback_nao_autenticado",
    )
    .await;
    assert_eq!(detail(&s, &identifier).await["sign"]["associationStatus"], "PENDENTE");
    let (junk, junk_header) = signed_callback("{\"event\":{}}");
    assert_error(
        post_callback(&s, &junk, &junk_header).await,
        StatusCode::BAD_REQUEST,
        "requisicao_invalida",
    )
    .await;
    // A genuine event older than half the callback records' retention (30 days) is refused: once
    // its record is purged, a replay could not be told from a first delivery.
    let stale = callback_body_at(
        "sign",
        sign["enterpriseKey"].as_str().unwrap(),
        chrono::Utc::now() - chrono::Duration::days(16),
    );
    let (stale, stale_header) = signed_callback(&stale);
    let refused = assert_error(
        post_callback(&s, &stale, &stale_header).await,
        StatusCode::BAD_REQUEST,
        "requisicao_invalida",
    )
    .await;
    assert_eq!(refused["message"], "Evento fora da tolerância de tempo.");
    assert_eq!(detail(&s, &identifier).await["sign"]["enterpriseStatus"], "PENDENTE");
    let (unknown, unknown_header) = signed_callback(&callback_body("sign", "req-nao-existe"));
    assert_error(
        post_callback(&s, &unknown, &unknown_header).await,
        StatusCode::NOT_FOUND,
        "chave_assinatura_desconhecida",
    )
    .await;

    let (refusal, refusal_header) = signed_callback(&callback_body("refusal", sign["federationKey"].as_str().unwrap()));
    assert_eq!(
        post_callback(&s, &refusal, &refusal_header).await.status(),
        StatusCode::OK
    );
    let data = detail(&s, &identifier).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    assert_eq!(data["sign"]["federationStatus"], "RECUSADO");
    let history = events(&s, &identifier).await;
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["status"], "CANCELADO");
    assert_eq!(history[1]["changedBy"], "assinatura-eletronica");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_moves_are_checked_against_the_machine() {
    let s = setup().await;
    let (identifier, _) = new_proposal(&s, "12345678909").await;
    let patch = |token: String, status: &'static str| {
        let request = s
            .app
            .client
            .patch(s.app.url(&format!("/proposal/{identifier}/status")))
            .bearer_auth(token)
            .json(&json!({"status": status}));
        async move { request.send().await.unwrap() }
    };
    let refused = assert_error(
        patch(s.office.clone(), "APROVADO").await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    assert!(refused["message"].as_str().unwrap().contains("de NOVO para APROVADO"));
    assert_error(
        patch(s.office.clone(), "EM ANÁLISE").await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    assert_error(
        patch(s.office.clone(), "AGUARDANDO ASSINATURA").await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    let invalid = assert_error(
        patch(s.office.clone(), "PERDIDO").await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(invalid["errors"][0]["code"], "status_invalido");
    assert_error(
        patch(s.partner.clone(), "CANCELADO").await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_eq!(patch(s.office.clone(), "CANCELADO").await.status(), StatusCode::OK);
    assert_error(
        patch(s.office.clone(), "CANCELADO").await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    assert_eq!(events(&s, &identifier).await.len(), 1);
    let unknown = s
        .app
        .client
        .patch(s.app.url("/proposal/nao-existe/status"))
        .bearer_auth(&s.office)
        .json(&json!({"status": "CANCELADO"}))
        .send()
        .await
        .unwrap();
    assert_error(unknown, StatusCode::NOT_FOUND, "proposta_nao_encontrada").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_document_is_a_pdf_for_those_who_may_see_the_proposal() {
    let s = setup().await;
    let (identifier, _) = new_proposal(&s, "12345678909").await;
    let response = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.partner))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers().get("content-type").unwrap(), "application/pdf");
    assert_eq!(response.headers()["document-version"], "draft");
    let pdf = response.bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let text = black_box_tests::pdf_text(&pdf);
    assert!(
        text.contains("Maria da Silva"),
        "the customer's name is in the document: {text}"
    );
    assert!(
        text.contains("RASCUNHO — sem valor de contrato"),
        "marked as a draft: {text}"
    );
    // The sealed version does not exist before the proposal is sent; an unknown version is refused.
    assert_error(
        s.app
            .get(
                &format!("/proposal/{identifier}/document?version=sealed"),
                Some(&s.partner),
            )
            .await,
        StatusCode::NOT_FOUND,
        "assinatura_nao_enviada",
    )
    .await;
    let refused = assert_error(
        s.app
            .get(
                &format!("/proposal/{identifier}/document?version=assinado"),
                Some(&s.partner),
            )
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "version");
    assert_error(
        s.app
            .get(&format!("/proposal/{identifier}/document"), Some(&s.other_partner))
            .await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_error(
        s.app.get(&format!("/proposal/{identifier}/document"), None).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
}

/// The document's bytes, after checking that `Repr-Digest` and `ETag` name their SHA-256.
async fn document_bytes(s: &Setup, identifier: &str) -> Vec<u8> {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let response = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.partner))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let repr_digest = response.headers()["repr-digest"].to_str().unwrap().to_owned();
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let pdf = response.bytes().await.unwrap().to_vec();
    let digest = Sha256::digest(&pdf);
    assert_eq!(
        repr_digest,
        format!("sha-256=:{}:", base64::engine::general_purpose::STANDARD.encode(digest))
    );
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(etag, format!("\"{hex}\""));
    pdf
}

#[tokio::test(flavor = "multi_thread")]
async fn once_sent_the_document_is_the_bytes_sent_whatever_changes_after() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    let draft = document_bytes(&s, &identifier).await;
    assert_eq!(send(&s, &identifier, customer_id).await.status(), StatusCode::OK);
    let sealed = document_bytes(&s, &identifier).await;
    let sealed_text = black_box_tests::pdf_text(&sealed);
    assert!(sealed_text.contains("Maria da Silva"));
    assert!(!sealed_text.contains("RASCUNHO"), "what is sent is not a draft");
    // A later registration of the same CPF, through the API, by its seller.
    let registered = s
        .app
        .post_json_as(
            "/customer/create",
            &s.partner,
            &json!({
                "cliente": {"nome_completo": "Maria Cadastrada Depois", "cpf": "12345678909", "data_nascimento": "1990-05-15",
                    "sexo": "Feminino", "nacionalidade": "Brasileira", "celular": "(21) 98888-7777",
                    "email": "outra@exemplo.com.br", "profissao": "Engenheira", "salario": 0},
                "endereco": {"cep": "20040002", "endereco": "Rua da Assembleia", "numero": 10, "bairro": "Centro",
                    "cidade": "Rio de Janeiro", "estado": "RJ"}
            }),
        )
        .await;
    let status = registered.status();
    assert!(status.is_success(), "{status}: {}", registered.text().await.unwrap());
    assert_eq!(
        document_bytes(&s, &identifier).await,
        sealed,
        "unchanged by a new registration"
    );
    // The rows it was made from change: the seller's registration of the customer, and the
    // proposal's own copy of it, edited behind the service's back.
    s.app
        .sql("UPDATE customers SET nome_completo = 'Maria Registrada Depois'")
        .await;
    s.app
        .sql("UPDATE proposal_customers SET nome_completo = 'Maria Alterada Depois'")
        .await;
    let redrawn = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.office))
        .await;
    assert_eq!(redrawn.bytes().await.unwrap().to_vec(), sealed, "whoever reads it");
    assert_eq!(
        document_bytes(&s, &identifier).await,
        sealed,
        "the sealed bytes never change"
    );
    // The parties are shown the same bytes.
    let key = detail(&s, &identifier).await["sign"]["clientKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let shown = s.app.get(&format!("/sandbox/document/{key}"), None).await;
    assert_eq!(shown.bytes().await.unwrap().to_vec(), sealed);
    // Before sending, the document was a rendering of the rows as they stood.
    assert!(draft.starts_with(b"%PDF-"));
}

/// The document as served with its version header.
async fn served(s: &Setup, path: &str) -> (String, Vec<u8>) {
    let response = s.app.get(path, Some(&s.office)).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let version = response.headers()["document-version"].to_str().unwrap().to_owned();
    (version, response.bytes().await.unwrap().to_vec())
}

#[tokio::test(flavor = "multi_thread")]
async fn after_the_four_sandbox_signatures_the_document_carries_its_evidence_page() {
    use sha2::{Digest, Sha256};
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    assert_eq!(send(&s, &identifier, customer_id).await.status(), StatusCode::OK);
    let document = format!("/proposal/{identifier}/document");
    let (version, sealed) = served(&s, &document).await;
    assert_eq!(version, "sealed");
    let sealed_hex: String = Sha256::digest(&sealed).iter().map(|b| format!("{b:02x}")).collect();
    let sign = detail(&s, &identifier).await["sign"].clone();
    let keys: Vec<String> = ["clientKey", "associationKey", "federationKey", "enterpriseKey"]
        .iter()
        .map(|k| sign[*k].as_str().unwrap().to_owned())
        .collect();
    for key in &keys[..3] {
        sandbox_sign(&s, key).await;
        assert_eq!(
            served(&s, &document).await.0,
            "sealed",
            "no evidence before the last signature"
        );
    }
    sandbox_sign(&s, &keys[3]).await;

    let signed = document_bytes(&s, &identifier).await;
    let (version, _) = served(&s, &document).await;
    assert_eq!(version, "signed");
    assert_ne!(signed, sealed);
    let text = black_box_tests::pdf_text(&signed);
    let sealed_text = black_box_tests::pdf_text(&sealed);
    assert!(text.starts_with(&sealed_text), "the sealed pages come first, unchanged");
    let evidence = &text[sealed_text.len()..];
    assert!(evidence.contains("Evidências da assinatura"), "{evidence}");
    assert!(
        evidence.contains(&sealed_hex),
        "the sealed document's full SHA-256: {evidence}"
    );
    for party in ["Cliente: Maria da Silva", "Associação:", "Federação:", "Empresa:"] {
        assert!(evidence.contains(party), "\"{party}\" not in: {evidence}");
    }
    assert_eq!(
        evidence.matches("horário de Brasília").count(),
        5,
        "each signature and the completion"
    );
    assert!(evidence.contains("123.456.789-09"), "CPF formatted: {evidence}");
    assert!(
        evidence.contains("Mozilla/5.0 (Teste de Assinatura)"),
        "the browser: {evidence}"
    );
    assert!(evidence.contains("127.0.0.1"), "the address: {evidence}");
    assert!(evidence.contains("Sandbox (desenvolvimento)"), "{evidence}");
    // The contract's own formats, as read back.
    for expected in [
        "CPF 123.456.789-09",
        "CEP 01310-100",
        "(11) 91234-5678",
        "15/05/1990",
        "R$ ",
    ] {
        assert!(sealed_text.contains(expected), "\"{expected}\" not in: {sealed_text}");
    }

    // The sandbox keeps no copy of its own.
    assert_error(
        s.app
            .get(&format!("{document}?version=provider"), Some(&s.office))
            .await,
        StatusCode::NOT_FOUND,
        "copia_provedor_inexistente",
    )
    .await;
    // The sealed version stays reachable, and the sandbox shows the signed one.
    let (version, again) = served(&s, &format!("{document}?version=sealed")).await;
    assert_eq!((version.as_str(), again), ("sealed", sealed));
    let shown = s.app.get(&format!("/sandbox/document/{}", keys[0]), None).await;
    assert_eq!(shown.bytes().await.unwrap().to_vec(), signed);
    // A repeated last signature makes no second version.
    sandbox_sign(&s, &keys[3]).await;
    assert_eq!(document_bytes(&s, &identifier).await, signed);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM signed_documents").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_products_terms_fill_the_contract_and_an_unknown_placeholder_is_refused() {
    let s = setup().await;
    let product: Value = s
        .app
        .get("/product/payment/101", Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let name = product["data"]["nome"].as_str().unwrap().to_owned();
    let body = |terms: &str| {
        json!({"codigo_produto": 101, "nome": name, "codigo_integracao": 9101, "ativo": true, "valor": 141200,
            "bank": [{"codigoBanco": "001", "nome": "Banco do Brasil"}], "termos": terms})
    };
    let refused = assert_error(
        s.app
            .put_json_as("/product/101", &s.office, &body("Eu, {{nome}}, pago {{preco}}."))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "termos");
    assert_eq!(refused["errors"][0]["code"], "termos_marcador");

    let terms = "Cláusula única. Eu, {{nome}}, CPF {{cpf}}, contrato {{produto}} por {{valor}}.\n\nSegundo parágrafo.";
    let saved = s.app.put_json_as("/product/101", &s.office, &body(terms)).await;
    assert_eq!(saved.status(), StatusCode::OK);
    let saved: Value = saved.json().await.unwrap();
    assert_eq!(saved["document"][0]["termos"], terms, "{saved}");

    let (identifier, _) = new_proposal(&s, "12345678909").await;
    let (_, draft) = served(&s, &format!("/proposal/{identifier}/document")).await;
    let text = black_box_tests::pdf_text(&draft);
    assert!(
        text.contains(&format!(
            "Cláusula única. Eu, Maria da Silva, CPF 123.456.789-09, contrato {name} por R$ 1.412,00."
        )),
        "{text}"
    );
    assert!(text.contains("Segundo parágrafo."));
    assert!(!text.contains("{{"), "no placeholder left: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_page_shows_the_party_and_its_button_signs() {
    let s = setup().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    send(&s, &identifier, customer_id).await;
    let key = detail(&s, &identifier).await["sign"]["clientKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = s.app.get(&format!("/sandbox/sign/{key}"), None).await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains(&identifier) && html.contains("Cliente") && html.contains("id=\"assinar\""));
    assert_eq!(
        page_policy(&s.app, &format!("/sandbox/sign/{key}")).await,
        "default-src 'self'; frame-ancestors 'none'"
    );
    let pdf = s.app.get(&format!("/sandbox/document/{key}"), None).await;
    // The page embeds it: framed by this origin only.
    assert_eq!(
        pdf.headers()["content-security-policy"],
        "default-src 'none'; frame-ancestors 'self'"
    );
    assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF-"));

    let clicked = s
        .app
        .client
        .post(s.app.url(&format!("/sandbox/sign/{key}")))
        .send()
        .await
        .unwrap();
    assert_eq!(clicked.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        clicked.headers().get("location").unwrap().to_str().unwrap(),
        format!("/sandbox/sign/{key}")
    );
    let after = s
        .app
        .get(&format!("/sandbox/sign/{key}"), None)
        .await
        .text()
        .await
        .unwrap();
    assert!(after.contains("ASSINADO") && !after.contains("id=\"assinar\""));
    assert_error(
        s.app.get("/sandbox/sign/req-nao-existe", None).await,
        StatusCode::NOT_FOUND,
        "chave_assinatura_desconhecida",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_a_real_provider_configured_the_sandbox_routes_do_not_exist() {
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", "http://127.0.0.1:9"),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", SECRET),
    ])
    .await;
    assert_error(
        app.get("/sandbox/sign/qualquer", None).await,
        StatusCode::NOT_FOUND,
        "nao_encontrado",
    )
    .await;
    assert_error(
        app.get("/sandbox/document/qualquer", None).await,
        StatusCode::NOT_FOUND,
        "nao_encontrado",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_provider_failure_is_a_502_that_changes_nothing_and_a_later_retry_works() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let clicksign = MockServer::start().await;
    let uri = clicksign.uri();
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", SECRET),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let other_partner = app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let created: Value = app
        .post_json_as("/proposal/create", &partner, &proposal_body("12345678909"))
        .await
        .json()
        .await
        .unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = created["document"][0]["id_cliente"].as_i64().unwrap();
    let body = json!({"customerId": customer_id, "identifier": identifier});

    // The envelope and its document are accepted, then the provider fails on every signer.
    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    let failing = Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/signers"))
        .respond_with(ResponseTemplate::new(500))
        .mount_as_scoped(&clicksign)
        .await;
    let failed = app.post_json_as("/signer", &partner, &body).await;
    assert_error(failed, StatusCode::BAD_GATEWAY, "provedor_assinatura_indisponivel").await;
    let status: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status["data"]["proposal"]["status"], "NOVO");
    assert_eq!(app.count("SELECT count(*) AS n FROM proposal_events").await, 0);
    drop(failing);

    // The provider recovers: the retry resumes (the document is not uploaded again).
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let retried = app.post_json_as("/signer", &partner, &body).await;
    assert_eq!(retried.status(), StatusCode::OK);
    let retried: Value = retried.json().await.unwrap();
    assert!(
        retried["data"]["signUrl"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{uri}/sign/s-"))
    );
    assert_eq!(
        app.count(
            "SELECT count(*) AS n FROM proposals WHERE key_documento = 'env-1' AND key_assinatura_requisicao LIKE 's-%'"
        )
        .await,
        1
    );
    let requests = clicksign.received_requests().await.unwrap();
    let created = |p: &str| {
        requests
            .iter()
            .filter(|r| r.method.as_str() == "POST" && r.url.path() == p)
            .count()
    };
    assert_eq!(
        created("/api/v3/envelopes"),
        1,
        "one envelope across the failure and the retry"
    );
    assert_eq!(
        created("/api/v3/envelopes/env-1/documents"),
        1,
        "the document uploaded once"
    );
    assert_eq!(created("/api/v3/envelopes/env-1/notifications"), 1);
    let status: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(status["data"]["proposal"]["status"], "AGUARDANDO ASSINATURA");

    // Nothing of it is reachable by another partner.
    assert_error(
        app.get(&format!("/proposal/{identifier}/events"), Some(&other_partner))
            .await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn with_clicksign_the_envelope_apis_events_sign_and_its_closing_brings_the_providers_copy() {
    use sha2::{Digest, Sha256};
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    let (clicksign, s) = with_clicksign().await;
    let uri = clicksign.uri();
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    assert_eq!(send(&s, &identifier, customer_id).await.status(), StatusCode::OK);
    let (_, sealed) = served(&s, &format!("/proposal/{identifier}/document")).await;
    let sign = detail(&s, &identifier).await["sign"].clone();
    for key in ["clientKey", "associationKey", "federationKey", "enterpriseKey"] {
        let body =
            json!({"event": {"name": "sign", "occurred_at": chrono::Utc::now().to_rfc3339(), "data": {"signer": {
            "key": sign[key], "auths": [if key == "clientKey" { "whatsapp" } else { "api" }],
            "address": "203.0.113.7", "user_agent": "Mozilla/5.0 (Clicksign)"}}}})
            .to_string();
        let (body, header) = signed_callback(&body);
        assert_eq!(post_callback(&s, &body, &header).await.status(), StatusCode::OK);
    }
    let (version, signed) = served(&s, &format!("/proposal/{identifier}/document")).await;
    assert_eq!(version, "signed");
    let evidence = black_box_tests::pdf_text(&signed);
    let sealed_hex: String = Sha256::digest(&sealed).iter().map(|b| format!("{b:02x}")).collect();
    for expected in [
        sealed_hex.as_str(),
        "Clicksign",
        "env-1",
        "203.0.113.7",
        "Mozilla/5.0 (Clicksign)",
        "código enviado por WhatsApp",
    ] {
        assert!(evidence.contains(expected), "\"{expected}\" not in: {evidence}");
    }

    // The envelope closes: its signed file is downloaded (without the token) and kept beside ours.
    let copy = b"%PDF-1.7 assinado pela Clicksign".to_vec();
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [{
            "id": "doc-1", "type": "documents", "attributes": {"status": "closed"},
            "links": {"files": {"signed": format!("{uri}/arquivos/doc-1-assinado.pdf")}}}]})))
        .with_priority(1)
        .mount(&clicksign)
        .await;
    Mock::given(method("GET"))
        .and(path("/arquivos/doc-1-assinado.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(copy.clone()))
        .mount(&clicksign)
        .await;
    let closed = json!({"event": {"name": "auto_close", "occurred_at": chrono::Utc::now().to_rfc3339(), "data": {}},
        "envelope": {"key": "env-1"}})
    .to_string();
    let (body, header) = signed_callback(&closed);
    assert_eq!(post_callback(&s, &body, &header).await.status(), StatusCode::OK);
    let copy_hex: String = Sha256::digest(&copy).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        s.app
            .count(&format!("SELECT count(*) AS n FROM provider_signed_copies WHERE document_key = 'env-1' AND sha256 = '{copy_hex}'"))
            .await,
        1
    );
    assert_eq!(
        served(&s, &format!("/proposal/{identifier}/document")).await.1,
        signed,
        "ours is still what is served"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blank_or_missing_identifier_for_the_signing_link_is_the_same_field_error() {
    let s = setup().await;
    for query in ["", "?identifier=", "?identifier=%20%20"] {
        let body = assert_error(
            s.app.get(&format!("/signer/signLink{query}"), Some(&s.partner)).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(body["errors"][0]["field"], "identifier", "{query}: {body}");
        assert_eq!(body["errors"][0]["code"], "campo_obrigatorio", "{query}: {body}");
        assert_eq!(
            body["errors"][0]["message"], "identifier é obrigatório",
            "{query}: {body}"
        );
    }
}

async fn page_policy(app: &TestApp, path: &str) -> String {
    let page = app.get(path, None).await;
    page.headers()["content-security-policy"].to_str().unwrap().to_owned()
}

/// The client's callback carried nothing of where it signed; the envelope's `sign` events did:
/// the evidence page (read back with pdftotext) and route 7's `sign.location` state them, and the
/// sealed document's digest is the one the parties signed.
#[tokio::test(flavor = "multi_thread")]
async fn with_clicksign_the_evidence_page_states_what_the_envelope_recorded_of_each_signature() {
    use sha2::{Digest, Sha256};
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    let (clicksign, s) = with_clicksign().await;
    let (identifier, customer_id) = new_proposal(&s, "12345678909").await;
    assert_eq!(send(&s, &identifier, customer_id).await.status(), StatusCode::OK);
    let (_, sealed) = served(&s, &format!("/proposal/{identifier}/document")).await;
    let sign = detail(&s, &identifier).await["sign"].clone();
    let client_key = sign["clientKey"].as_str().unwrap().to_owned();
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/events"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [
            {"id": "ev-0", "type": "events", "attributes": {"name": "upload", "data": {}}},
            {"id": "ev-1", "type": "events", "attributes": {"name": "sign", "data": {"signer": {
                "key": client_key, "auths": ["whatsapp"], "address": "198.51.100.23",
                "user_agent": "Mozilla/5.0 (Android)", "latitude": "-22.9068", "longitude": "-43.1729"}}}}
        ]})))
        .mount(&clicksign)
        .await;
    for key in ["clientKey", "associationKey", "federationKey", "enterpriseKey"] {
        // The client's callback says only that it signed; the entities' say how.
        let signer = if key == "clientKey" {
            json!({"key": sign[key]})
        } else {
            json!({"key": sign[key], "auths": ["api"], "address": "203.0.113.7"})
        };
        let body = json!({"event": {"name": "sign", "occurred_at": chrono::Utc::now().to_rfc3339(),
            "data": {"signer": signer}}})
        .to_string();
        let (body, header) = signed_callback(&body);
        assert_eq!(post_callback(&s, &body, &header).await.status(), StatusCode::OK);
    }
    let (version, signed) = served(&s, &format!("/proposal/{identifier}/document")).await;
    assert_eq!(version, "signed");
    let evidence = black_box_tests::pdf_text(&signed);
    let sealed_hex: String = Sha256::digest(&sealed).iter().map(|b| format!("{b:02x}")).collect();
    let client = evidence.split("Associação:").next().unwrap();
    for expected in [
        "198.51.100.23",
        "código enviado por WhatsApp",
        "-22.9068, -43.1729",
        "Mozilla/5.0 (Android)",
        "assinando como contratante",
        sealed_hex.as_str(),
    ] {
        assert!(
            client.contains(expected),
            "\"{expected}\" not in the client's part: {client}"
        );
    }
    let association = evidence.split("Associação:").nth(1).unwrap();
    assert!(association.contains("203.0.113.7"), "{association}");
    assert!(
        association.contains("não informado pelo provedor"),
        "no location, no browser reported: said so: {association}"
    );
    let location = &detail(&s, &identifier).await["sign"]["location"];
    assert_eq!(location["latitude"], "-22.9068");
    assert_eq!(location["longitude"], "-43.1729");
}
