//! Routes 14 to 16 through the sandbox payment platform, and the platform's inbound events.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

pub(super) const WEBHOOK_SECRET: &str = "whsec_teste_0123456789";

struct Setup {
    app: TestApp,
    shop: String,
    partner: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    app.seed_catalog().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    Setup { app, shop, partner }
}

/// An e-commerce proposal of product 103 for the CPF: its identifier.
async fn proposal(s: &Setup, cpf: &str, email: &str) -> String {
    let body = json!({
        "billingCode": 5004, "productCode": 103,
        "customer": {"fullName": "João Souza", "cpf": cpf, "birthDate": "1985-03-10", "gender": "Masculino", "email": email},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro", "city": "Rio de Janeiro", "state": "RJ"}
    });
    let response = s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn call(s: &Setup, path: &str, body: Value) -> reqwest::Response {
    s.app.post_json_as(path, &s.shop, &body).await
}

/// Routes 14 and 15 for the CPF, as the shop's checkout does before route 16.
async fn ready_to_pay(s: &Setup, cpf: &str) {
    assert_eq!(
        call(s, "/ecommerce/createCustomer", json!({"cpf": cpf})).await.status(),
        StatusCode::CREATED
    );
    assert_eq!(
        call(s, "/ecommerce/createSetupIntent", json!({"cpf": cpf}))
            .await
            .status(),
        StatusCode::OK
    );
}

const SUBSCRIPTION_MEMBERS: [&str; 46] = [
    "id",
    "object",
    "status",
    "customer",
    "currency",
    "collection_method",
    "created",
    "start_date",
    "billing_cycle_anchor",
    "cancel_at",
    "canceled_at",
    "ended_at",
    "trial_start",
    "trial_end",
    "cancel_at_period_end",
    "cancellation_details",
    "default_payment_method",
    "latest_invoice",
    "livemode",
    "metadata",
    "quantity",
    "plan",
    "items",
    "billing_mode",
    "automatic_tax",
    "invoice_settings",
    "payment_settings",
    "trial_settings",
    "application",
    "application_fee_percent",
    "billing_cycle_anchor_config",
    "billing_thresholds",
    "days_until_due",
    "default_source",
    "default_tax_rates",
    "description",
    "discounts",
    "next_pending_invoice_item_invoice",
    "on_behalf_of",
    "pause_collection",
    "pending_invoice_item_interval",
    "pending_setup_intent",
    "pending_update",
    "schedule",
    "test_clock",
    "transfer_data",
];

#[tokio::test(flavor = "multi_thread")]
async fn from_an_ecommerce_proposal_to_an_active_subscription_that_moves_it_to_analysis() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;

    let created = call(&s, "/ecommerce/createCustomer", json!({"cpf": "529.982.247-25"})).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    assert_eq!(created["rowsAffected"], json!([]));
    let customer_id = created["document"][0]["customerId"].as_str().unwrap().to_owned();
    assert!(customer_id.starts_with("cus_"));
    let again: Value = call(&s, "/ecommerce/createCustomer", json!({"cpf": "52998224725"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again["document"][0]["customerId"], customer_id.as_str(), "created once");

    let intent = call(&s, "/ecommerce/createSetupIntent", json!({"cpf": "52998224725"})).await;
    assert_eq!(intent.status(), StatusCode::OK);
    let intent: Value = intent.json().await.unwrap();
    let intent_id = intent["document"][0]["id"].as_str().unwrap();
    assert!(intent_id.starts_with("seti_"));
    assert!(
        intent["document"][0]["clientSecret"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{intent_id}_secret_"))
    );
    let secret = intent["document"][0]["clientSecret"].as_str().unwrap();
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM setup_intents s WHERE s::text LIKE '%{secret}%'"
            ))
            .await,
        0,
        "the secret is never stored"
    );

    let response = call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["rowsAffected"], json!([]));
    let subscription = &body["document"][0];
    let mut members: Vec<&str> = subscription.as_object().unwrap().keys().map(String::as_str).collect();
    members.sort_unstable();
    let mut expected = SUBSCRIPTION_MEMBERS.to_vec();
    expected.sort_unstable();
    assert_eq!(members, expected);
    assert_eq!(subscription["object"], "subscription");
    assert_eq!(subscription["status"], "active");
    assert_eq!(subscription["currency"], "brl");
    assert_eq!(subscription["customer"], customer_id.as_str());
    assert_eq!(subscription["collection_method"], "charge_automatically");
    for unix in ["created", "start_date", "billing_cycle_anchor"] {
        assert!(
            subscription[unix].as_i64().unwrap() > 1_700_000_000,
            "{unix} in Unix seconds"
        );
    }
    for nullable in ["cancel_at", "canceled_at", "ended_at", "trial_start", "trial_end"] {
        assert!(subscription[nullable].is_null());
    }
    assert_eq!(subscription["items"]["object"], "list");
    assert_eq!(subscription["items"]["data"][0]["price"]["unit_amount"], 3990);
    assert_eq!(subscription["plan"]["currency"], "brl");

    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.shop))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "EM ANÁLISE");
    let events: Value = s
        .app
        .get(&format!("/proposal/{identifier}/events"), Some(&s.shop))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(events["document"][0]["previousStatus"], "NOVO");
    assert_eq!(events["document"][0]["status"], "EM ANÁLISE");

    let twice = call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await;
    let twice = assert_error(twice, StatusCode::BAD_REQUEST, "assinatura_ja_ativa").await;
    assert!(twice["message"].as_str().unwrap().contains("já ativa"));
}

