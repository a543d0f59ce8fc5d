//! The Stripe client against a local mock server playing Stripe's documented answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_payment::stripe::STRIPE_VERSION;
use adapters_payment::{StripeGateway, StripeSettings};
use domain::ecommerce::{PaymentError, PaymentGateway, SubscriptionRequest};
use serde_json::json;
use std::time::Duration;
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn gateway(server: &MockServer) -> StripeGateway {
    let mut settings = StripeSettings::new(&server.uri(), "sk_test_123", b"whsec");
    settings.timeout = Duration::from_millis(300);
    settings.backoff = vec![
        Duration::from_millis(10),
        Duration::from_millis(20),
        Duration::from_millis(40),
    ];
    StripeGateway::new(settings).unwrap()
}

fn request() -> SubscriptionRequest {
    SubscriptionRequest {
        platform_customer: "cus_1".into(),
        price_id: "price_1".into(),
        payment_method: "pm_1".into(),
        idempotency_key: "subscription-1-pm_1".into(),
        proposal_identifier: "p-1".into(),
        hold_until: None,
    }
}

fn subscription() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"id": "sub_1", "object": "subscription", "status": "active", "currency": "brl", "unmodelled": {"kept": true}}))
}

#[tokio::test]
async fn a_subscription_is_created_form_encoded_with_version_key_and_idempotency_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions"))
        .and(header("authorization", "Bearer sk_test_123"))
        .and(header("stripe-version", STRIPE_VERSION))
        .and(header("idempotency-key", "subscription-1-pm_1"))
        .and(header("content-type", "application/x-www-form-urlencoded"))
        .and(body_string_contains("items%5B0%5D%5Bprice%5D=price_1"))
        .and(body_string_contains("payment_behavior=error_if_incomplete"))
        .respond_with(subscription())
        .expect(1)
        .mount(&server)
        .await;
    let created = gateway(&server).create_subscription(&request()).await.unwrap();
    assert_eq!((created.id.as_str(), created.status.as_str()), ("sub_1", "active"));
    assert_eq!(
        created.object["unmodelled"]["kept"], true,
        "members not modelled are passed through"
    );
}

#[tokio::test]
async fn a_subscription_collected_at_acceptance_is_created_as_a_trial_and_its_hold_ended_with_trial_end_now() {
    let server = MockServer::start().await;
    let until = chrono::DateTime::from_timestamp(1_830_000_000, 0).unwrap();
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions"))
        .and(body_string_contains("trial_end=1830000000"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"id": "sub_1", "object": "subscription", "status": "trialing", "trial_end": 1_830_000_000}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    let held = gateway(&server)
        .create_subscription(&SubscriptionRequest {
            hold_until: Some(until),
            ..request()
        })
        .await
        .unwrap();
    assert_eq!(held.status, "trialing");

    // Ending the hold reads the subscription first: one still held is updated with
    // `trial_end=now` under the collection's key; one already charged is answered as it is.
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"id": "sub_1", "object": "subscription", "status": "trialing"})),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions/sub_1"))
        .and(header("idempotency-key", "collect-at-acceptance-1"))
        .and(body_string_contains("trial_end=now"))
        .and(body_string_contains("payment_behavior=allow_incomplete"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"id": "sub_1", "object": "subscription", "status": "active",
                   "latest_invoice": {"id": "in_1", "status": "paid", "amount_paid": 1990,
                       "payments": {"data": [{"status": "paid", "payment": {"payment_intent": "pi_1"}}]}}}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    let charged = gateway(&server)
        .end_hold("sub_1", "collect-at-acceptance-1")
        .await
        .unwrap();
    assert_eq!(charged.status, "active");
    assert_eq!(charged.latest_paid_invoice.map(|i| i.amount), Some(1990));
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_1"))
        .respond_with(subscription())
        .mount(&server)
        .await;
    let again = gateway(&server)
        .end_hold("sub_1", "collect-at-acceptance-1")
        .await
        .unwrap();
    assert_eq!(again.status, "active", "answered as it is, with no second update");
}

