//! The Clicksign adapter against a local mock server playing the provider's answers, errors and
//! slow responses.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_signature::{ClicksignProvider, ClicksignSettings};
use domain::signature::{PartyRole, ProviderError, SignatureProvider, Signer};
use domain::values::ShippingType;
use serde_json::json;
use std::time::Duration;
use wiremock::matchers::{body_partial_json, method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn provider(server: &MockServer) -> ClicksignProvider {
    let mut settings = ClicksignSettings::new(&server.uri(), "token-de-teste", b"segredo");
    settings.timeout = Duration::from_millis(300);
    settings.backoff = vec![Duration::from_millis(10), Duration::from_millis(20)];
    settings.max_rate_limit_wait = Duration::from_millis(50);
    ClicksignProvider::new(settings).unwrap()
}

fn document_created() -> ResponseTemplate {
    ResponseTemplate::new(201).set_body_json(json!({"document": {"key": "doc-123"}}))
}

#[tokio::test]
async fn uploads_the_pdf_as_base64_with_the_access_token() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/documents"))
        .and(query_param("access_token", "token-de-teste"))
        .and(body_partial_json(json!({"document": {"path": "/propostas/id-1.pdf", "content_base64": "data:application/pdf;base64,JVBERi0="}})))
        .respond_with(document_created())
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-").await,
        Ok("doc-123".into())
    );
}

#[tokio::test]
async fn a_429_is_retried_after_the_reset_and_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/documents"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v1/documents"))
        .respond_with(document_created())
        .mount(&server)
        .await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-").await,
        Ok("doc-123".into())
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_500_is_retried_and_persistent_failure_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/documents"))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v1/documents"))
        .respond_with(document_created())
        .mount(&server)
        .await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-").await,
        Ok("doc-123".into())
    );

    let down = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&down)
        .await;
    let result = provider(&down).upload_document("id-1", b"%PDF-").await;
    assert!(matches!(result, Err(ProviderError::Unavailable(_))), "{result:?}");
    assert_eq!(
        down.received_requests().await.unwrap().len(),
        3,
        "the first try and two retries"
    );
}

#[tokio::test]
async fn other_client_errors_are_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({"errors": ["Telefone inválido"]})))
        .expect(1)
        .mount(&server)
        .await;
    let result = provider(&server).upload_document("id-1", b"%PDF-").await;
    assert!(
        matches!(&result, Err(ProviderError::Rejected(why)) if why.contains("Telefone inválido")),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_slow_answer_past_the_timeout_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(document_created().set_delay(Duration::from_secs(2)))
        .mount(&server)
        .await;
    let result = provider(&server).upload_document("id-1", b"%PDF-").await;
    assert_eq!(result, Err(ProviderError::Unavailable("tempo esgotado".into())));
}

#[tokio::test]
async fn each_party_becomes_a_signer_and_a_list_entry_with_its_request_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/signers"))
        .respond_with(|request: &Request| {
            let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            let name = body["signer"]["name"].as_str().unwrap().to_owned();
            ResponseTemplate::new(201).set_body_json(json!({"signer": {"key": format!("signer-{name}")}}))
        })
        .expect(4)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v1/lists"))
        .and(body_partial_json(json!({"list": {"document_key": "doc-123"}})))
        .respond_with(|request: &Request| {
            let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            let signer = body["list"]["signer_key"].as_str().unwrap().to_owned();
            ResponseTemplate::new(201)
                .set_body_json(json!({"list": {"request_signature_key": format!("req-{signer}")}}))
        })
        .expect(4)
        .mount(&server)
        .await;
    let signer = |role: PartyRole, name: &str| Signer {
        role,
        name: name.into(),
        email: None,
        phone: Some("11912345678".into()),
        document: None,
    };
    let signers = [
        signer(PartyRole::Client, "C"),
        signer(PartyRole::Association, "A"),
        signer(PartyRole::Federation, "F"),
        signer(PartyRole::Enterprise, "E"),
    ];
    let keys = provider(&server).add_signers("doc-123", &signers).await.unwrap();
    assert_eq!(
        (keys.client.as_str(), keys.enterprise.as_str()),
        ("req-signer-C", "req-signer-E")
    );
    assert_eq!(
        provider(&server).sign_url(&keys.client),
        format!("{}/sign/req-signer-C", server.uri())
    );
}

#[tokio::test]
async fn notifications_go_by_the_proposals_channel() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/notify_by_whatsapp"))
        .and(body_partial_json(json!({"request_signature_key": "req-1"})))
        .respond_with(ResponseTemplate::new(202))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v1/notify_by_sms"))
        .respond_with(ResponseTemplate::new(202))
        .expect(1)
        .mount(&server)
        .await;
    let clicksign = provider(&server);
    assert_eq!(clicksign.notify("req-1", ShippingType::Whatsapp).await, Ok(()));
    assert_eq!(clicksign.notify("req-1", ShippingType::Sms).await, Ok(()));
}