#[tokio::test(flavor = "multi_thread")]
async fn each_missing_step_is_named_and_unknown_things_are_404() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;
    let missing = assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": "nao-existe"})).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert!(missing["message"].as_str().unwrap().contains("identificador"));
    assert_error(
        call(&s, "/ecommerce/createCustomer", json!({"cpf": "12345678909"})).await,
        StatusCode::NOT_FOUND,
        "cliente_nao_encontrado",
    )
    .await;
    assert_error(
        call(&s, "/ecommerce/createCustomer", json!({"cpf": "123"})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_error(
        call(&s, "/ecommerce/createSetupIntent", json!({"cpf": "52998224725"})).await,
        StatusCode::BAD_REQUEST,
        "cliente_sem_plataforma",
    )
    .await;
    assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await,
        StatusCode::BAD_REQUEST,
        "cliente_sem_plataforma",
    )
    .await;
    call(&s, "/ecommerce/createCustomer", json!({"cpf": "52998224725"})).await;
    assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await,
        StatusCode::BAD_REQUEST,
        "forma_pagamento_ausente",
    )
    .await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM subscriptions").await, 0);

    // Only the shop sells online.
    let partner = s
        .app
        .post_json_as("/ecommerce/createCustomer", &s.partner, &json!({"cpf": "52998224725"}))
        .await;
    assert_error(partner, StatusCode::FORBIDDEN, "sem_permissao").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_concurrent_subscriptions_create_exactly_one() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;
    ready_to_pay(&s, "52998224725").await;
    let body = json!({"identifier": identifier});
    let calls = (0..20).map(|_| call(&s, "/ecommerce/createSubscription", body.clone()));
    let statuses: Vec<StatusCode> = futures_util::future::join_all(calls)
        .await
        .iter()
        .map(reqwest::Response::status)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::CREATED).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::BAD_REQUEST).count(),
        19,
        "{statuses:?}"
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM subscriptions").await, 1);
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM sandbox_payment_objects WHERE kind = 'subscription'")
            .await,
        1,
        "one on the platform"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_card_is_a_400_that_stores_nothing_and_leaves_the_proposal_new() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "cartao+recusado@exemplo.com.br").await;
    ready_to_pay(&s, "52998224725").await;
    let declined = assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await,
        StatusCode::BAD_REQUEST,
        "pagamento_recusado",
    )
    .await;
    assert!(declined["message"].as_str().unwrap().contains("declined"));
    assert_eq!(s.app.count("SELECT count(*) AS n FROM subscriptions").await, 0);
    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.shop))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "NOVO");
}

