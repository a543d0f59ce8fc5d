//! Side effects under one claim (issue 44): two requests on one proposal, started together with a
//! random gap of 0 to 30 ms between them, many times over. Whatever the order, no answer is a 5xx
//! and nothing outside (a subscription or a refund at the payment platform, an envelope at the
//! signature provider) disagrees with the proposal's state: the reconciliation and the read model's
//! check find nothing afterwards. And a request killed between the platform's answer and its
//! record leaves a pending operation that the worker of the next start finishes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::WEBHOOK_SECRET;
use super::subscriptions::{another_paid_sale, shop, shop_sale};
use black_box_tests::{StatusCode, TestApp, cpf_from};
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;

/// How many times each race is run.
pub(super) const RUNS: u32 = 12;

/// Runs both requests, the second started 0 to 30 ms after the first, which goes first chosen
/// at random.
pub(super) async fn together<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let gap = Duration::from_millis(rand::random::<u64>() % 31);
    let a_first: bool = rand::random();
    tokio::join!(
        async {
            if !a_first {
                tokio::time::sleep(gap).await;
            }
            a.await
        },
        async {
            if a_first {
                tokio::time::sleep(gap).await;
            }
            b.await
        }
    )
}

pub(super) async fn answered(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    assert!(!status.is_server_error(), "{status}: {body}");
    (status, body)
}

