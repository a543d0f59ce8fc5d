//! What an operator sees: the metrics listener (scraped and parsed as Prometheus would), and a
//! request's correlation (its id kept or replaced, its W3C trace continued and both forwarded to
//! the payment platform).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, cpf_from};
use prom_text_format_parser::{Metric, Scrape, Type, ValueType};
use serde_json::json;

async fn scrape(app: &TestApp) -> Scrape {
    let address = app.metrics_address.as_ref().expect("metrics listener on");
    let response = reqwest::get(format!("{address}/metrics")).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let text = response.text().await.unwrap();
    Scrape::parse(&text).unwrap()
}

/// A label's value in a sample.
fn label<'a>(labels: &'a prom_text_format_parser::Labels, key: &str) -> Option<&'a str> {
    labels.iter().find(|l| l.key == key).map(|l| l.value.as_str())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_listener_shows_routes_by_pattern_pools_webhooks_and_the_process() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let cpf = cpf_from(424_242);
    let identifier = app.create_proposal(&partner, &cpf).await;
    for _ in 0..3 {
        let found = app
            .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&partner))
            .await;
        assert_eq!(found.status(), StatusCode::OK);
    }
    let missing = app.get("/proposal/byIdentifier/nao-existe-123", Some(&partner)).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.get(&format!("/customer/validCustomer/{cpf}"), Some(&partner))
            .await
            .status(),
        StatusCode::OK
    );

    let scraped = scrape(&app).await;
    let family = |name: &str| -> &Metric {
        scraped
            .metrics
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no {name} family"))
    };
    let requests = family("http_server_request_duration_seconds");
    assert_eq!(requests.kind, Type::Histogram);
    let route_7 = "/proposal/byIdentifier/{identificador}";
    let of_route_7 = |status: &'static str| {
        requests.samples.iter().filter(move |s| {
            label(&s.labels, "route") == Some(route_7)
                && label(&s.labels, "method") == Some("GET")
                && label(&s.labels, "status") == Some(status)
        })
    };
    let count = of_route_7("2xx")
        .find(|s| s.value.value_type == ValueType::Count)
        .expect("route 7's 2xx count");
    assert_eq!(count.value.value.as_f64(), 3.0, "route 7 answered 200 three times");
    let infinite = of_route_7("2xx")
        .find(|s| s.value.value_type == ValueType::Sample && label(&s.labels, "le") == Some("+Inf"))
        .expect("route 7's +Inf bucket");
    assert_eq!(infinite.value.value.as_f64(), 3.0);
    assert!(
        of_route_7("2xx")
            .filter(|s| s.value.value_type == ValueType::Sample)
            .count()
            > 5,
        "latency buckets"
    );
    assert!(of_route_7("4xx").count() > 0, "the 404 by its class");

    let has = |name: &str, key: &str, value: &str| {
        family(name)
            .samples
            .iter()
            .any(|s| label(&s.labels, key) == Some(value))
    };
    assert!(has("db_pool_connections", "pool", "api"), "the API pool's connections");
    assert!(
        has("db_pool_connections", "pool", "webhooks"),
        "the delivery engine's pool"
    );
    assert!(has("db_pool_connections", "state", "in_use"));
    assert!(has("db_pool_max_connections", "pool", "api"));
    assert!(has("db_pool_waiting", "pool", "api"));
    assert_eq!(family("db_pool_acquire_duration_seconds").kind, Type::Histogram);
    for gauge in ["webhook_deliveries_due", "webhook_oldest_due_age_seconds"] {
        assert_eq!(family(gauge).kind, Type::Gauge, "{gauge}");
        assert_eq!(
            family(gauge).samples[0].value.value.as_f64(),
            0.0,
            "{gauge}: nothing due"
        );
    }
    assert!(family("process_resident_memory_bytes").samples[0].value.value.as_f64() > 0.0);
    assert!(!family("process_cpu_seconds_total").samples.is_empty());

    // Never a raw identifier: no label holds the proposal's identifier, the CPF or a raw path.
    for metric in &scraped.metrics {
        for sample in &metric.samples {
            for l in sample.labels.iter() {
                assert!(
                    !l.value.contains(&identifier) && !l.value.contains(&cpf) && !l.value.contains("nao-existe"),
                    "{} has {}={}",
                    metric.name,
                    l.key,
                    l.value
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_show_each_partitioned_tables_months_made_ahead_and_rows_waiting_in_default() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    // A callback record dated a year ahead: no month is made for it yet.
    app.sql("INSERT INTO signature_callbacks (event_id, received_at) VALUES ('adiante', now() + interval '1 year')")
        .await;
    let scraped = scrape(&app).await;
    let per_table = |name: &str| -> Vec<(String, f64)> {
        let family = scraped
            .metrics
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no {name} family"));
        assert_eq!(family.kind, Type::Gauge, "{name}");
        let mut values: Vec<(String, f64)> = family
            .samples
            .iter()
            .map(|s| (label(&s.labels, "table").unwrap().to_owned(), s.value.value.as_f64()))
            .collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        values
    };
    let tables = [
        "ended_sessions",
        "hook_attempts",
        "hook_deliveries",
        "payment_events",
        "proposal_history",
        "signature_callbacks",
    ];
    assert_eq!(
        per_table("db_partition_months_ahead"),
        tables.map(|t| (t.to_owned(), 3.0)),
        "the migrations made three months ahead"
    );
    assert_eq!(
        per_table("db_partition_default_rows"),
        tables.map(|t| (t.to_owned(), if t == "signature_callbacks" { 1.0 } else { 0.0 }))
    );
}

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