#[tokio::test]
async fn a_declined_card_is_a_decline_and_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(402).set_body_json(
            json!({"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(
        gateway(&server).create_subscription(&request()).await,
        Err(PaymentError::Declined("Your card was declined.".into()))
    );
}

#[tokio::test]
async fn an_invalid_request_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400).set_body_json(
                json!({"error": {"type": "invalid_request_error", "message": "No such price: 'price_1'"}}),
            ),
        )
        .expect(1)
        .mount(&server)
        .await;
    assert_eq!(
        gateway(&server).create_subscription(&request()).await,
        Err(PaymentError::Invalid("No such price: 'price_1'".into()))
    );
}

#[tokio::test]
async fn a_429_then_success_and_a_500_then_success_reuse_the_same_idempotency_key() {
    for failure in [429, 500] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(failure))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(subscription())
            .mount(&server)
            .await;
        assert!(
            gateway(&server).create_subscription(&request()).await.is_ok(),
            "{failure}"
        );
        let keys: Vec<String> = server
            .received_requests()
            .await
            .unwrap()
            .iter()
            .map(|r| r.headers.get("idempotency-key").unwrap().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(keys, ["subscription-1-pm_1", "subscription-1-pm_1"]);
    }
}

#[tokio::test]
async fn should_retry_true_retries_even_a_4xx_and_exhausted_retries_report_the_outage() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(409).insert_header("stripe-should-retry", "true"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(subscription())
        .mount(&server)
        .await;
    assert!(gateway(&server).create_subscription(&request()).await.is_ok());

    let down = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&down)
        .await;
    assert!(matches!(
        gateway(&down).create_subscription(&request()).await,
        Err(PaymentError::Unavailable(_))
    ));
    assert_eq!(
        down.received_requests().await.unwrap().len(),
        4,
        "the first try and three retries"
    );
}

#[tokio::test]
async fn a_slow_answer_past_the_timeout_is_a_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(subscription().set_delay(Duration::from_secs(2)))
        .mount(&server)
        .await;
    assert_eq!(
        gateway(&server).create_subscription(&request()).await,
        Err(PaymentError::Timeout)
    );
}

#[tokio::test]
async fn customers_and_setup_intents_are_read_from_stripes_answers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/customers"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "cus_9"})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/setup_intents"))
        .and(body_string_contains("usage=off_session"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "seti_1", "client_secret": "seti_1_secret_x", "status": "requires_payment_method", "payment_method": null})))
        .mount(&server)
        .await;
    let stripe = gateway(&server);
    let customer = domain::ecommerce::EcommerceCustomer {
        id: 9,
        cpf: "52998224725".into(),
        full_name: "João Souza".into(),
        email: Some("joao@exemplo.com.br".into()),
        cell_phone: Some("21998765432".into()),
        platform_id: None,
        payment_method: None,
    };
    assert_eq!(
        stripe.ensure_customer(&customer, "customer-9").await,
        Ok("cus_9".into())
    );
    let intent = stripe.create_setup_intent("cus_9", "k").await.unwrap();
    assert_eq!(
        (intent.id.as_str(), intent.status.as_str(), intent.payment_method),
        ("seti_1", "requires_payment_method", None)
    );
}

