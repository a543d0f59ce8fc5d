//! Routes 17 and 18, the management routes beside them, and delivery to real receivers on
//! loopback. Signatures are checked with the `standardwebhooks` crate, not the service's code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{
    Kind, StatusCode, TestApp, assert_error, assert_shape, assert_timestamp, cpf_from, error_fields,
};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const PARTNER: &str = "11222333000181";
const OTHER_PARTNER: &str = "11444777000161";

pub(super) struct Setup {
    pub(super) app: TestApp,
    pub(super) partner: String,
    pub(super) other_partner: String,
    pub(super) office: String,
}

/// A service whose webhooks may reach loopback, with a short retry schedule.
pub(super) async fn setup(extra: &[(&str, &str)]) -> Setup {
    let mut pairs = vec![
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        ("HOOKS_RETRY_SCHEDULE_SECS", "1,2"),
        ("HOOKS_POLL_INTERVAL_MS", "200"),
        ("HOOKS_REQUEST_TIMEOUT_MS", "3000"),
    ];
    pairs.extend_from_slice(extra);
    let app = TestApp::spawn_with(&pairs).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let other_partner = app.token_for("rep@outro.com.br", "PARCEIRO", OTHER_PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    Setup {
        app,
        partner,
        other_partner,
        office,
    }
}

pub(super) async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(status))
        .mount(&server)
        .await;
    server
}

