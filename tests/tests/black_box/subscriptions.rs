//! Subscriptions that stay true: the platform's state, read back after each of its events
//! (which arrive in any order), in route 7's `data.subscription`, the history and partners'
//! events; the sandbox platform failing and paying a charge on demand; the reconciliation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::{WEBHOOK_SECRET, stripe_signature};
use black_box_tests::{StatusCode, TestApp, assert_timestamp};
use serde_json::{Value, json};

/// The catalog and the shop's token.
pub(super) async fn shop(app: &TestApp) -> String {
    app.seed_catalog().await;
    app.token_for("loja@demo.com.br", "ECOMMERCE", "").await
}

/// An e-commerce proposal of the CPF with its active subscription (through routes 14 to 16):
/// (shop token, identifier, subscription id). The first sale of the app seeds the catalog and the
/// shop's user.
pub(super) async fn paid_sale(app: &TestApp, cpf: &str, email: &str) -> (String, String, String) {
    let shop = shop(app).await;
    another_paid_sale(app, &shop, cpf, email).await
}

/// [`paid_sale`] once the catalog and the shop are there.
pub(super) async fn another_paid_sale(app: &TestApp, shop: &str, cpf: &str, email: &str) -> (String, String, String) {
    let shop = shop.to_owned();
    let created = app
        .post_json_as("/proposal/create/ecommerce", &shop, &shop_sale(cpf, email))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let identifier = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in ["/ecommerce/createCustomer", "/ecommerce/createSetupIntent"] {
        let response = app.post_json_as(path, &shop, &json!({"cpf": cpf})).await;
        assert!(response.status().is_success(), "{path}");
    }
    let subscribed = app
        .post_json_as(
            "/ecommerce/createSubscription",
            &shop,
            &json!({"identifier": identifier}),
        )
        .await;
    assert_eq!(subscribed.status(), StatusCode::CREATED);
    let subscription = subscribed.json::<Value>().await.unwrap()["document"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (shop, identifier, subscription)
}

pub(super) fn shop_sale(cpf: &str, email: &str) -> Value {
    json!({
        "billingCode": 5004, "productCode": 103,
        "customer": {"fullName": "João Souza", "cpf": cpf, "birthDate": "1985-03-10", "gender": "Masculino", "email": email},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro", "city": "Rio de Janeiro", "state": "RJ"}
    })
}

/// The sandbox platform fails or pays the subscription's charge (its development page's buttons).
async fn sandbox_charge(app: &TestApp, subscription: &str, action: &str) -> Value {
    let response = app
        .client
        .post(app.url(&format!("/sandbox/payments/{subscription}/{action}")))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{action}");
    response.json().await.unwrap()
}

async fn platform_event(app: &TestApp, body: &Value) -> reqwest::Response {
    let body = body.to_string();
    app.client
        .post(app.url("/callbacks/payment"))
        .header(
            "stripe-signature",
            stripe_signature(&body, chrono::Utc::now().timestamp()),
        )
        .body(body)
        .send()
        .await
        .unwrap()
}

async fn payment_history(app: &TestApp, identifier: &str, token: &str) -> Vec<Value> {
    let history: Value = app
        .get(&format!("/proposal/{identifier}/history"), Some(token))
        .await
        .json()
        .await
        .unwrap();
    history["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "pagamento")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_charge_then_a_paid_one_show_in_route_7_the_history_and_the_sandbox_page() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;

    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["id"], subscription.as_str());
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");
    assert_timestamp(&data["subscription"]["currentPeriodEnd"]);

    let failed = sandbox_charge(&app, &subscription, "fail").await;
    assert_eq!(
        failed["data"]["events"],
        json!(["invoice.payment_failed", "customer.subscription.updated"])
    );
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "past_due");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "open");

    sandbox_charge(&app, &subscription, "pay").await;
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");

    // Each change once in the history: created, failed (both at once), paid again.
    let changes: Vec<Value> = payment_history(&app, &identifier, &shop)
        .await
        .iter()
        .map(|e| e["changes"].clone())
        .collect();
    assert_eq!(
        changes[2..],
        [
            json!({"assinatura_pagamento": {"from": "active", "to": "past_due"}, "fatura_pagamento": {"from": "paid", "to": "open"}}),
            json!({"assinatura_pagamento": {"from": "past_due", "to": "active"}, "fatura_pagamento": {"from": "open", "to": "paid"}}),
        ]
    );
    // A subscription the sandbox does not know is the platform's refusal, an unknown action none.
    let unknown = app
        .client
        .post(app.url("/sandbox/payments/sub_inexistente/fail"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    black_box_tests::assert_error(unknown, StatusCode::BAD_REQUEST, "pagamento_invalido").await;
    let action = app
        .client
        .post(app.url(&format!("/sandbox/payments/{subscription}/reembolsar")))
        .send()
        .await
        .unwrap();
    assert_eq!(action.status(), StatusCode::NOT_FOUND);
    // The development page lists the subscription with its buttons.
    let page = app.get("/sandbox/payments", None).await.text().await.unwrap();
    assert!(
        page.contains(&subscription) && page.contains("Recusar próxima cobrança"),
        "{page}"
    );
    // Partners and the shop hear each state: active, past_due, active.
    assert_eq!(
        app.count("SELECT last_sequence::bigint AS n FROM proposal_event_sequences WHERE kind = 'PAGAMENTO_ALTERADO'")
            .await,
        3
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_old_event_arriving_last_changes_nothing_the_platform_does_not_say() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    sandbox_charge(&app, &subscription, "fail").await;
    sandbox_charge(&app, &subscription, "pay").await;

    // The failure's event delivered again, late, under another id (as a retry would be): the
    // service reads the subscription from the platform, which says it is paid.
    let late = json!({"id": "evt_falha_atrasada", "type": "invoice.payment_failed", "created": 1,
        "data": {"object": {"id": "in_antiga", "status": "open",
            "parent": {"subscription_details": {"subscription": subscription}}}}});
    let response = platform_event(&app, &late).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.json::<Value>().await.unwrap()["message"], "Evento registrado.");
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");
    assert_eq!(
        payment_history(&app, &identifier, &shop).await.len(),
        4,
        "nothing new to record"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn against_stripe_events_out_of_order_end_in_what_the_platform_answers() {
    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let stripe = MockServer::start().await;
    let base = stripe.uri();
    let app = TestApp::spawn_with(&[
        ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("STRIPE_SECRET_KEY", "sk_test_1"),
        ("STRIPE_API_BASE", &base),
    ])
    .await;
    let period_end = 1_800_000_000_i64;
    let platform = |status: &str, invoice: &str| {
        json!({"id": "sub_real", "object": "subscription", "status": status, "customer": "cus_real",
            "items": {"data": [{"current_period_end": period_end}]},
            "latest_invoice": {"id": "in_2", "status": invoice}})
    };
    black_box_tests::mount_stripe_customer_and_setup_intent(&stripe, Some("pm_real")).await;
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions"))
        .respond_with(ResponseTemplate::new(200).set_body_json({
            let mut created = platform("active", "paid");
            created["latest_invoice"] = json!("in_1");
            created
        }))
        .mount(&stripe)
        .await;
    // What is true at the platform now: the second charge failed, then was paid.
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_real"))
        .and(query_param("expand[]", "latest_invoice"))
        .respond_with(ResponseTemplate::new(200).set_body_json(platform("active", "paid")))
        .mount(&stripe)
        .await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    assert_eq!(subscription, "sub_real");

    let invoice = |id: &str, kind: &str| {
        json!({"id": id, "type": kind, "data": {"object": {"id": "in_2",
            "parent": {"subscription_details": {"subscription": "sub_real"}}}}})
    };
    // The paid event first, the failure's last: the order the platform does not promise.
    for event in [
        invoice("evt_pago", "invoice.paid"),
        invoice("evt_falhou", "invoice.payment_failed"),
    ] {
        assert_eq!(platform_event(&app, &event).await.status(), StatusCode::OK);
    }
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");
    assert_eq!(
        data["subscription"]["currentPeriodEnd"],
        chrono::DateTime::from_timestamp(period_end, 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    );
    let reads = stripe
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.method.as_str() == "GET")
        .count();
    assert_eq!(reads, 2, "the subscription read once per event");

    // A platform that cannot be read leaves the event unrecorded: its retry applies it.
    stripe.reset().await;
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_real"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&stripe)
        .await;
    let retried = invoice("evt_depois", "invoice.payment_failed");
    assert_eq!(
        platform_event(&app, &retried).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM payment_events WHERE event_id = 'evt_depois'")
            .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reconciliation_finds_a_planted_drift_and_mends_it_once() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    // Drift: an event this service never received (a lost delivery), planted in the store.
    app.sql(&format!(
        "UPDATE subscriptions SET status = 'canceled', latest_invoice_status = 'open' WHERE platform_id = '{subscription}'"
    ))
    .await;
    let config = TestApp::config(&app.db, &[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]);
    let pool = adapters_postgres::build_pool(&api_actix::app::pool_settings(&config)).unwrap();
    let state = api_actix::app::build_state(&config, pool, None).unwrap();

    let checked = state.ecommerce.reconcile(false).await.unwrap();
    assert_eq!((checked.checked, checked.drifted.len(), checked.mended), (1, 1, 0));
    assert_eq!(checked.drifted[0].stored.status, "canceled");
    assert_eq!(checked.drifted[0].platform.as_ref().unwrap().status, "active");
    assert_eq!(
        app.proposal_data(&identifier, &shop).await["subscription"]["status"],
        "canceled",
        "a dry run changes nothing"
    );

    let mended = state.ecommerce.reconcile(true).await.unwrap();
    assert_eq!((mended.drifted.len(), mended.mended), (1, 1));
    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["subscription"]["status"], "active");
    assert_eq!(data["subscription"]["latestInvoiceStatus"], "paid");
    let again = state.ecommerce.reconcile(false).await.unwrap();
    assert!(again.drifted.is_empty(), "{again:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_without_a_subscription_answers_null() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let identifier = app.create_proposal(&partner, "52998224725").await;
    assert_eq!(
        app.proposal_data(&identifier, &partner).await["subscription"],
        Value::Null
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_testers_event_delivered_again_takes_neither_the_service_nor_the_sandbox_back() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let announced = |id: &str, status: &str| {
        json!({"id": id, "type": "customer.subscription.updated",
            "data": {"object": {"id": subscription, "status": status}}})
    };
    for (event, status) in [("evt_atraso", "past_due"), ("evt_em_dia", "active")] {
        assert_eq!(
            platform_event(&app, &announced(event, status)).await.status(),
            StatusCode::OK
        );
        assert_eq!(
            app.proposal_data(&identifier, &shop).await["subscription"]["status"],
            status
        );
    }
    let again = platform_event(&app, &announced("evt_atraso", "past_due")).await;
    assert_eq!(again.json::<Value>().await.unwrap()["message"], "Evento já registrado.");
    assert_eq!(
        app.proposal_data(&identifier, &shop).await["subscription"]["status"],
        "active"
    );
    // The sandbox platform agrees: nothing to reconcile.
    let config = TestApp::config(&app.db, &[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]);
    let pool = adapters_postgres::build_pool(&api_actix::app::pool_settings(&config)).unwrap();
    let state = api_actix::app::build_state(&config, pool, None).unwrap();
    let report = state.ecommerce.reconcile(false).await.unwrap();
    assert!(report.drifted.is_empty(), "{report:?}");
}
