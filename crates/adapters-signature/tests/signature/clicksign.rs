//! The Clicksign adapter against a local mock server playing the Envelope API (v3, JSON:API): its
//! resources as the documentation shows them, its errors (422 with `errors`, 429, 5xx) and slow
//! answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_signature::{ClicksignProvider, ClicksignSettings};
use domain::signature::{PartyRole, ProviderError, SignatureProvider, Signer};
use domain::values::ShippingType;
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const JSON_API: &str = "application/vnd.api+json";

/// The signing deadline the envelopes are created with.
fn deadline() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-06T15:00:00Z")
        .unwrap()
        .to_utc()
}

fn provider(server: &MockServer) -> ClicksignProvider {
    let mut settings = ClicksignSettings::new(&server.uri(), "token-de-teste", b"segredo");
    settings.timeout = Duration::from_millis(300);
    settings.backoff = vec![Duration::from_millis(10), Duration::from_millis(20)];
    settings.max_rate_limit_wait = Duration::from_millis(50);
    ClicksignProvider::new(settings).unwrap()
}

/// A JSON:API resource answer, as the API gives for a created resource.
fn resource(kind: &str, id: &str) -> ResponseTemplate {
    ResponseTemplate::new(201)
        .insert_header("content-type", JSON_API)
        .set_body_json(json!({"data": {"id": id, "type": kind, "attributes": {}}}))
}

fn body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).unwrap()
}

async fn envelope_and_document(server: &MockServer) {
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes"))
        .and(header("authorization", "token-de-teste"))
        .and(header("content-type", JSON_API))
        .and(body_partial_json(json!({"data": {"type": "envelopes", "attributes": {"name": "Proposta id-1", "locale": "pt-BR", "auto_close": true, "deadline_at": "2026-12-06T15:00:00Z", "remind_interval": 3}}})))
        .respond_with(resource("envelopes", "env-1"))
        .expect(1)
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .and(body_partial_json(json!({"data": {"type": "documents", "attributes": {"filename": "proposta-id-1.pdf", "content_base64": "data:application/pdf;base64,JVBERi0="}}})))
        .respond_with(resource("documents", "doc-1"))
        .expect(1)
        .mount(server)
        .await;
}

#[tokio::test]
async fn the_sealed_pdf_goes_into_a_new_envelope_whose_id_is_the_document_key() {
    let server = MockServer::start().await;
    envelope_and_document(&server).await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-", deadline()).await,
        Ok("env-1".into())
    );
}

#[tokio::test]
async fn a_429_is_retried_after_the_reset_and_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "0"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    envelope_and_document(&server).await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-", deadline()).await,
        Ok("env-1".into())
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_5xx_is_retried_and_persistent_failure_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes"))
        .respond_with(ResponseTemplate::new(502))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    envelope_and_document(&server).await;
    assert_eq!(
        provider(&server).upload_document("id-1", b"%PDF-", deadline()).await,
        Ok("env-1".into())
    );

    let down = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&down)
        .await;
    let result = provider(&down).upload_document("id-1", b"%PDF-", deadline()).await;
    assert!(matches!(result, Err(ProviderError::Unavailable(_))), "{result:?}");
    assert_eq!(
        down.received_requests().await.unwrap().len(),
        3,
        "the first try and two retries"
    );
}

#[tokio::test]
async fn a_422_is_not_retried_and_its_json_api_errors_are_the_reason() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(422).insert_header("content-type", JSON_API).set_body_json(json!({
            "errors": [{"status": "422", "code": "invalid", "title": "Inválido",
                        "detail": "phone_number não é válido", "source": {"pointer": "/data/attributes/phone_number"}}]
        })))
        .expect(1)
        .mount(&server)
        .await;
    let result = provider(&server).upload_document("id-1", b"%PDF-", deadline()).await;
    assert!(
        matches!(&result, Err(ProviderError::Rejected(why))
            if why.contains("phone_number não é válido") && why.contains("/data/attributes/phone_number")),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_slow_answer_past_the_timeout_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(resource("envelopes", "env-1").set_delay(Duration::from_secs(2)))
        .mount(&server)
        .await;
    let result = provider(&server).upload_document("id-1", b"%PDF-", deadline()).await;
    assert_eq!(result, Err(ProviderError::Unavailable("tempo esgotado".into())));
}