/// Subscribes and answers the subscription (`data`).
pub(super) async fn subscribe(app: &TestApp, token: &str, endpoint: &str, status: &str) -> Value {
    let response = app
        .post_json_as(
            "/hooks",
            token,
            &json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": endpoint, "status": status}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["data"].clone()
}

/// The back office's active subscription to a receiver answering `status`: (receiver, subscription).
async fn office_hook(s: &Setup, status: u16) -> (MockServer, Value) {
    let server = receiver(status).await;
    let subscription = subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    (server, subscription)
}

/// `POST /hooks/:uuid/test` as the back office.
async fn send_test(s: &Setup, uuid: &str) -> reqwest::Response {
    s.app
        .post_json_as(&format!("/hooks/{uuid}/test"), &s.office, &json!({}))
        .await
}

/// Waits until the receiver has at least `n` requests; answers them.
pub(super) async fn requests(server: &MockServer, n: usize) -> Vec<Request> {
    let started = Instant::now();
    loop {
        let received = server.received_requests().await.unwrap();
        if received.len() >= n {
            return received;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{} of {n} requests arrived",
            received.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(super) async fn cancel(s: &Setup, identifier: &str) {
    let response = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "CANCELADO", "reason": "desistência"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

pub(super) fn verify(secret: &str, request: &Request) {
    standardwebhooks::Webhook::new(secret)
        .unwrap()
        .verify(&request.body, &request.headers)
        .unwrap_or_else(|e| panic!("signature refused: {e:?}"));
}

pub(super) async fn deliveries(app: &TestApp, token: &str, uuid: &str) -> Vec<Value> {
    let body: Value = app
        .get(&format!("/hooks/{uuid}/deliveries"), Some(token))
        .await
        .json()
        .await
        .unwrap();
    body["document"].as_array().unwrap().clone()
}

/// Waits for the first delivery of the subscription to reach `state`.
pub(super) async fn delivery_in_state(app: &TestApp, token: &str, uuid: &str, state: &str) -> Value {
    let started = Instant::now();
    loop {
        let list = deliveries(app, token, uuid).await;
        if let Some(found) = list.iter().find(|d| d["status"] == state) {
            return found.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no delivery {state}: {list:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn route_17_creates_a_subscription_and_route_18_lists_it_with_the_spec_members() {
    let s = setup(&[]).await;
    let response = s
        .app
        .post_json_as(
            "/hooks",
            &s.partner,
            &json!({"events": ["ALTERAÇÃO_STATUS", "ALTERAÇÃO_STATUS"], "endpoint": "http://127.0.0.1:9/hooks", "status": "ATIVO"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(body["document"], json!([]));
    assert_eq!(body["rowsAffected"], json!([1]));
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    let data = &body["data"];
    assert_shape(
        data,
        &[
            ("uuid", Kind::String),
            ("secret", Kind::String),
            ("endpoint", Kind::String),
            ("events", Kind::Array),
            ("status", Kind::String),
            ("createdAt", Kind::String),
            ("updatedAt", Kind::String),
        ],
    );
    assert_eq!(data["events"], json!(["ALTERAÇÃO_STATUS"]));
    assert_eq!(data["status"], "ATIVO");
    assert_timestamp(&data["createdAt"]);
    let secret = data["secret"].as_str().unwrap();
    let key = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, &secret["whsec_".len()..]).unwrap();
    assert!(secret.starts_with("whsec_") && key.len() == 32);
    // The secret is not stored in clear.
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM hook_subscriptions WHERE position('{secret}' in encode(secret_sealed, 'escape')) > 0"
            ))
            .await,
        0
    );

    let listed: Value = s.app.get("/hooks", Some(&s.partner)).await.json().await.unwrap();
    assert_eq!(listed["status"], "success");
    let items = listed["data"]["subscriptions"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_shape(
        &items[0],
        &[
            ("uuid", Kind::String),
            ("secret", Kind::String),
            ("endpoint", Kind::String),
            ("status", Kind::String),
            ("createdAt", Kind::String),
            ("events", Kind::Array),
        ],
    );
    assert_eq!(items[0]["secret"], data["secret"]);
    // Another partner's representative sees none of it.
    let other: Value = s.app.get("/hooks", Some(&s.other_partner)).await.json().await.unwrap();
    assert_eq!(other["data"]["subscriptions"], json!([]));
    let uuid = data["uuid"].as_str().unwrap();
    assert_error(
        s.app.get(&format!("/hooks/{uuid}"), Some(&s.other_partner)).await,
        StatusCode::NOT_FOUND,
        "webhook_nao_encontrado",
    )
    .await;
}

#[tokio::test]
async fn hooks_need_a_signed_in_user() {
    let app = TestApp::spawn().await;
    assert_error(
        app.get("/hooks", None).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
    let body = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "https://example.com/", "status": "ATIVO"});
    assert_error(
        app.post_json("/hooks", &body).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
}

#[tokio::test]
async fn bad_subscriptions_are_400_naming_the_field_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let token = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let cases = [
        (
            json!({"events": ["PROPOSTA_EXCLUIDA"], "endpoint": "https://example.com/", "status": "ATIVO"}),
            "events[0]",
        ),
        (
            json!({"events": [], "endpoint": "https://example.com/", "status": "ATIVO"}),
            "events",
        ),
        (
            json!({"events": "ALTERAÇÃO_STATUS", "endpoint": "https://example.com/", "status": "ATIVO"}),
            "events",
        ),
        (
            json!({"events": [1], "endpoint": "https://example.com/", "status": "ATIVO"}),
            "events[0]",
        ),
        (json!({"endpoint": "https://example.com/", "status": "ATIVO"}), "events"),
        (
            json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "ftp://example.com/", "status": "ATIVO"}),
            "endpoint",
        ),
        (
            json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "não é url", "status": "ATIVO"}),
            "endpoint",
        ),
        (
            json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "https://example.com/", "status": "LIGADO"}),
            "status",
        ),
        (
            json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "https://example.com/"}),
            "status",
        ),
    ];
    for (body, field) in cases {
        let answer = assert_error(
            app.post_json_as("/hooks", &token, &body).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&answer), [field], "{body}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM hook_subscriptions").await, 0);
}