#[tokio::test]
async fn a_customer_is_redacted_by_emptying_its_personal_fields_and_metadata() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/customers/cus_9"))
        .and(header("idempotency-key", "redact-cus_9"))
        .and(body_string_contains("name=&"))
        .and(body_string_contains("email=&"))
        .and(body_string_contains("phone=&"))
        .and(body_string_contains("description=&"))
        .and(body_string_contains("metadata="))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"id": "cus_9", "object": "customer", "name": null})),
        )
        .expect(1)
        .mount(&server)
        .await;
    gateway(&server).redact_customer("cus_9").await.unwrap();

    let missing = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(404).set_body_json(
            json!({"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "No such customer"}}),
        ))
        .mount(&missing)
        .await;
    assert!(matches!(
        gateway(&missing).redact_customer("cus_x").await,
        Err(PaymentError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_subscription_is_read_with_its_latest_invoice_and_an_unknown_one_is_none() {
    use wiremock::matchers::query_param;
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_1"))
        .and(query_param("expand[]", "latest_invoice"))
        .and(header("stripe-version", STRIPE_VERSION))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "sub_1", "status": "past_due",
            "items": {"data": [{"current_period_end": 1_800_000_000}]}, "latest_invoice": {"id": "in_1", "status": "open"}})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_x"))
        .respond_with(
            ResponseTemplate::new(404).set_body_json(
                json!({"error": {"code": "resource_missing", "message": "No such subscription: 'sub_x'"}}),
            ),
        )
        .mount(&server)
        .await;
    let gateway = gateway(&server);
    let read = gateway.subscription("sub_1").await.unwrap().unwrap();
    assert_eq!(read.status, "past_due");
    assert_eq!(read.latest_invoice_status.as_deref(), Some("open"));
    assert_eq!(read.current_period_end.unwrap().timestamp(), 1_800_000_000);
    assert_eq!(gateway.subscription("sub_x").await.unwrap(), None);
    assert_eq!(
        gateway.subscription("../v1/customers/cus_1").await.unwrap(),
        None,
        "an id from an event's body never becomes another path"
    );
}

#[tokio::test]
async fn a_withdrawal_refunds_each_paid_invoice_by_its_payment_intent_and_cancels_once() {
    use domain::ecommerce::PaidInvoice;
    use wiremock::matchers::query_param;
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/invoices"))
        .and(query_param("subscription", "sub_1"))
        .and(query_param("status", "paid"))
        .and(query_param("expand[]", "data.payments"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [
            {"id": "in_1", "amount_paid": 3990, "payments": {"data": [{"status": "paid", "payment": {"type": "payment_intent", "payment_intent": "pi_1"}}]}}
        ]})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/refunds"))
        .and(header("idempotency-key", "withdrawal-1-in_1"))
        .and(body_string_contains("payment_intent=pi_1"))
        .and(body_string_contains("reason=requested_by_customer"))
        .and(body_string_contains("amount=3990"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"id": "re_1", "amount": 3990, "status": "succeeded"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/v1/subscriptions/sub_1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "sub_1", "status": "canceled"})))
        .expect(1)
        .mount(&server)
        .await;
    let gateway = gateway(&server);
    let paid = gateway.paid_invoices("sub_1").await.unwrap();
    assert_eq!(
        paid,
        [PaidInvoice {
            invoice_id: "in_1".into(),
            amount: 3990,
            payment_intent: "pi_1".into(),
            paid_at: None,
            period: None,
        }]
    );
    let refund = gateway.refund(&paid[0], 3990, "withdrawal-1-in_1").await.unwrap();
    assert_eq!(
        (refund.id.as_str(), refund.amount, refund.status.as_str()),
        ("re_1", 3990, "succeeded")
    );
    assert_eq!(gateway.cancel_subscription("sub_1").await.unwrap().status, "canceled");
}

#[tokio::test]
async fn a_refund_the_platform_fails_or_refuses_is_a_decline_naming_why() {
    use domain::ecommerce::PaidInvoice;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/refunds"))
        .and(header("idempotency-key", "k-failed"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"id": "re_2", "amount": 100, "status": "failed", "failure_reason": "expired_or_canceled_card"}),
        ))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/refunds"))
        .and(header("idempotency-key", "k-refused"))
        .respond_with(
            ResponseTemplate::new(402).set_body_json(json!({"error": {"message": "Charge ch_1 has been disputed."}})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let invoice = PaidInvoice {
        invoice_id: "in_1".into(),
        amount: 100,
        payment_intent: "pi_1".into(),
        paid_at: None,
        period: None,
    };
    let gateway = gateway(&server);
    match gateway.refund(&invoice, 100, "k-failed").await {
        Err(PaymentError::Declined(why)) => assert!(why.contains("expired_or_canceled_card"), "{why}"),
        other => panic!("{other:?}"),
    }
    match gateway.refund(&invoice, 100, "k-refused").await {
        Err(PaymentError::Declined(why)) => assert!(why.contains("disputed"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn cancelling_a_subscription_cancelled_already_answers_it_as_it_is() {
    let server = MockServer::start().await;
    Mock::given(method("DELETE"))
        .and(path("/v1/subscriptions/sub_1"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "This subscription is already canceled."}})),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/subscriptions/sub_1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "sub_1", "status": "canceled"})))
        .mount(&server)
        .await;
    assert_eq!(
        gateway(&server).cancel_subscription("sub_1").await.unwrap().status,
        "canceled"
    );
}