/// The shop's proposal for the CPF (route 6): its identifier.
async fn shop_proposal(app: &TestApp, shop: &str, cpf: &str, email: &str) -> String {
    let created = app
        .post_json_as("/proposal/create/ecommerce", shop, &shop_sale(cpf, email))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Routes 14 and 15 for the CPF, as the shop's checkout does before route 16.
async fn ready_to_pay(app: &TestApp, shop: &str, cpf: &str) {
    for path in ["/ecommerce/createCustomer", "/ecommerce/createSetupIntent"] {
        let step = app.post_json_as(path, shop, &json!({"cpf": cpf})).await;
        assert!(step.status().is_success(), "{path}");
    }
}

/// `POST /proposal/{identifier}/cancel` at the customer's request, as answered.
async fn cancel(app: &TestApp, token: &str, identifier: &str) -> (StatusCode, Value) {
    answered(
        app.post_json_as(
            &format!("/proposal/{identifier}/cancel"),
            token,
            &json!({"reason": "Cliente desistiu da compra"}),
        )
        .await,
    )
    .await
}

async fn status_of(app: &TestApp, identifier: &str, office: &str) -> String {
    app.proposal_data(identifier, office).await["proposal"]["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The reconciliation of payments and the read model's check find nothing, and every
/// subscription and refund the platform holds is one the service recorded.
pub(super) async fn nothing_drifted(app: &TestApp) {
    let config = TestApp::config(&app.db, &[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]);
    let pool = adapters_postgres::build_pool(&api_actix::app::pool_settings(&config)).unwrap();
    let state = api_actix::app::build_state(&config, pool.clone(), None).unwrap();
    let payments = state.ecommerce.reconcile(false).await.unwrap();
    assert!(!payments.differs(), "{payments:?}");
    let read_model = adapters_postgres::check_read_model(&pool, false).await.unwrap();
    assert!(read_model.drifted.is_empty(), "{read_model:?}");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM sandbox_payment_objects WHERE kind = 'subscription'")
            .await,
        app.count("SELECT count(*) AS n FROM subscriptions WHERE platform_id IS NOT NULL")
            .await,
        "a subscription at the platform that the service does not know"
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM sandbox_payment_objects WHERE kind = 'refund'")
            .await,
        // Refunds the finance team pays (issue 45) are no platform's.
        app.count("SELECT count(*) AS n FROM refunds WHERE meio = 'plataforma'")
            .await,
        "a refund at the platform that the service did not record"
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_operations WHERE state = 'pending'")
            .await,
        0,
        "an operation left pending"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_while_the_shop_subscribes_never_bills_a_cancelled_proposal() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        let cpf = cpf_from(610_000 + run);
        let identifier = shop_proposal(&app, &shop, &cpf, "joao@exemplo.com.br").await;
        ready_to_pay(&app, &shop, &cpf).await;
        let ((subscribed, _), (cancelled, refusal)) = together(
            async {
                answered(
                    app.post_json_as(
                        "/ecommerce/createSubscription",
                        &shop,
                        &json!({"identifier": identifier}),
                    )
                    .await,
                )
                .await
            },
            cancel(&app, &office, &identifier),
        )
        .await;
        let status = status_of(&app, &identifier, &office).await;
        let billed = app
            .count(&format!(
                "SELECT count(*) AS n FROM subscriptions s JOIN proposals p ON p.id = s.proposal_id \
                 WHERE p.identificador = '{identifier}' AND s.platform_id IS NOT NULL"
            ))
            .await;
        match status.as_str() {
            "CANCELADO" => {
                assert_eq!(cancelled, StatusCode::OK);
                assert_ne!(subscribed, StatusCode::CREATED);
                assert_eq!(billed, 0, "a cancelled proposal with a subscription");
            }
            "EM ANÁLISE" => {
                assert_eq!(subscribed, StatusCode::CREATED);
                assert_eq!(cancelled, StatusCode::CONFLICT, "{refusal}");
                assert!(
                    ["cancelamento_nao_permitido", "operacao_em_andamento"]
                        .contains(&refusal["code"].as_str().unwrap()),
                    "{refusal}"
                );
                assert_eq!(billed, 1);
            }
            other => panic!("run {run}: {other} ({subscribed}, {cancelled})"),
        }
        outcomes.push(status);
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

#[tokio::test(flavor = "multi_thread")]
async fn withdrawing_while_the_back_office_refuses_either_refunds_and_cancels_or_changes_nothing() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        let cpf = cpf_from(620_000 + run);
        let (_, identifier, _) = another_paid_sale(&app, &shop, &cpf, "maria@exemplo.com.br").await;
        let ((withdrawn, withdrawal), (refused, _)) = together(
            async {
                answered(
                    app.post_json_as(
                        &format!("/proposal/{identifier}/withdraw"),
                        &shop,
                        &json!({"reason": "Mudei de ideia"}),
                    )
                    .await,
                )
                .await
            },
            async {
                answered(
                    app.client
                        .patch(app.url(&format!("/proposal/{identifier}/status")))
                        .bearer_auth(&office)
                        .json(&json!({"status": "REPROVADO", "reason": "Documentação incompleta"}))
                        .send()
                        .await
                        .unwrap(),
                )
                .await
            },
        )
        .await;
        let data = app.proposal_data(&identifier, &office).await;
        assert_eq!(
            app.count("SELECT count(*) AS n FROM sandbox_payment_objects WHERE kind = 'refund'")
                .await,
            app.count("SELECT count(*) AS n FROM refunds").await,
            "run {run}: a refund at the platform that the service did not record"
        );
        match data["proposal"]["status"].as_str().unwrap() {
            "CANCELADO" => {
                assert_eq!(withdrawn, StatusCode::OK, "{withdrawal}");
                assert_eq!(refused.as_u16() / 100, 4);
                assert_eq!(withdrawal["data"]["refunds"].as_array().unwrap().len(), 1);
                assert_eq!(data["subscription"]["status"], "canceled");
            }
            "REPROVADO" => {
                assert_eq!(refused, StatusCode::OK);
                assert_eq!(withdrawn, StatusCode::CONFLICT, "{withdrawal}");
                let message = withdrawal["message"].as_str().unwrap();
                assert!(
                    withdrawal["code"] == "operacao_em_andamento"
                        || (message.contains("REPROVADO") && !message.contains("(EM ANÁLISE ou APROVADO)")),
                    "the refusal names the state as it is: {message}"
                );
                // Issue 45: a refusal returns the payment and cancels the subscription itself.
                assert_eq!(data["subscription"]["status"], "canceled");
                assert_eq!(data["refunds"][0]["reason"], "RECUSA");
                assert_eq!(data["refunds"][0]["amount"], 3990);
            }
            other => panic!("run {run}: {other}"),
        }
        outcomes.push(data["proposal"]["status"].as_str().unwrap().to_owned());
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

/// Issue 45: after the right of regret, the shop cancels the contract while the back office
/// refuses it. Both return money and cancel the subscription under the proposal's claim: exactly
/// one wins, its refunds are the only ones at the platform and all are recorded, the other answers
/// 4xx naming the state or the operation, and the reconciliation finds nothing.
#[tokio::test(flavor = "multi_thread")]
async fn cancelling_after_the_regret_while_the_back_office_refuses_returns_the_money_once() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut sales = Vec::new();
    for run in 0..RUNS {
        let cpf = cpf_from(630_000 + run);
        sales.push(another_paid_sale(&app, &shop, &cpf, "maria@exemplo.com.br").await.1);
    }
    // Ten days later: past the regret, still in analysis.
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": 10})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    let mut outcomes = Vec::new();
    for (run, identifier) in sales.iter().enumerate() {
        let ((cancelled, cancellation), (refused, refusal)) = together(
            async {
                answered(
                    app.post_json_as(
                        &format!("/proposal/{identifier}/cancel"),
                        &shop,
                        &json!({"reason": "Cliente mudou de ideia"}),
                    )
                    .await,
                )
                .await
            },
            async {
                answered(
                    app.client
                        .patch(app.url(&format!("/proposal/{identifier}/status")))
                        .bearer_auth(&office)
                        .json(&json!({"status": "REPROVADO", "reason": "Documentação incompleta"}))
                        .send()
                        .await
                        .unwrap(),
                )
                .await
            },
        )
        .await;
        let data = app.proposal_data(identifier, &office).await;
        let platform_refunds = data["refunds"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["id"].as_str().unwrap().starts_with("re_"))
            .count();
        assert_eq!(platform_refunds, 1, "run {run}: one refund at the platform: {data}");
        assert_eq!(data["subscription"]["status"], "canceled");
        match data["proposal"]["status"].as_str().unwrap() {
            "CANCELADO" => {
                assert_eq!(cancelled, StatusCode::OK, "{cancellation}");
                assert_eq!(refused.as_u16() / 100, 4, "{refusal}");
                assert!(
                    data["refunds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["reason"] == "CANCELAMENTO")
                );
            }
            "REPROVADO" => {
                assert_eq!(refused, StatusCode::OK, "{refusal}");
                assert_eq!(cancelled, StatusCode::CONFLICT, "{cancellation}");
                assert!(
                    ["cancelamento_nao_permitido", "operacao_em_andamento"]
                        .contains(&cancellation["code"].as_str().unwrap()),
                    "{cancellation}"
                );
                assert!(
                    data["refunds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["reason"] == "RECUSA")
                );
            }
            other => panic!("run {run}: {other}"),
        }
        outcomes.push(data["proposal"]["status"].as_str().unwrap().to_owned());
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

/// Sending for signature while the seller cancels, against a Clicksign double: whenever the
/// envelope is created and the proposal ends cancelled, the envelope was cancelled at the provider;
/// a proposal awaiting signatures has an envelope nobody cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn sending_while_cancelling_leaves_no_open_envelope_on_a_cancelled_proposal() {
    use wiremock::MockServer;
    let clicksign = MockServer::start().await;
    let uri = clicksign.uri();
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", "segredo-do-callback-0123"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        clicksign.reset().await;
        black_box_tests::mount_clicksign_envelope(&clicksign).await;
        black_box_tests::mount_clicksign_signers(&clicksign).await;
        black_box_tests::mount_clicksign_notifications(&clicksign).await;
        // Each run's signers get keys of their own (a party's key is unique in the store).
        wiremock::Mock::given(wiremock::matchers::method("POST"))
            .and(wiremock::matchers::path("/api/v3/envelopes/env-1/signers"))
            .respond_with(move |r: &wiremock::Request| {
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                let id = format!("s-{run}-{}", body["data"]["attributes"]["name"].as_str().unwrap());
                wiremock::ResponseTemplate::new(201).set_body_json(json!({"data": {"id": id, "type": "signers"}}))
            })
            .with_priority(1)
            .mount(&clicksign)
            .await;
        let cpf = cpf_from(630_000 + run);
        let created = app
            .post_json_as("/proposal/create", &partner, &black_box_tests::proposal_body(&cpf))
            .await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let record = created.json::<Value>().await.unwrap()["document"][0].clone();
        let identifier = record["identificador"].as_str().unwrap().to_owned();
        let send = json!({"customerId": record["id_cliente"], "identifier": identifier});
        let ((sent, _), (cancelled, _)) = together(
            async { answered(app.post_json_as("/signer", &partner, &send).await).await },
            cancel(&app, &partner, &identifier),
        )
        .await;
        let requests = clicksign.received_requests().await.unwrap();
        let envelope_created = requests
            .iter()
            .any(|r| r.method.as_str() == "POST" && r.url.path() == "/api/v3/envelopes");
        let envelope_cancelled = requests.iter().any(|r| {
            r.method.as_str() == "PATCH"
                && r.url.path() == "/api/v3/envelopes/env-1"
                && String::from_utf8_lossy(&r.body).contains("canceled")
        });
        let status = status_of(&app, &identifier, &office).await;
        match status.as_str() {
            "CANCELADO" => {
                assert_eq!(cancelled, StatusCode::OK);
                assert_ne!(sent, StatusCode::OK);
                assert!(
                    !envelope_created || envelope_cancelled,
                    "run {run}: an open envelope on a cancelled proposal"
                );
            }
            "AGUARDANDO ASSINATURA" => {
                assert_eq!(sent, StatusCode::OK);
                assert_eq!(cancelled, StatusCode::CONFLICT);
                assert!(envelope_created && !envelope_cancelled, "run {run}");
            }
            other => panic!("run {run}: {other} ({sent}, {cancelled})"),
        }
        outcomes.push(status);
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

/// While an operation is pending on a proposal, another is refused naming it, and so is any move
/// of the back office; once the worker takes it, the operation is finished.
#[tokio::test(flavor = "multi_thread")]
async fn a_pending_operation_holds_off_every_other_move_until_the_worker_finishes_it() {
    let app = TestApp::spawn_with(&[
        ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("OPERATION_RECOVERY_AFTER_MS", "60000"),
    ])
    .await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (_, identifier, _) = another_paid_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    // A withdrawal whose request died before reaching the platform: its claim is all there is.
    app.sql(&format!(
        "INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, reason, started_at) \
         SELECT gen_random_uuid(), id, 'arrependimento', 'loja@demo.com.br', 'Mudei de ideia', now() \
         FROM proposals WHERE identificador = '{identifier}'"
    ))
    .await;
    let refused = app
        .client
        .patch(app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&office)
        .json(&json!({"status": "APROVADO"}))
        .send()
        .await
        .unwrap();
    let refused = black_box_tests::assert_error(refused, StatusCode::CONFLICT, "operacao_em_andamento").await;
    assert!(
        refused["message"].as_str().unwrap().contains("arrependimento"),
        "{refused}"
    );
    let again = app
        .post_json_as(&format!("/proposal/{identifier}/withdraw"), &shop, &json!({}))
        .await;
    black_box_tests::assert_error(again, StatusCode::CONFLICT, "operacao_em_andamento").await;
    assert_eq!(status_of(&app, &identifier, &office).await, "EM ANÁLISE");

    // A later start with a short wait: its worker finishes the withdrawal as asked.
    let app = app
        .restart_with(&[
            ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
            ("OPERATION_RECOVERY_AFTER_MS", "1000"),
        ])
        .await;
    app.sql("UPDATE proposal_operations SET started_at = now() - interval '1 minute'")
        .await;
    let status = wait_for_status(&app, &identifier, &office, "CANCELADO").await;
    assert_eq!(status, "CANCELADO");
    let data = app.proposal_data(&identifier, &office).await;
    assert_eq!(data["subscription"]["status"], "canceled");
    assert_eq!(
        app.count(
            "SELECT count(*) AS n FROM customer_requests WHERE tipo = 'arrependimento' AND motivo = 'Mudei de ideia'"
        )
        .await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_operations WHERE state = 'done' AND attempts = 1")
            .await,
        1
    );
    nothing_drifted(&app).await;
}

/// The service is killed while the payment platform is creating the subscription (Stripe's
/// answer is on its way): the proposal keeps its pending operation. The next start's worker asks
/// the platform again under the same idempotency key, gets the same subscription, and records it
/// with the move to analysis.
#[tokio::test(flavor = "multi_thread")]
async fn a_service_killed_between_the_platforms_answer_and_the_record_is_finished_by_the_worker() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let stripe = MockServer::start().await;
    let base = stripe.uri();
    let settings = |recover_after_ms| {
        [
            ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
            ("STRIPE_SECRET_KEY", "sk_test_1"),
            ("STRIPE_API_BASE", base.as_str()),
            ("OPERATION_RECOVERY_AFTER_MS", recover_after_ms),
        ]
    };
    let app = TestApp::spawn_with(&settings("60000")).await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    black_box_tests::mount_stripe_customer_and_setup_intent(&stripe, Some("pm_real")).await;
    let identifier = shop_proposal(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    ready_to_pay(&app, &shop, "52998224725").await;
    // The platform takes its time to answer: the service dies meanwhile.
    Mock::given(method("POST"))
        .and(path("/v1/subscriptions"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"id": "sub_real", "object": "subscription", "status": "active",
                    "customer": "cus_real", "items": {"data": [{"current_period_end": 1_800_000_000_i64}]},
                    "latest_invoice": {"id": "in_1", "status": "paid"}}))
                .set_delay(Duration::from_millis(1500)),
        )
        .mount(&stripe)
        .await;
    let request = {
        let client = app.client.clone();
        let url = app.url("/ecommerce/createSubscription");
        let (shop, identifier) = (shop.clone(), identifier.clone());
        tokio::spawn(async move {
            client
                .post(url)
                .bearer_auth(shop)
                .json(&json!({"identifier": identifier}))
                .send()
                .await
        })
    };
    // Until the platform has the request, then the kill.
    for _ in 0..100 {
        let asked = stripe
            .received_requests()
            .await
            .unwrap()
            .iter()
            .any(|r| r.url.path() == "/v1/subscriptions");
        if asked {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let app = app.restart_with(&settings("1000")).await;
    assert!(request.await.unwrap().is_err(), "the request died with the service");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_operations WHERE state = 'pending'")
            .await,
        1,
        "the dead request's operation is pending"
    );
    let status = wait_for_status(&app, &identifier, &office, "EM ANÁLISE").await;
    assert_eq!(status, "EM ANÁLISE");
    let data = app.proposal_data(&identifier, &office).await;
    assert_eq!(data["subscription"]["id"], "sub_real");
    let keys: Vec<String> = stripe
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/subscriptions")
        .map(|r| {
            r.headers
                .get("idempotency-key")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(keys.len() >= 2, "{keys:?}");
    assert!(
        !keys[0].is_empty() && keys.iter().all(|k| *k == keys[0]),
        "one idempotency key for the request and the worker: {keys:?}"
    );
    assert_eq!(
        app.count(
            "SELECT count(*) AS n FROM proposal_operations WHERE state = 'done' AND kind = 'assinatura_recorrente'"
        )
        .await,
        1
    );
}

/// Polls route 7 for up to 15 s until the proposal is in `wanted`; answers the last status read.
async fn wait_for_status(app: &TestApp, identifier: &str, office: &str, wanted: &str) -> String {
    let mut status = String::new();
    for _ in 0..150 {
        status = status_of(app, identifier, office).await;
        if status == wanted {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    status
}

/// Both outcomes of a race are legitimate; the runs' mix is printed for whoever reads the log.
pub(super) fn print_outcomes(outcomes: &[String]) {
    let mut counted: Vec<(String, usize)> = Vec::new();
    for outcome in outcomes {
        match counted.iter_mut().find(|(o, _)| o == outcome) {
            Some((_, n)) => *n += 1,
            None => counted.push((outcome.clone(), 1)),
        }
    }
    println!("outcomes: {counted:?}");
}

/// A network retry of a successful withdrawal, cancellation or decision with its
/// `Idempotency-Key` answers the first answer (the protocol, the refunds), not a refusal.
#[tokio::test(flavor = "multi_thread")]
async fn a_retried_withdrawal_cancellation_or_decision_answers_the_first_answer() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let shop = shop(&app).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (_, sold, _) = another_paid_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    let send = |path: String, key: &'static str, body: Value| {
        let request = app.client.post(app.url(&path)).bearer_auth(&shop);
        async move { request.header("idempotency-key", key).json(&body).send().await.unwrap() }
    };
    let withdraw = format!("/proposal/{sold}/withdraw");
    let first = send(
        withdraw.clone(),
        "arrependimento-1",
        json!({"reason": "Mudei de ideia"}),
    )
    .await;
    assert_eq!(first.status(), StatusCode::OK);
    let first: Value = first.json().await.unwrap();
    let again = send(
        withdraw.clone(),
        "arrependimento-1",
        json!({"reason": "Mudei de ideia"}),
    )
    .await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["data"]["protocol"], first["data"]["protocol"]);
    assert_eq!(again["data"]["refunds"], first["data"]["refunds"]);
    assert_eq!(again["data"]["refunds"].as_array().unwrap().len(), 1);
    // Without the key, the same request is judged again: the sale is over.
    let judged = send(withdraw, "outra-chave", json!({"reason": "Mudei de ideia"})).await;
    black_box_tests::assert_error(judged, StatusCode::CONFLICT, "arrependimento_nao_permitido").await;
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 1);

    let open = shop_proposal(&app, &shop, "39053344705", "maria@exemplo.com.br").await;
    let cancelling = format!("/proposal/{open}/cancel");
    let body = json!({"reason": "Cliente desistiu da compra"});
    let first: Value = send(cancelling.clone(), "cancelamento-1", body.clone())
        .await
        .json()
        .await
        .unwrap();
    let again = send(cancelling, "cancelamento-1", body).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(
        again.json::<Value>().await.unwrap()["data"]["protocol"],
        first["data"]["protocol"]
    );

    // The back office's decision: its PATCH takes a key too.
    let (_, decided, _) = another_paid_sale(&app, &shop, "11144477735", "ana@exemplo.com.br").await;
    let decide = || {
        app.client
            .patch(app.url(&format!("/proposal/{decided}/status")))
            .bearer_auth(&office)
            .header("idempotency-key", "decisao-1")
            .json(&json!({"status": "APROVADO", "reason": "ok"}))
            .send()
    };
    let first: Value = decide().await.unwrap().json().await.unwrap();
    let again = decide().await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first);
}

/// Every operation that takes a key says so in the contract and refuses a malformed key first.
#[tokio::test(flavor = "multi_thread")]
async fn every_idempotent_operation_takes_the_key_and_the_contract_says_so() {
    let app = TestApp::spawn().await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for (path, method) in api_actix::routes::docs::IDEMPOTENT_OPERATIONS {
        let operation = &doc["paths"][path][method];
        let parameters = operation["parameters"].as_array().unwrap();
        assert!(
            parameters
                .iter()
                .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header"),
            "{method} {path}"
        );
        assert!(
            operation["responses"]["409"].is_object() && operation["responses"]["422"].is_object(),
            "{method} {path}"
        );
        let concrete = path
            .replace("{identificador}", "qualquer")
            .replace("{uuid}", "00000000-0000-4000-8000-000000000000")
            .replace("{id}", "1");
        let request = match method {
            "patch" => app.client.patch(app.url(&concrete)),
            _ => app.client.post(app.url(&concrete)),
        };
        let answer = black_box_tests::assert_error(
            request
                .bearer_auth(&office)
                .header("idempotency-key", "com espaço")
                .json(&json!({}))
                .send()
                .await
                .unwrap(),
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(answer["errors"][0]["field"], "Idempotency-Key", "{method} {path}");
    }
}

/// A refund made at the platform outside any withdrawal (a dashboard, a lost record) is drift:
/// the reconciliation reports it (and `--dry-run` exits 1); one recorded by a withdrawal is not.
#[tokio::test(flavor = "multi_thread")]
async fn the_reconciliation_reports_a_refund_the_service_never_recorded() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let shop = shop(&app).await;
    let (_, withdrawn, _) = another_paid_sale(&app, &shop, "52998224725", "joao@exemplo.com.br").await;
    let (_, refunded_outside, subscription) =
        another_paid_sale(&app, &shop, "39053344705", "maria@exemplo.com.br").await;
    let response = app
        .post_json_as(&format!("/proposal/{withdrawn}/withdraw"), &shop, &json!({}))
        .await;
    assert_eq!(response.status(), StatusCode::OK);

    let config = TestApp::config(&app.db, &[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]);
    let pool = adapters_postgres::build_pool(&api_actix::app::pool_settings(&config)).unwrap();
    let state = api_actix::app::build_state(&config, pool, None).unwrap();
    let clean = state.ecommerce.reconcile(false).await.unwrap();
    assert!(!clean.differs(), "the withdrawal's refund is recorded: {clean:?}");

    // Someone refunds the other sale's invoice at the platform, outside the service.
    let gateway = &state.ecommerce.gateway;
    let invoice = gateway.paid_invoices(&subscription).await.unwrap().remove(0);
    let outside = gateway
        .refund(&invoice, invoice.amount, "feito-no-painel")
        .await
        .unwrap();
    let report = state.ecommerce.reconcile(false).await.unwrap();
    assert!(report.drifted.is_empty(), "{report:?}");
    assert_eq!(report.unrecorded_refunds.len(), 1, "{report:?}");
    let unrecorded = &report.unrecorded_refunds[0];
    assert_eq!(
        (
            unrecorded.refund.id.as_str(),
            unrecorded.subscription.as_str(),
            unrecorded.proposal_identifier.as_str()
        ),
        (outside.id.as_str(), subscription.as_str(), refunded_outside.as_str())
    );
    assert!(report.differs());
}

/// Route 3 for the proposal's customer with a corrected name, as the partner sends it.
fn corrected(cpf: &str, run: u32) -> Value {
    let mut body = black_box_tests::customer_body(cpf);
    body["cliente"]["nome_completo"] = json!(format!("Maria Corrigida {} da Silva", ["Um", "Dois"][run as usize % 2]));
    body
}

/// The seller corrects the customer while the proposal is being cancelled, many times: the
/// proposal's document (route 7) always says what the tables say, and a cancelled proposal's
/// copy is whatever it was when it left `NOVO`.
#[tokio::test(flavor = "multi_thread")]
async fn correcting_the_customer_while_cancelling_never_leaves_route_7_behind_the_tables() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        let cpf = cpf_from(640_000 + run);
        let identifier = app.create_proposal(&partner, &cpf).await;
        let ((registered, _), (cancelled, _)) = together(
            async {
                answered(
                    app.post_json_as("/customer/create", &partner, &corrected(&cpf, run))
                        .await,
                )
                .await
            },
            cancel(&app, &partner, &identifier),
        )
        .await;
        assert!(registered.is_success(), "run {run}: {registered}");
        assert_eq!(cancelled, StatusCode::OK, "run {run}");
        let shown = app.proposal_data(&identifier, &office).await;
        assert_eq!(shown["proposal"]["status"], "CANCELADO", "run {run}");
        let stored_name = app
            .count(&format!(
                "SELECT count(*) AS n FROM proposal_customers pc JOIN proposals p ON p.id = pc.id_proposta \
                 WHERE p.identificador = '{identifier}' AND pc.nome_completo = '{}'",
                shown["customer"]["fullName"].as_str().unwrap()
            ))
            .await;
        assert_eq!(stored_name, 1, "run {run}: route 7's name is the copy's");
        outcomes.push(shown["customer"]["fullName"].as_str().unwrap().to_owned());
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

/// The seller corrects the customer while the proposal is being sent, many times: the document
/// sealed for signature names the customer as route 7 shows them, whichever came first.
#[tokio::test(flavor = "multi_thread")]
async fn correcting_the_customer_while_sending_seals_the_name_route_7_shows() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut outcomes = Vec::new();
    for run in 0..RUNS {
        let cpf = cpf_from(650_000 + run);
        let created = app
            .post_json_as("/proposal/create", &partner, &black_box_tests::proposal_body(&cpf))
            .await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let record = created.json::<Value>().await.unwrap()["document"][0].clone();
        let identifier = record["identificador"].as_str().unwrap().to_owned();
        let send = json!({"customerId": record["id_cliente"], "identifier": identifier});
        let ((registered, _), (sent, _)) = together(
            async {
                answered(
                    app.post_json_as("/customer/create", &partner, &corrected(&cpf, run))
                        .await,
                )
                .await
            },
            async { answered(app.post_json_as("/signer", &partner, &send).await).await },
        )
        .await;
        assert!(registered.is_success(), "run {run}: {registered}");
        assert_eq!(sent, StatusCode::OK, "run {run}");
        let shown = app.proposal_data(&identifier, &office).await;
        assert_eq!(shown["proposal"]["status"], "AGUARDANDO ASSINATURA", "run {run}");
        let name = shown["customer"]["fullName"].as_str().unwrap().to_owned();
        let pdf = app
            .get(&format!("/proposal/{identifier}/document"), Some(&office))
            .await
            .bytes()
            .await
            .unwrap();
        let text = black_box_tests::pdf_text(&pdf);
        assert!(text.contains(&name), "run {run}: the sealed document names {name}");
        outcomes.push(
            if name.contains("Corrigida") {
                "corrigido antes do envio"
            } else {
                "enviado antes"
            }
            .to_owned(),
        );
    }
    nothing_drifted(&app).await;
    print_outcomes(&outcomes);
}

/// A party's signature arriving while a cancellation holds the proposal is not recorded (503: the
/// provider retries), so the cancellation cannot be undone by it half-way; once the operation has
/// ended, the same signature is taken.
#[tokio::test(flavor = "multi_thread")]
async fn a_signature_arriving_while_an_operation_holds_the_proposal_waits_for_it() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = app.sent_proposal(&partner, "52998224725").await;
    let key = app.proposal_data(&identifier, &office).await["sign"]["clientKey"]
        .as_str()
        .unwrap()
        .to_owned();
    app.sql(&format!(
        "INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, reason, started_at) \
         SELECT gen_random_uuid(), id, 'cancelamento', 'rep@demo.com.br', 'Cliente desistiu', now() \
         FROM proposals WHERE identificador = '{identifier}'"
    ))
    .await;
    let sign = || {
        app.client
            .post(app.url(&format!("/sandbox/sign/{key}")))
            .header("accept", "application/json")
            .send()
    };
    let held = sign().await.unwrap();
    assert_eq!(held.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM signature_parties WHERE status = 'ASSINADO'")
            .await,
        0,
        "nothing of the signature recorded"
    );
    app.sql("UPDATE proposal_operations SET state = 'failed', finished_at = now()")
        .await;
    assert_eq!(sign().await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM signature_parties WHERE status = 'ASSINADO'")
            .await,
        1
    );
}

/// A send that died after Clicksign created its envelope, before the key was saved: the worker
/// looks the proposal's envelope up by its name and resumes it, creating no second envelope.
#[tokio::test(flavor = "multi_thread")]
async fn the_worker_resumes_the_envelope_a_dead_send_left_instead_of_creating_another() {
    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let clicksign = MockServer::start().await;
    let uri = clicksign.uri();
    let app = TestApp::spawn_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", "segredo-do-callback-0123"),
        ("OPERATION_RECOVERY_AFTER_MS", "1000"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let identifier = app.create_proposal(&partner, "52998224725").await;
    // What the dead attempt left at the provider: the proposal's envelope, open, with its document
    // (and another proposal's, whose name only contains this one's).
    Mock::given(method("GET"))
        .and(path("/api/v3/envelopes"))
        .and(query_param("filter[name]", format!("Proposta {identifier}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [
            {"id": "env-outro", "type": "envelopes", "attributes": {"status": "running", "name": format!("Proposta {identifier}-2")}},
            {"id": "env-1", "type": "envelopes", "attributes": {"status": "running", "name": format!("Proposta {identifier}")}}
        ]})))
        .mount(&clicksign)
        .await;
    app.sql(&format!(
        "INSERT INTO proposal_operations (id, proposal_id, kind, requested_by, started_at) \
         SELECT gen_random_uuid(), id, 'envio', 'rep@demo.com.br', now() - interval '1 minute' \
         FROM proposals WHERE identificador = '{identifier}'"
    ))
    .await;
    let status = wait_for_status(&app, &identifier, &office, "AGUARDANDO ASSINATURA").await;
    assert_eq!(status, "AGUARDANDO ASSINATURA");
    let requests = clicksign.received_requests().await.unwrap();
    assert!(
        !requests
            .iter()
            .any(|r| r.method.as_str() == "POST" && r.url.path() == "/api/v3/envelopes"),
        "no second envelope"
    );
    assert!(
        requests
            .iter()
            .any(|r| r.method.as_str() == "POST" && r.url.path() == "/api/v3/envelopes/env-1/notifications"),
        "the customer notified on the envelope found"
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM signatures WHERE document_key = 'env-1'")
            .await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_operations WHERE state = 'done' AND kind = 'envio'")
            .await,
        1
    );
}