#[tokio::test]
async fn endpoints_that_lead_to_non_public_addresses_are_refused() {
    // No HOOKS_ALLOWED_CIDRS: loopback is as forbidden as any private range.
    let app = TestApp::spawn().await;
    let token = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    for endpoint in [
        "http://127.0.0.1:8080/hooks",
        "http://localhost/hooks",
        "http://2130706433/",
        "http://0x7f.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/",
        "http://192.168.0.1/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",
        "http://0.0.0.0/",
    ] {
        let body = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": endpoint, "status": "ATIVO"});
        let answer = assert_error(
            app.post_json_as("/hooks", &token, &body).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(answer["errors"][0]["field"], "endpoint", "{endpoint}");
        assert_eq!(answer["errors"][0]["code"], "endpoint_bloqueado", "{endpoint}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM hook_subscriptions").await, 0);
}

#[tokio::test]
async fn a_status_change_reaches_the_owners_active_subscriptions_only_signed() {
    let s = setup(&[]).await;
    let mine = receiver(200).await;
    let inactive = receiver(200).await;
    let others = receiver(200).await;
    let office = receiver(204).await;
    let subscription = subscribe(&s.app, &s.partner, &format!("{}/eventos", mine.uri()), "ATIVO").await;
    subscribe(&s.app, &s.partner, &inactive.uri(), "INATIVO").await;
    subscribe(&s.app, &s.other_partner, &others.uri(), "ATIVO").await;
    let office_subscription = subscribe(&s.app, &s.office, &office.uri(), "ATIVO").await;
    // The online shop sees e-commerce proposals only: a partner's proposal is none of its events.
    let shop = receiver(200).await;
    let shop_token = s.app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    subscribe(&s.app, &shop_token, &shop.uri(), "ATIVO").await;

    let identifier = s.app.create_proposal(&s.partner, &cpf_from(1)).await;
    cancel(&s, &identifier).await;

    let received = requests(&mine, 1).await;
    let request = &received[0];
    assert_eq!(request.url.path(), "/eventos");
    verify(subscription["secret"].as_str().unwrap(), request);
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["type"], "ALTERAÇÃO_STATUS");
    assert_timestamp(&body["timestamp"]);
    assert_eq!(body["data"]["identificador"], identifier);
    assert_eq!(body["data"]["statusAnterior"], "NOVO");
    assert_eq!(body["data"]["statusAtual"], "CANCELADO");
    assert_eq!(body["data"]["alteradoPor"], "bo@demo.com.br");
    // The back office's words are not the partner's (decision 283): it receives the category.
    assert_eq!(body["data"]["motivo"], Value::Null);
    assert_eq!(body["data"]["categoriaMotivo"], "outros");
    assert_eq!(body["data"]["sequence"], 1);
    assert!(request.headers["webhook-id"].to_str().unwrap().starts_with("msg_"));

    // The back office sees every proposal, so its subscription gets the event too.
    verify(
        office_subscription["secret"].as_str().unwrap(),
        &requests(&office, 1).await[0],
    );
    // Give a wrong delivery time to show up before checking that none did.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(inactive.received_requests().await.unwrap().is_empty());
    assert!(others.received_requests().await.unwrap().is_empty());
    assert!(shop.received_requests().await.unwrap().is_empty());
    assert_eq!(mine.received_requests().await.unwrap().len(), 1);

    let uuid = subscription["uuid"].as_str().unwrap();
    let delivered = delivery_in_state(&s.app, &s.partner, uuid, "ENTREGUE").await;
    assert_eq!(delivered["type"], "ALTERAÇÃO_STATUS");
    assert_eq!(delivered["webhookId"], request.headers["webhook-id"].to_str().unwrap());
    assert_eq!(delivered["attempts"][0]["responseStatus"], 200);
    assert_eq!(delivered["nextAttemptAt"], Value::Null);
}