pub(super) fn stripe_signature(body: &str, timestamp: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(WEBHOOK_SECRET.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{body}").as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("t={timestamp},v1={hex}")
}

async fn platform_event(s: &Setup, body: &str, signature: &str) -> reqwest::Response {
    s.app
        .client
        .post(s.app.url("/callbacks/payment"))
        .header("stripe-signature", signature)
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn platform_events_are_verified_applied_once_and_stale_ones_refused() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;
    ready_to_pay(&s, "52998224725").await;
    let created: Value = call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier}))
        .await
        .json()
        .await
        .unwrap();
    let subscription = created["document"][0]["id"].as_str().unwrap();

    let now = chrono::Utc::now().timestamp();
    let deleted = json!({"id": "evt_1", "type": "customer.subscription.deleted", "data": {"object": {"id": subscription, "status": "canceled"}}}).to_string();
    let first = platform_event(&s, &deleted, &stripe_signature(&deleted, now)).await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(first.json::<Value>().await.unwrap()["message"], "Evento registrado.");
    let second = platform_event(&s, &deleted, &stripe_signature(&deleted, now)).await;
    assert_eq!(
        second.json::<Value>().await.unwrap()["message"],
        "Evento já registrado."
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM subscriptions WHERE status = 'canceled'")
            .await,
        1
    );

    assert_error(
        platform_event(&s, &deleted, "t=1,v1=00").await,
        StatusCode::UNAUTHORIZED,
        "evento_pagamento_nao_autenticado",
    )
    .await;
    let stale = json!({"id": "evt_2", "type": "customer.subscription.updated", "data": {"object": {"id": subscription, "status": "active"}}}).to_string();
    assert_error(
        platform_event(&s, &stale, &stripe_signature(&stale, now - 301)).await,
        StatusCode::BAD_REQUEST,
        "requisicao_invalida",
    )
    .await;

    // A canceled subscription frees the customer and product for a new one.
    let customer: i64 = s.app.count("SELECT id AS n FROM customers LIMIT 1").await;
    let succeeded = json!({"id": "evt_3", "type": "setup_intent.succeeded", "data": {"object": {"id": "seti_x", "customer": created["document"][0]["customer"], "payment_method": "pm_novo"}}}).to_string();
    assert_eq!(
        platform_event(&s, &succeeded, &stripe_signature(&succeeded, now))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM customers WHERE id = {customer} AND payment_method_id = 'pm_novo'"
            ))
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_stripe_down_the_subscription_is_a_503_and_nothing_is_stored() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let stripe = MockServer::start().await;
    let base = stripe.uri();
    let app = TestApp::spawn_with(&[
        ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("STRIPE_SECRET_KEY", "sk_test_1"),
        ("STRIPE_API_BASE", &base),
    ])
    .await;
    app.seed_catalog().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let s = Setup {
        partner: String::new(),
        shop,
        app,
    };
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;

    black_box_tests::mount_stripe_customer_and_setup_intent(&stripe, None).await;
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&stripe)
        .await;

    ready_to_pay(&s, "52998224725").await;
    // With the real platform the card is saved when the buyer completes the intent: its event says so.
    assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await,
        StatusCode::BAD_REQUEST,
        "forma_pagamento_ausente",
    )
    .await;
    let succeeded = json!({"id": "evt_si", "type": "setup_intent.succeeded", "data": {"object": {"id": "seti_real", "customer": "cus_real", "payment_method": "pm_real"}}}).to_string();
    let now = chrono::Utc::now().timestamp();
    assert_eq!(
        platform_event(&s, &succeeded, &stripe_signature(&succeeded, now))
            .await
            .status(),
        StatusCode::OK
    );

    let down = call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await;
    assert_error(
        down,
        StatusCode::SERVICE_UNAVAILABLE,
        "plataforma_pagamento_indisponivel",
    )
    .await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM subscriptions").await, 0);
    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.shop))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "NOVO");
    let attempts = stripe
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/subscriptions")
        .count();
    assert_eq!(
        attempts, 4,
        "the first try and three retries, all with one idempotency key"
    );
}

