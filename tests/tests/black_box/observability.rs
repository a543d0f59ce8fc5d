//! What an operator sees: a request's correlation (its id kept or replaced, its W3C trace
//! continued and both forwarded to the payment platform). The metrics listener's counts are in
//! their own test binary (`tests/tests/metrics`): the process has one recorder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_request_id_is_kept_when_well_formed_and_replaced_otherwise() {
    let app = TestApp::spawn().await;
    let asked = |id: &'static str| {
        let client = app.client.clone();
        let url = app.url("/health/live");
        async move {
            let response = client.get(url).header("x-request-id", id).send().await.unwrap();
            response.headers()["x-request-id"].to_str().unwrap().to_owned()
        }
    };
    assert_eq!(asked("pedido-2026.11_22").await, "pedido-2026.11_22");
    let long = "a".repeat(128);
    let kept = app
        .client
        .get(app.url("/health/live"))
        .header("x-request-id", &long)
        .send()
        .await
        .unwrap();
    assert_eq!(kept.headers()["x-request-id"], long.as_str());
    for bad in ["com espaço", "<script>", "a;b"] {
        let replaced = asked(bad).await;
        assert!(uuid::Uuid::parse_str(&replaced).is_ok(), "{bad} → {replaced}");
    }
    let too_long = "a".repeat(129);
    let replaced = app
        .client
        .get(app.url("/health/live"))
        .header("x-request-id", &too_long)
        .send()
        .await
        .unwrap();
    assert!(uuid::Uuid::parse_str(replaced.headers()["x-request-id"].to_str().unwrap()).is_ok());
    // None sent: one is made.
    let made = app.client.get(app.url("/health/live")).send().await.unwrap();
    assert!(uuid::Uuid::parse_str(made.headers()["x-request-id"].to_str().unwrap()).is_ok());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_trace_and_request_id_reach_the_payment_platform() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let stripe = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/customers"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "cus_rastreado"})))
        .mount(&stripe)
        .await;
    let base = stripe.uri();
    let app = TestApp::spawn_with(&[
        ("STRIPE_SECRET_KEY", "sk_test_1"),
        ("STRIPE_API_BASE", &base),
        ("PAYMENT_WEBHOOK_SECRET", "whsec_teste_0123456789"),
    ])
    .await;
    app.seed_catalog().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let body = json!({
        "billingCode": 5004, "productCode": 103,
        "customer": {"fullName": "João Souza", "cpf": "52998224725", "birthDate": "1985-03-10", "gender": "Masculino", "email": "joao@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro", "city": "Rio de Janeiro", "state": "RJ"}
    });
    let created = app.post_json_as("/proposal/create/ecommerce", &shop, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);

    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let response = app
        .client
        .post(app.url("/ecommerce/createCustomer"))
        .bearer_auth(&shop)
        .header("x-request-id", "checkout-77")
        .header("traceparent", format!("00-{trace}-{caller_span}-01"))
        .json(&json!({"cpf": "52998224725"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["x-request-id"], "checkout-77");

    let received = stripe.received_requests().await.unwrap();
    let call = received
        .iter()
        .find(|r| r.url.path() == "/v1/customers")
        .expect("the platform was called");
    assert_eq!(call.headers["x-request-id"], "checkout-77");
    let forwarded = call.headers["traceparent"].to_str().unwrap();
    let parts: Vec<&str> = forwarded.split('-').collect();
    assert_eq!(parts.len(), 4, "{forwarded}");
    assert_eq!(
        (parts[0], parts[1], parts[3]),
        ("00", trace, "01"),
        "the trace continued: {forwarded}"
    );
    assert_eq!(parts[2].len(), 16);
    assert_ne!(
        parts[2], caller_span,
        "this service's own span is the parent of its call"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_trace_and_request_id_reach_the_signature_provider() {
    use wiremock::MockServer;
    let clicksign = MockServer::start().await;
    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let uri = clicksign.uri();
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", "segredo-de-callback-0123456789"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let created: serde_json::Value = app
        .post_json_as(
            "/proposal/create",
            &partner,
            &black_box_tests::proposal_body("12345678909"),
        )
        .await
        .json()
        .await
        .unwrap();
    let body = json!({
        "customerId": created["document"][0]["id_cliente"],
        "identifier": created["document"][0]["identificador"],
    });
    let trace = "5bf92f3577b34da6a3ce929d0e0e4736";
    let sent = app
        .client
        .post(app.url("/signer"))
        .bearer_auth(&partner)
        .header("x-request-id", "assinatura-9")
        .header("traceparent", format!("00-{trace}-00f067aa0ba902b7-01"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), StatusCode::OK);

    let received = clicksign.received_requests().await.unwrap();
    assert!(
        received.len() >= 14,
        "envelope, document, signers, requirements, activation, notification"
    );
    for call in &received {
        assert_eq!(call.headers["x-request-id"], "assinatura-9", "{}", call.url.path());
        let forwarded = call.headers["traceparent"].to_str().unwrap();
        assert!(forwarded.starts_with(&format!("00-{trace}-")), "{forwarded}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_taken_default_metrics_address_turns_the_metrics_off_but_a_set_one_stops_the_start() {
    use api_actix::app::Application;
    api_actix::install_crypto_provider();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let db = adapters_postgres::testing::TestDatabase::new().await;

    // Unset (the default address), and another process holds it: the service starts without.
    let mut config = TestApp::config(&db, &[]);
    config.server.metrics_addr = Some(addr);
    config.server.metrics_addr_given = false;
    let app = Application::build(config).await.unwrap();
    assert_eq!(app.metrics_port(), None);
    let handle = app.handle();
    tokio::spawn(app.run_until_stopped());
    handle.stop(false).await;

    // Set explicitly: the operator asked for it, so the start stops and says why.
    let mut config = TestApp::config(&db, &[]);
    config.server.metrics_addr = Some(addr);
    config.server.metrics_addr_given = true;
    let refused = Application::build(config).await.err().expect("refused").to_string();
    assert!(refused.contains("METRICS_ADDR"), "{refused}");
}