#[tokio::test]
async fn failures_are_retried_on_the_schedule_with_the_same_id_then_exhausted() {
    let s = setup(&[]).await;
    let failing = receiver(500).await;
    let subscription = subscribe(&s.app, &s.office, &failing.uri(), "ATIVO").await;
    let identifier = s.app.create_proposal(&s.partner, &cpf_from(2)).await;
    cancel(&s, &identifier).await;

    // Schedule "1,2": three attempts, 1 s then 2 s apart (plus up to 10% jitter).
    let uuid = subscription["uuid"].as_str().unwrap();
    let exhausted = delivery_in_state(&s.app, &s.office, uuid, "ESGOTADA").await;
    let received = failing.received_requests().await.unwrap();
    assert_eq!(received.len(), 3);
    let ids: Vec<&str> = received
        .iter()
        .map(|r| r.headers["webhook-id"].to_str().unwrap())
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]));
    let attempts = exhausted["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3);
    let at = |i: usize| chrono::DateTime::parse_from_rfc3339(attempts[i]["attemptedAt"].as_str().unwrap()).unwrap();
    let first_gap = (at(1) - at(0)).num_milliseconds();
    let second_gap = (at(2) - at(1)).num_milliseconds();
    assert!((1000..2500).contains(&first_gap), "{first_gap} ms");
    assert!((2000..3500).contains(&second_gap), "{second_gap} ms");
    assert!(attempts.iter().all(|a| a["responseStatus"] == 500));
    assert!(attempts[0]["nextAttemptAt"].is_string());
    assert_eq!(attempts[2]["nextAttemptAt"], Value::Null);

    // A manual retry sends it once more, with the same id.
    let retried = s
        .app
        .post_json_as(
            &format!("/hooks/{uuid}/deliveries/{}/retry", exhausted["id"]),
            &s.office,
            &json!({}),
        )
        .await;
    assert_eq!(retried.status(), StatusCode::OK);
    let again = requests(&failing, 4).await;
    assert_eq!(again[3].headers["webhook-id"].to_str().unwrap(), ids[0]);
}