/// Route 6's `partnerId` credits a partner with the sale and nothing more: the partner's token
/// finds the shop's proposal nowhere, cannot send it for signature, and its subscriptions hear
/// nothing of it; route 16 then still creates the shop's subscription.
#[tokio::test(flavor = "multi_thread")]
async fn a_credited_partner_gains_no_access_to_the_shops_proposal() {
    let app = TestApp::spawn_with(&[
        ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        ("HOOKS_POLL_INTERVAL_MS", "100"),
    ])
    .await;
    app.seed_catalog().await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let partner_id = app
        .count("SELECT id AS n FROM partners WHERE cpf_cnpj = '11222333000181'")
        .await;
    let hook = app
        .post_json_as(
            "/hooks",
            &partner,
            &json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "http://127.0.0.1:9/hooks", "status": "ATIVO"}),
        )
        .await;
    assert_eq!(hook.status(), StatusCode::OK);

    let mut body = black_box_tests::shop_proposal_body("52998224725");
    body["partnerId"] = json!(partner_id);
    let created = app.post_json_as("/proposal/create/ecommerce", &shop, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let created: Value = created.json().await.unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = created["document"][0]["id_cliente"].as_i64().unwrap();
    assert_eq!(
        app.count(&format!(
            "SELECT id_parceiro AS n FROM proposals WHERE identificador = '{identifier}'"
        ))
        .await,
        partner_id,
        "the partner is credited"
    );

    for path in [
        format!("/proposal/byIdentifier/{identifier}"),
        format!("/proposal/{identifier}/document"),
        format!("/proposal/{identifier}/history"),
        format!("/proposal/{identifier}/events"),
        format!("/signer/signLink?identifier={identifier}"),
    ] {
        let response = app.get(&path, Some(&partner)).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let listed: Value = app.get("/proposal/list", Some(&partner)).await.json().await.unwrap();
    assert_eq!(listed["document"], json!([]), "the list holds none of the shop's");
    let console = app
        .get(&format!("/console/proposals/{identifier}"), Some(&partner))
        .await;
    assert_eq!(console.status(), StatusCode::FORBIDDEN);
    assert_error(
        app.post_json_as(
            "/signer",
            &partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;

    let s = Setup { app, shop, partner };
    ready_to_pay(&s, "52998224725").await;
    let paid = call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await;
    assert_eq!(paid.status(), StatusCode::CREATED);
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM proposal_events").await,
        1,
        "the subscription moved the proposal to analysis"
    );
    // The worker polls every 100 ms: a second is ample for a delivery that should not exist.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM hook_deliveries").await,
        0,
        "the credited partner's subscription hears nothing of the shop's proposal"
    );
}

/// Route 16 takes only a proposal of the shop's that is still `NOVO`.
#[tokio::test(flavor = "multi_thread")]
async fn a_subscription_needs_a_new_proposal_of_the_shops() {
    let s = setup().await;
    let identifier = proposal(&s, "52998224725", "joao@exemplo.com.br").await;
    ready_to_pay(&s, "52998224725").await;
    let office = s.app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let cancelled = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&office)
        .json(&json!({"status": "CANCELADO", "reason": "desistência do cliente"}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::OK);
    let refused = assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": identifier})).await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
    assert!(refused["message"].as_str().unwrap().contains("CANCELADO"), "{refused}");
    assert_eq!(s.app.count("SELECT count(*) AS n FROM subscriptions").await, 0);

    // A partner's proposal for a customer the shop also registered is not the shop's.
    let partners = s.app.create_proposal(&s.partner, "52998224725").await;
    assert_error(
        call(&s, "/ecommerce/createSubscription", json!({"identifier": partners})).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
}