fn signers() -> [Signer; 4] {
    let signer = |role: PartyRole, name: &str, document: &str| Signer {
        role,
        name: name.into(),
        email: None,
        phone: Some("11912345678".into()),
        document: Some(document.into()),
    };
    [
        signer(PartyRole::Client, "C", "12345678909"),
        signer(PartyRole::Association, "A", "11222333000181"),
        signer(PartyRole::Federation, "F", "11222333000181"),
        signer(PartyRole::Enterprise, "E", "11222333000181"),
    ]
}

#[tokio::test]
async fn each_party_becomes_a_signer_with_its_requirements_and_the_envelope_is_opened() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"data": [{"id": "doc-1", "type": "documents", "attributes": {"status": "running"}}]}),
        ))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/signers"))
        .respond_with(|request: &Request| {
            let name = body(request)["data"]["attributes"]["name"].as_str().unwrap().to_owned();
            resource("signers", &format!("signer-{name}"))
        })
        .expect(4)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/requirements"))
        .respond_with(resource("requirements", "req"))
        .expect(8)
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path("/api/v3/envelopes/env-1"))
        .and(body_partial_json(
            json!({"data": {"id": "env-1", "type": "envelopes", "attributes": {"status": "running"}}}),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": {"id": "env-1", "type": "envelopes"}})))
        .expect(1)
        .mount(&server)
        .await;
    let keys = provider(&server)
        .add_signers("env-1", &signers(), ShippingType::Whatsapp)
        .await
        .unwrap();
    assert_eq!(
        (keys.client.as_str(), keys.enterprise.as_str()),
        ("signer-C", "signer-E")
    );

    let requests = server.received_requests().await.unwrap();
    let created = |kind: &str| -> Vec<Value> {
        requests
            .iter()
            .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with(kind))
            .map(body)
            .collect()
    };
    let client = &created("/signers")[0]["data"]["attributes"];
    assert_eq!(client["documentation"], "123.456.789-09");
    assert_eq!(client["communicate_events"]["signature_request"], "whatsapp");
    let requirements = created("/requirements");
    let of_client: Vec<&Value> = requirements
        .iter()
        .filter(|r| r["data"]["relationships"]["signer"]["data"]["id"] == "signer-C")
        .collect();
    assert_eq!(of_client.len(), 2);
    assert_eq!(
        of_client[0]["data"]["attributes"],
        json!({"action": "agree", "role": "sign"})
    );
    assert_eq!(
        of_client[1]["data"]["attributes"],
        json!({"action": "provide_evidence", "auth": "whatsapp"}),
        "the client authenticates by the proposal's channel"
    );
    assert_eq!(of_client[0]["data"]["relationships"]["document"]["data"]["id"], "doc-1");
    let of_entity: Vec<&Value> = requirements
        .iter()
        .filter(|r| r["data"]["relationships"]["signer"]["data"]["id"] == "signer-A")
        .collect();
    assert_eq!(of_entity[0]["data"]["attributes"]["role"], "party");
    assert_eq!(of_entity[1]["data"]["attributes"]["auth"], "api");
    assert_eq!(
        provider(&server).sign_url(&keys.client),
        format!("{}/sign/signer-C", server.uri())
    );
}

#[tokio::test]
async fn a_notification_goes_through_the_envelope() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v3/envelopes/env-1/notifications"))
        .and(body_partial_json(json!({"data": {"type": "notifications"}})))
        .respond_with(ResponseTemplate::new(202))
        .expect(2)
        .mount(&server)
        .await;
    let clicksign = provider(&server);
    assert_eq!(
        clicksign.notify("env-1", "signer-C", ShippingType::Whatsapp).await,
        Ok(())
    );
    assert_eq!(clicksign.notify("env-1", "signer-C", ShippingType::Sms).await, Ok(()));
}