#[tokio::test]
async fn a_410_turns_the_subscription_inactive() {
    let s = setup(&[]).await;
    let gone = receiver(410).await;
    let subscription = subscribe(&s.app, &s.office, &gone.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    let sent = s
        .app
        .post_json_as(&format!("/hooks/{uuid}/test"), &s.office, &json!({}))
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    delivery_in_state(&s.app, &s.office, uuid, "CANCELADA").await;
    let body: Value = s
        .app
        .get(&format!("/hooks/{uuid}"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["data"]["status"], "INATIVO");
    assert!(body["data"]["inactiveReason"].as_str().unwrap().contains("410"));
    assert_eq!(gone.received_requests().await.unwrap().len(), 1);
    // An inactive subscription gets no test event either.
    assert_error(send_test(&s, uuid).await, StatusCode::BAD_REQUEST, "webhook_inativo").await;
    // Turned on again by its owner, it loses the reason it was turned off.
    let reactivated: Value = s
        .app
        .client
        .patch(s.app.url(&format!("/hooks/{uuid}")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "ATIVO"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reactivated["data"]["status"], "ATIVO");
    assert!(reactivated["data"].get("inactiveReason").is_none(), "{reactivated}");
}

#[tokio::test]
async fn after_rotation_deliveries_are_signed_with_both_secrets_during_the_grace_period() {
    let s = setup(&[]).await;
    let (server, subscription) = office_hook(&s, 200).await;
    let uuid = subscription["uuid"].as_str().unwrap();
    let old_secret = subscription["secret"].as_str().unwrap();
    let rotated: Value = s
        .app
        .post_json_as(&format!("/hooks/{uuid}/rotateSecret"), &s.office, &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let new_secret = rotated["data"]["secret"].as_str().unwrap();
    assert_ne!(new_secret, old_secret);
    send_test(&s, uuid).await;
    let request = &requests(&server, 1).await[0];
    let signatures = request.headers["webhook-signature"].to_str().unwrap();
    assert_eq!(signatures.split(' ').count(), 2, "{signatures}");
    verify(old_secret, request);
    verify(new_secret, request);
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["type"], "TESTE");
    assert_eq!(body["data"]["uuid"], uuid);
}

#[tokio::test]
async fn with_no_grace_period_only_the_new_secret_signs() {
    let s = setup(&[("HOOKS_ROTATION_GRACE_SECS", "0")]).await;
    let (server, subscription) = office_hook(&s, 200).await;
    let uuid = subscription["uuid"].as_str().unwrap();
    let rotated: Value = s
        .app
        .post_json_as(&format!("/hooks/{uuid}/rotateSecret"), &s.office, &json!({}))
        .await
        .json()
        .await
        .unwrap();
    send_test(&s, uuid).await;
    let request = &requests(&server, 1).await[0];
    verify(rotated["data"]["secret"].as_str().unwrap(), request);
    assert!(
        standardwebhooks::Webhook::new(subscription["secret"].as_str().unwrap())
            .unwrap()
            .verify(&request.body, &request.headers)
            .is_err()
    );
}

#[tokio::test]
async fn redirects_are_not_followed() {
    let s = setup(&[]).await;
    let server = MockServer::start().await;
    Mock::given(path("/desvio"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", "http://169.254.169.254/latest/meta-data/"))
        .mount(&server)
        .await;
    Mock::given(path("/alvo"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    let subscription = subscribe(&s.app, &s.office, &format!("{}/desvio", server.uri()), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    send_test(&s, uuid).await;
    let pending = delivery_in_state(&s.app, &s.office, uuid, "PENDENTE").await;
    let started = Instant::now();
    let attempt = loop {
        let list = deliveries(&s.app, &s.office, uuid).await;
        if let Some(a) = list[0]["attempts"].as_array().and_then(|a| a.first()).cloned() {
            break a;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{pending}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(attempt["responseStatus"], 302);
    let paths: Vec<String> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    assert!(paths.iter().all(|p| p == "/desvio"), "{paths:?}");
}

#[tokio::test]
async fn patch_changes_members_and_delete_cancels_pending_deliveries() {
    let s = setup(&[("HOOKS_RETRY_SCHEDULE_SECS", "3600")]).await;
    let failing = receiver(503).await;
    let subscription = subscribe(&s.app, &s.office, &failing.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();

    let patch = |body: Value| {
        s.app
            .client
            .patch(s.app.url(&format!("/hooks/{uuid}")))
            .bearer_auth(&s.office)
            .json(&body)
            .send()
    };
    let changed: Value = patch(json!({"events": ["ALTERAÇÃO_STATUS", "TESTE"]}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(changed["data"]["events"], json!(["ALTERAÇÃO_STATUS", "TESTE"]));
    assert_eq!(changed["data"]["secret"], subscription["secret"]);
    let refused = patch(json!({"endpoint": "http://10.0.0.1/"})).await.unwrap();
    let answer = assert_error(refused, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    assert_eq!(error_fields(&answer), ["endpoint"]);
    assert_error(
        patch(json!({})).await.unwrap(),
        StatusCode::BAD_REQUEST,
        "requisicao_invalida",
    )
    .await;
    for (body, field) in [
        (json!({"events": []}), "events"),
        (json!({"events": ["PROPOSTA_EXCLUIDA"]}), "events[0]"),
        (json!({"status": "LIGADO"}), "status"),
        (json!({"endpoint": "ftp://example.com/"}), "endpoint"),
    ] {
        let answer = assert_error(
            patch(body.clone()).await.unwrap(),
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&answer), [field], "{body}");
    }

    send_test(&s, uuid).await;
    requests(&failing, 1).await;
    delivery_in_state(&s.app, &s.office, uuid, "PENDENTE").await;

    let deleted = s
        .app
        .client
        .delete(s.app.url(&format!("/hooks/{uuid}")))
        .bearer_auth(&s.office)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_error(
        s.app.get(&format!("/hooks/{uuid}"), Some(&s.office)).await,
        StatusCode::NOT_FOUND,
        "webhook_nao_encontrado",
    )
    .await;
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM hook_deliveries WHERE state = 'PENDENTE'")
            .await,
        0
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM hook_deliveries WHERE state = 'CANCELADA'")
            .await,
        1
    );
    let listed: Value = s.app.get("/hooks", Some(&s.office)).await.json().await.unwrap();
    assert_eq!(listed["data"]["subscriptions"], json!([]));
}

#[tokio::test]
async fn unknown_uuids_and_delivery_ids_are_404() {
    let s = setup(&[]).await;
    for path in ["/hooks/nao-e-uuid", "/hooks/00000000-0000-0000-0000-000000000000"] {
        assert_error(
            s.app.get(path, Some(&s.office)).await,
            StatusCode::NOT_FOUND,
            "webhook_nao_encontrado",
        )
        .await;
    }
    let (_receiver, subscription) = office_hook(&s, 200).await;
    let uuid = subscription["uuid"].as_str().unwrap();
    for id in ["999", "abc"] {
        assert_error(
            s.app
                .post_json_as(&format!("/hooks/{uuid}/deliveries/{id}/retry"), &s.office, &json!({}))
                .await,
            StatusCode::NOT_FOUND,
            "entrega_nao_encontrada",
        )
        .await;
    }
}

#[tokio::test]
async fn a_change_that_does_not_commit_queues_nothing() {
    let s = setup(&[]).await;
    let server = receiver(200).await;
    subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    let identifier = s.app.create_proposal(&s.partner, &cpf_from(3)).await;
    // NOVO cannot go to APROVADO: refused, rolled back, and no event is queued or sent.
    let refused = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "APROVADO"}))
        .send()
        .await
        .unwrap();
    assert_error(refused, StatusCode::BAD_REQUEST, "transicao_invalida").await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM hook_deliveries").await, 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(server.received_requests().await.unwrap().is_empty());
}

/// `HOOKS_ENCRYPTION_KEY` before and after a rotation: base64 of 32 bytes of 1, then of 2.
const OLD_KEY: &str = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=";
const NEW_KEY: &str = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=";

#[tokio::test(flavor = "multi_thread")]
async fn after_a_key_rotation_old_secrets_still_sign_and_hooks_reseal_moves_every_one_to_the_new_key() {
    let s = setup(&[("HOOKS_ENCRYPTION_KEY", OLD_KEY)]).await;
    let (server, subscription) = office_hook(&s, 200).await;
    let uuid = subscription["uuid"].as_str().unwrap().to_owned();
    // Both columns sealed under the old key: the current secret and the one in its grace period.
    let rotated: Value = s
        .app
        .post_json_as(&format!("/hooks/{uuid}/rotateSecret"), &s.office, &json!({}))
        .await
        .json()
        .await
        .unwrap();
    let secret = rotated["data"]["secret"].as_str().unwrap().to_owned();

    // The operator rotates the key; the old one stays readable.
    let rotation = [
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        ("HOOKS_ENCRYPTION_KEY", NEW_KEY),
        ("HOOKS_PREVIOUS_ENCRYPTION_KEYS", OLD_KEY),
    ];
    let Setup { app, office, .. } = s;
    let app = app.restart_with(&rotation).await;
    let test = app
        .post_json_as(&format!("/hooks/{uuid}/test"), &office, &json!({}))
        .await;
    assert_eq!(test.status(), StatusCode::OK);
    let request = &requests(&server, 1).await[0];
    verify(&secret, request);
    verify(subscription["secret"].as_str().unwrap(), request);

    // `sales-api hooks reseal` with the rotation's settings.
    let config = TestApp::config(&app.db, &rotation);
    let keys = api_actix::security::hook_keys::hook_keys(&config).unwrap();
    let hooks = adapters_postgres::PgHooks::new(
        adapters_postgres::build_pool(&adapters_postgres::PoolSettings::new(&app.db.url)).unwrap(),
        &keys,
    );
    assert_eq!(hooks.secrets_under_other_keys().await.unwrap(), 2);
    let report = api_actix::cli::reseal(&config, false).await.unwrap();
    assert_eq!((report.resealed, report.current), (2, 0));
    assert_eq!(
        hooks.secrets_under_other_keys().await.unwrap(),
        0,
        "none left under the old key"
    );
    let again = api_actix::cli::reseal(&config, false).await.unwrap();
    assert_eq!((again.resealed, again.current), (0, 2));

    // The old key can now be dropped: deliveries are still signed with the same secrets.
    let app = app
        .restart_with(&[
            ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
            ("HOOKS_ENCRYPTION_KEY", NEW_KEY),
        ])
        .await;
    let test = app
        .post_json_as(&format!("/hooks/{uuid}/test"), &office, &json!({}))
        .await;
    assert_eq!(test.status(), StatusCode::OK);
    let request = &requests(&server, 2).await[1];
    verify(&secret, request);
}

/// A receiver that accepts connections and never answers; counts the requests it holds.
struct HangingReceiver {
    url: String,
    held: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    _task: tokio::task::JoinHandle<()>,
}

impl HangingReceiver {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let held = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = held.clone();
        let task = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((stream, _)) = listener.accept().await {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                open.push(stream);
            }
        });
        Self { url, held, _task: task }
    }

    fn held(&self) -> usize {
        self.held.load(std::sync::atomic::Ordering::SeqCst)
    }

    async fn wait_for(&self, n: usize) {
        let started = Instant::now();
        while self.held() < n {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{} of {n} held",
                self.held()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_owners_hanging_endpoints_hold_only_its_share_and_another_owner_is_still_served() {
    let s = setup(&[
        ("HOOKS_MAX_IN_FLIGHT", "16"),
        ("HOOKS_MAX_IN_FLIGHT_PER_OWNER", "4"),
        ("HOOKS_REQUEST_TIMEOUT_MS", "30000"),
        ("HOOKS_LEASE_SECS", "60"),
    ])
    .await;
    let hanging = HangingReceiver::start().await;
    for i in 0..16 {
        let subscription = subscribe(&s.app, &s.partner, &format!("{}/p{i}", hanging.url), "ATIVO").await;
        let uuid = subscription["uuid"].as_str().unwrap();
        let queued = s
            .app
            .post_json_as(&format!("/hooks/{uuid}/test"), &s.partner, &json!({}))
            .await;
        assert_eq!(queued.status(), StatusCode::OK);
    }
    hanging.wait_for(4).await;
    // Several claims (every 200 ms) later, the partner still holds four requests, not sixteen.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(hanging.held(), 4, "the owner's share of the in-flight slots");

    let healthy = receiver(200).await;
    let other = subscribe(&s.app, &s.other_partner, &healthy.uri(), "ATIVO").await;
    let uuid = other["uuid"].as_str().unwrap();
    let queued = s
        .app
        .post_json_as(&format!("/hooks/{uuid}/test"), &s.other_partner, &json!({}))
        .await;
    assert_eq!(queued.status(), StatusCode::OK);
    // Delivered while every one of the first owner's requests still hangs (they would time out
    // only after 30 s, past the helper's 20 s wait).
    requests(&healthy, 1).await;
    assert_eq!(hanging.held(), 4);
    let delivered = delivery_in_state(&s.app, &s.other_partner, uuid, "ENTREGUE").await;
    assert_eq!(delivered["attempts"].as_array().map(Vec::len), Some(1));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_test_event_is_refused_while_the_previous_one_is_being_sent() {
    let s = setup(&[("HOOKS_REQUEST_TIMEOUT_MS", "30000"), ("HOOKS_LEASE_SECS", "60")]).await;
    let hanging = HangingReceiver::start().await;
    let subscription = subscribe(&s.app, &s.office, &hanging.url, "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    assert_eq!(send_test(&s, uuid).await.status(), StatusCode::OK);
    hanging.wait_for(1).await;
    let refused = assert_error(send_test(&s, uuid).await, StatusCode::CONFLICT, "teste_em_andamento").await;
    assert!(refused["message"].as_str().unwrap().contains("aguarde"));
    assert_eq!(deliveries(&s.app, &s.office, uuid).await.len(), 1, "nothing queued");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_owner_keeps_at_most_the_configured_number_of_subscriptions() {
    let s = setup(&[("HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER", "3")]).await;
    let endpoint = "http://127.0.0.1:9/hooks";
    let mut kept = Vec::new();
    for _ in 0..3 {
        kept.push(subscribe(&s.app, &s.partner, endpoint, "ATIVO").await);
    }
    let body = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": endpoint, "status": "INATIVO"});
    let refused = assert_error(
        s.app.post_json_as("/hooks", &s.partner, &body).await,
        StatusCode::CONFLICT,
        "limite_webhooks",
    )
    .await;
    assert!(
        refused["message"].as_str().unwrap().contains("Limite de 3"),
        "{refused}"
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM hook_subscriptions").await, 3);
    // Another owner has its own count; a deleted subscription frees a place.
    subscribe(&s.app, &s.other_partner, endpoint, "ATIVO").await;
    let uuid = kept[0]["uuid"].as_str().unwrap();
    let deleted = s
        .app
        .client
        .delete(s.app.url(&format!("/hooks/{uuid}")))
        .bearer_auth(&s.partner)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    subscribe(&s.app, &s.partner, endpoint, "ATIVO").await;
}