#[tokio::test]
async fn the_signed_copy_is_downloaded_once_the_document_has_one() {
    let server = MockServer::start().await;
    let signed_link = format!("{}/files/signed-doc-1.pdf", server.uri());
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [{
            "id": "doc-1", "type": "documents", "attributes": {"status": "closed"},
            "links": {"files": {"original": "x", "signed": signed_link}}
        }]})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/files/signed-doc-1.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"%PDF-1.7 signed by clicksign".to_vec()))
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(
        provider(&server).signed_copy("env-1").await,
        Ok(Some(b"%PDF-1.7 signed by clicksign".to_vec()))
    );
    let download = server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.url.path() == "/files/signed-doc-1.pdf")
        .unwrap();
    assert!(
        !download.headers.contains_key("authorization"),
        "the token never travels to the storage link"
    );

    let running = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/documents"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [{"id": "doc-1", "type": "documents", "attributes": {"status": "running"}, "links": {"files": {"original": "x"}}}]})))
        .mount(&running)
        .await;
    assert_eq!(provider(&running).signed_copy("env-1").await, Ok(None));
}

/// The envelope as `GET /envelopes/{id}` answers it, in a given status.
async fn envelope_in(server: &MockServer, status: &str) {
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": {"id": "env-1", "type": "envelopes", "attributes": {"status": status}}})),
        )
        .mount(server)
        .await;
}

#[tokio::test]
async fn cancelling_patches_the_envelope_to_canceled() {
    let server = MockServer::start().await;
    Mock::given(method("PATCH"))
        .and(path("/api/v3/envelopes/env-1"))
        .and(header("authorization", "token-de-teste"))
        .and(body_partial_json(
            json!({"data": {"id": "env-1", "type": "envelopes", "attributes": {"status": "canceled"}}}),
        ))
        .respond_with(resource("envelopes", "env-1"))
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(provider(&server).cancel_envelope("env-1").await, Ok(()));
}

#[tokio::test]
async fn cancelling_a_cancelled_envelope_is_done_and_a_closed_one_is_refused() {
    let refusal = || {
        Mock::given(method("PATCH"))
            .and(path("/api/v3/envelopes/env-1"))
            .respond_with(
                ResponseTemplate::new(422)
                    .set_body_json(json!({"errors": [{"detail": "Envelope não pode ser cancelado"}]})),
            )
    };
    let server = MockServer::start().await;
    refusal().mount(&server).await;
    envelope_in(&server, "canceled").await;
    assert_eq!(
        provider(&server).cancel_envelope("env-1").await,
        Ok(()),
        "a retried cancellation"
    );

    let server = MockServer::start().await;
    refusal().mount(&server).await;
    envelope_in(&server, "closed").await;
    assert!(matches!(
        provider(&server).cancel_envelope("env-1").await,
        Err(ProviderError::Rejected(why)) if why.contains("Envelope não pode ser cancelado")
    ));
}

#[tokio::test]
async fn the_envelopes_sign_events_are_read_page_after_page_within_the_api_only() {
    use wiremock::matchers::query_param;
    let server = MockServer::start().await;
    let uri = server.uri();
    let sign = |key: &str, ip: &str| {
        json!({"id": key, "type": "events", "attributes": {"name": "sign",
            "data": {"signer": {"key": key, "auths": ["whatsapp"], "address": ip}}}})
    };
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/events"))
        .and(query_param("page[number]", "2"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", JSON_API)
                .set_body_json(json!({
            "data": [sign("k2", "198.51.100.2")],
            // Elsewhere than the API: never followed (the token would go with it).
            "links": {"next": "https://outro.exemplo.com/api/v3/envelopes/env-1/events?page[number]=3"}})),
        )
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes/env-1/events"))
        .respond_with(ResponseTemplate::new(200).insert_header("content-type", JSON_API).set_body_json(json!({
            "data": [{"id": "u", "type": "events", "attributes": {"name": "upload", "data": {}}}, sign("k1", "198.51.100.1")],
            "links": {"next": format!("{uri}/api/v3/envelopes/env-1/events?page[number]=2")}})))
        .with_priority(2)
        .mount(&server)
        .await;
    let evidence = provider(&server).signing_evidence("env-1").await.unwrap();
    let read: Vec<(&str, Option<&str>)> = evidence
        .iter()
        .map(|e| (e.request_key.as_str(), e.ip.as_deref()))
        .collect();
    assert_eq!(read, [("k1", Some("198.51.100.1")), ("k2", Some("198.51.100.2"))]);
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}
