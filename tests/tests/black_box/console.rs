//! The back office's console in headless Chromium: sign in, filter the proposals, open one,
//! approve it and see the entry in its timeline; retry a failed webhook delivery. With
//! `CONSOLE_SCREENSHOTS=<folder>` the pages are also photographed there
//! (`scripts/console-screenshots.sh` writes `docs/console/`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::browser::{self, start_browser};
use black_box_tests::{StatusCode, TestApp, proposal_body};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

pub(crate) const PARTNER: &str = "11222333000181";
pub(crate) const OFFICE_EMAIL: &str = "bo@demo.com.br";
const OFFICE_PASSWORD: &str = "Vendas#2026";

/// Waits until `check` holds on the page's text of `selector`, the page quiet.
pub(crate) async fn wait_for_text(browser: &Client, selector: &str, check: impl Fn(&str) -> bool) -> String {
    browser::wait_for_text(browser, selector, check).await
}

/// Whether the element with this id is shown.
async fn displayed(browser: &Client, id: &str) -> bool {
    browser
        .find(Locator::Id(id))
        .await
        .unwrap()
        .is_displayed()
        .await
        .unwrap()
}

pub(crate) async fn photograph(browser: &Client, name: &str) {
    if let Ok(folder) = std::env::var("CONSOLE_SCREENSHOTS") {
        let png = browser.screenshot().await.unwrap();
        std::fs::write(std::path::Path::new(&folder).join(format!("{name}.png")), png).unwrap();
    }
}

pub(crate) async fn sign_in(browser: &Client, app: &TestApp) {
    browser.goto(&app.url("/console")).await.unwrap();
    photograph(browser, "entrar").await;
    type_into(browser, "email", OFFICE_EMAIL).await;
    type_into(browser, "password", OFFICE_PASSWORD).await;
    click(browser, "signin-button").await;
}

pub(crate) fn named(cpf: &str, name: &str) -> Value {
    let mut body = proposal_body(cpf);
    body["customer"]["fullName"] = json!(name);
    body
}

/// A proposal of this customer taken through the sandbox's four signatures: in analysis.
pub(crate) async fn in_analysis(app: &TestApp, partner: &str, office: &str, cpf: &str, name: &str) -> String {
    in_analysis_with(app, partner, office, named(cpf, name)).await
}

/// A proposal made with this body of route 5, sent and signed by every party: in analysis.
pub(crate) async fn in_analysis_with(app: &TestApp, partner: &str, office: &str, body: Value) -> String {
    let created = app.post_json_as("/proposal/create", partner, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let record = created.json::<Value>().await.unwrap()["document"][0].clone();
    let identifier = record["identificador"].as_str().unwrap().to_owned();
    let sent = app
        .post_json_as(
            "/signer",
            partner,
            &json!({"customerId": record["id_cliente"], "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    app.sign_as_every_party(office, &identifier).await;
    identifier
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_filter_open_approve_and_see_the_entry_in_the_timeline() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    for (cpf, name) in [("12345678909", "Maria da Silva"), ("11144477735", "Ana Beatriz Lima")] {
        let created = app.post_json_as("/proposal/create", &partner, &named(cpf, name)).await;
        assert_eq!(created.status(), StatusCode::CREATED);
    }
    let identifier = in_analysis(&app, &partner, &office, "52998224725", "José Antônio da Conceição").await;

    let (_driver, browser) = start_browser().await;
    sign_in(&browser, &app).await;
    let all = wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("Maria da Silva")).await;
    assert!(all.contains("Ana Beatriz Lima") && all.contains("José Antônio da Conceição"));
    photograph(&browser, "propostas").await;

    // Accents and case do not matter.
    type_into(&browser, "filter-q", "jose conceicao").await;
    click(&browser, "filter-apply").await;
    let filtered = wait_for_text(&browser, "#proposal-list tbody", |t| !t.contains("Maria da Silva")).await;
    assert!(filtered.contains("José Antônio da Conceição") && !filtered.contains("Ana Beatriz"));
    assert!(filtered.contains("EM ANÁLISE"));

    browser::click(
        &browser,
        Locator::Css(&format!("button.open[data-identifier='{identifier}']")),
    )
    .await;
    wait_for_text(&browser, "#timeline", |t| t.contains("Assinatura registrada")).await;
    assert_eq!(
        browser
            .find(Locator::Id("proposal-status"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "EM ANÁLISE"
    );
    photograph(&browser, "proposta").await;

    decide(&browser, "APROVADO", "Documentação conferida").await;
    wait_for_text(&browser, "#proposal-status", |t| t == "APROVADO").await;
    let timeline = wait_for_text(&browser, "#timeline", |t| t.contains("Documentação conferida")).await;
    assert!(timeline.contains("EM ANÁLISE → APROVADO"), "{timeline}");
    assert!(timeline.contains(&format!("por {OFFICE_EMAIL}")));
    // A finished proposal offers no decision.
    assert!(browser.find(Locator::Id("decision")).await.is_err());
    photograph(&browser, "proposta-aprovada").await;

    // What the browser showed is what the API says.
    let history: Value = app
        .get(&format!("/proposal/{identifier}/history"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let last = history["data"]["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["changes"]["motivo"]["to"], "Documentação conferida");
    assert_eq!(last["by"], OFFICE_EMAIL);

    click(&browser, "nav-catalog").await;
    wait_for_text(&browser, "#product-list", |t| t.contains("Seguro de Vida Essencial")).await;
    photograph(&browser, "produtos").await;
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_webhook_delivery_is_retried_from_the_console() {
    let app = TestApp::spawn_with(&[
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        // The next automatic attempt is an hour away: only the console's button brings it sooner.
        ("HOOKS_RETRY_SCHEDULE_SECS", "3600"),
        ("HOOKS_POLL_INTERVAL_MS", "200"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&receiver)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&receiver)
        .await;
    let subscribed = app
        .post_json_as(
            "/hooks",
            &office,
            &json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": receiver.uri(), "status": "ATIVO"}),
        )
        .await;
    assert_eq!(subscribed.status(), StatusCode::OK);
    // A status change makes the delivery; the receiver refuses its first attempt.
    let identifier = app.create_proposal(&partner, "12345678909").await;
    let cancelled = app
        .client
        .patch(app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&office)
        .json(&json!({"status": "CANCELADO", "reason": "desistência"}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::OK);
    let started = Instant::now();
    while receiver.received_requests().await.unwrap_or_default().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no attempt reached the receiver"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let (_driver, browser) = start_browser().await;
    sign_in(&browser, &app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("CANCELADO")).await;
    click(&browser, "nav-hooks").await;
    wait_for_text(&browser, "#hook-list", |t| t.contains(&receiver.uri())).await;
    browser::click(&browser, Locator::Css("button.deliveries")).await;
    let log = wait_for_text(&browser, "#delivery-list", |t| t.contains("HTTP 503")).await;
    assert!(log.contains("PENDENTE"), "{log}");
    photograph(&browser, "webhooks").await;

    browser::click(&browser, Locator::Css("button.retry")).await;
    wait_for_text(&browser, "#delivery-notice", |t| t.contains("reagendada")).await;
    // The worker makes the attempt at once; the log shows it once reloaded.
    let started = Instant::now();
    loop {
        browser::click(&browser, Locator::Css("button.deliveries")).await;
        // The click starts htmx's request at once: quiet again means the log is drawn anew.
        browser::quiet(&browser).await;
        let text = browser
            .find(Locator::Id("delivery-list"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap_or_default();
        if text.contains("ENTREGUE") {
            assert!(text.contains("HTTP 204"), "{text}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the retried delivery was not delivered: {text}"
        );
    }
    assert_eq!(receiver.received_requests().await.unwrap().len(), 2);
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancellation_from_the_console_needs_the_reason_the_route_needs() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let identifier = app.create_proposal(&partner, "12345678909").await;
    let refused = black_box_tests::assert_error(
        app.client
            .post(app.url(&format!("/console/proposals/{identifier}/status")))
            .bearer_auth(&office)
            .form(&[("status", "CANCELADO"), ("reason", "ok")])
            .send()
            .await
            .unwrap(),
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(black_box_tests::error_fields(&refused), ["reason"]);
    let detail: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "NOVO", "nothing was cancelled");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_decision_without_a_reason_or_with_an_unknown_status_is_a_400_naming_each_field() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let identifier = app.create_proposal(&partner, "12345678909").await;
    let decide = |form: &'static [(&'static str, &'static str)]| {
        app.client
            .post(app.url(&format!("/console/proposals/{identifier}/status")))
            .bearer_auth(&office)
            .form(form)
            .send()
    };
    let refused = black_box_tests::assert_error(
        decide(&[("status", "PERDIDO"), ("reason", "  ")]).await.unwrap(),
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(black_box_tests::error_fields(&refused), ["status", "reason"]);
    // A filter the list refuses is named in the console too; nothing without a token.
    let bad_filter = black_box_tests::assert_error(
        app.get("/console/proposals?limit=0", Some(&office)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(black_box_tests::error_fields(&bad_filter), ["limit"]);
    assert_eq!(
        app.get("/console/proposals", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    // The proposal did not move.
    let detail: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "NOVO");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_console_fragment_answers_403_to_a_token_that_is_not_the_back_offices() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let identifier = app.create_proposal(&partner, "12345678909").await;
    let hook = uuid::Uuid::new_v4();
    let reads = [
        "/console/proposals".to_owned(),
        format!("/console/proposals/{identifier}"),
        "/console/hooks".to_owned(),
        format!("/console/hooks/{hook}/deliveries"),
        "/console/catalog".to_owned(),
    ];
    for token in [&partner, &shop] {
        for path in &reads {
            let refused =
                black_box_tests::assert_error(app.get(path, Some(token)).await, StatusCode::FORBIDDEN, "sem_permissao")
                    .await;
            assert!(
                refused["message"].as_str().unwrap().contains("back office"),
                "{path}: {refused}"
            );
        }
        for path in [
            format!("/console/proposals/{identifier}/status"),
            format!("/console/hooks/{hook}/deliveries/1/retry"),
        ] {
            let answer = app
                .client
                .post(app.url(&path))
                .bearer_auth(token)
                .form(&[("status", "CANCELADA"), ("reason", "teste")])
                .send()
                .await
                .unwrap();
            black_box_tests::assert_error(answer, StatusCode::FORBIDDEN, "sem_permissao").await;
        }
    }
    // The back office reads the same fragments; the proposal did not move.
    for path in ["/console/proposals", "/console/hooks", "/console/catalog"] {
        assert_eq!(app.get(path, Some(&office)).await.status(), StatusCode::OK, "{path}");
    }
    let detail: Value = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(detail["data"]["proposal"]["status"], "NOVO");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partners_token_in_the_console_is_refused_and_the_sign_in_shown_again() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    app.create_proposal(&partner, "12345678909").await;

    let (_driver, browser) = start_browser().await;
    browser.goto(&app.url("/console")).await.unwrap();
    // A partner's token put where the console keeps its own: the page opens the proposals with it.
    browser
        .execute(
            "sessionStorage.setItem('sales-console-token', arguments[0]);",
            vec![json!(partner)],
        )
        .await
        .unwrap();
    browser.refresh().await.unwrap();
    let alert = wait_for_text(&browser, "#alert", |t| t.contains("back office")).await;
    assert!(alert.contains("BACKOFFICE"), "{alert}");
    let proposals = browser
        .find(Locator::Css("#app"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap_or_default();
    assert!(!proposals.contains("Maria"), "a partner's proposals shown: {proposals}");
    assert!(displayed(&browser, "signin-form").await, "the sign-in is shown again");
    assert!(!displayed(&browser, "nav").await, "no menu while signed out");
    let kept: Value = browser
        .execute("return sessionStorage.getItem('sales-console-token');", vec![])
        .await
        .unwrap();
    assert_eq!(kept, Value::Null, "the refused token is dropped");
    photograph(&browser, "token-recusado").await;
    browser.close().await.unwrap();
}

/// Types `text` into the element with this id, once shown on a quiet page.
pub(crate) async fn type_into(browser: &Client, id: &str, text: &str) {
    browser::type_into(browser, Locator::Id(id), text).await;
}

/// Clicks the element with this id, once shown on a quiet page.
pub(crate) async fn click(browser: &Client, id: &str) {
    browser::click(browser, Locator::Id(id)).await;
}

/// Chooses the decision on the open proposal, gives the reason and registers it.
pub(crate) async fn decide(browser: &Client, status: &str, reason: &str) {
    browser::click(
        browser,
        Locator::Css(&format!("#decision-status option[value='{status}']")),
    )
    .await;
    type_into(browser, "decision-reason", reason).await;
    click(browser, "decision-apply").await;
}

/// A refusal's category chosen in the console is all the seller reads of its reason; the
/// timeline keeps the words for the back office (decision 283).
#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_refuses_with_a_category_and_the_seller_reads_only_the_category() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let identifier = in_analysis(&app, &partner, &office, "52998224725", "José Antônio da Conceição").await;

    let (_driver, browser) = start_browser().await;
    sign_in(&browser, &app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("José Antônio")).await;
    open_proposal(&browser, &identifier).await;
    browser::click(&browser, Locator::Css("#decision-category option[value='saude']")).await;
    browser::click(&browser, Locator::Css("#decision-status option[value='REPROVADO']")).await;
    type_into(&browser, "decision-reason", "Declarou uso contínuo de Losartana").await;
    browser
        .execute(
            "document.getElementById('decision').scrollIntoView({block: 'center'});",
            vec![],
        )
        .await
        .unwrap();
    photograph(&browser, "decisao-com-categoria").await;
    click(&browser, "decision-apply").await;
    wait_for_text(&browser, "#proposal-status", |t| t == "REPROVADO").await;
    let timeline = wait_for_text(&browser, "#timeline", |t| t.contains("Losartana")).await;
    assert!(timeline.contains("saude"), "{timeline}");
    photograph(&browser, "proposta-recusada").await;

    let events: Value = app
        .get(&format!("/proposal/{identifier}/events"), Some(&partner))
        .await
        .json()
        .await
        .unwrap();
    let last = events["document"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["status"], "REPROVADO");
    assert_eq!(last["reasonCategory"], "saude");
    assert_eq!(last["reason"], Value::Null);
}

/// Opens the proposal from the list (all proposals are the back office's).
pub(crate) async fn open_proposal(browser: &Client, identifier: &str) {
    browser::click(
        browser,
        Locator::Css(&format!("button.open[data-identifier='{identifier}']")),
    )
    .await;
    wait_for_text(browser, "#proposal-status", |t| !t.is_empty()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_cancels_a_proposal_and_sees_a_sales_subscription_fail() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", super::ecommerce::WEBHOOK_SECRET)]).await;
    let (_, sale, subscription) = super::subscriptions::paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let failed = app
        .client
        .post(app.url(&format!("/sandbox/payments/{subscription}/fail")))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status(), StatusCode::OK);
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let mistaken = app
        .post_json_as("/proposal/create", &partner, &named("39053344705", "Maria da Silva"))
        .await;
    assert_eq!(mistaken.status(), StatusCode::CREATED);
    let mistaken = mistaken.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();

    let (_driver, browser) = start_browser().await;
    // The sandbox platform's development page lists the subscription, past due, with its buttons.
    browser.goto(&app.url("/sandbox/payments")).await.unwrap();
    let listed = wait_for_text(&browser, "table", |t| t.contains(&subscription)).await;
    assert!(listed.contains("past_due") && listed.contains("R$ 39,90"), "{listed}");
    photograph(&browser, "sandbox-pagamentos").await;
    sign_in(&browser, &app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("Maria da Silva")).await;
    open_proposal(&browser, &sale).await;
    let shown = wait_for_text(&browser, "#subscription", |t| t.contains(&subscription)).await;
    assert!(shown.contains("em atraso (past_due)"), "{shown}");
    assert!(shown.contains("última fatura em aberto (open)"), "{shown}");
    assert!(shown.contains("período pago até"), "{shown}");
    photograph(&browser, "proposta-assinatura-recorrente").await;

    browser.goto(&app.url("/console")).await.unwrap();
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("Maria da Silva")).await;
    open_proposal(&browser, &mistaken).await;
    // A cancellation is the customer's request: a reason as short as "ok" is refused, as on the route.
    decide(&browser, "CANCELADO", "ok").await;
    let alert = wait_for_text(&browser, "#alert", |t| t.contains("reason")).await;
    assert!(alert.contains("ao menos 3 caracteres"), "{alert}");
    photograph(&browser, "cancelamento-motivo-curto").await;
    browser
        .find(Locator::Id("decision-reason"))
        .await
        .unwrap()
        .clear()
        .await
        .unwrap();
    decide(&browser, "CANCELADO", "Cliente desistiu por telefone").await;
    wait_for_text(&browser, "#proposal-status", |t| t == "CANCELADO").await;
    let timeline = wait_for_text(&browser, "#timeline", |t| t.contains("Pedido do cliente (protocolo)")).await;
    assert!(timeline.contains("Cliente desistiu por telefone"), "{timeline}");
    assert!(timeline.contains("cancelamento"), "{timeline}");
    assert!(
        browser.find(Locator::Id("decision")).await.is_err(),
        "a finished proposal offers no decision"
    );

    // The customer regrets the online sale: the back office undoes it, confirming the refund.
    browser.goto(&app.url("/console")).await.unwrap();
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("Maria da Silva")).await;
    open_proposal(&browser, &sale).await;
    type_into(&browser, "withdrawal-reason", "Encontrou um plano mais barato").await;
    click(&browser, "withdrawal-apply").await;
    accept_confirmation(&browser).await;
    wait_for_text(&browser, "#proposal-status", |t| t == "CANCELADO").await;
    let shown = wait_for_text(&browser, "#subscription", |t| t.contains("cancelada")).await;
    assert!(shown.contains("cancelada (canceled)"), "{shown}");
    assert!(
        shown.contains("última fatura em aberto (open)"),
        "the cancellation's answer does not tell the invoice: it stays as read: {shown}"
    );
    let timeline = wait_for_text(&browser, "#timeline", |t| t.contains("ARREPENDIMENTO")).await;
    assert!(
        timeline.contains("arrependimento"),
        "the request under its protocol: {timeline}"
    );
    assert!(browser.find(Locator::Id("withdrawal")).await.is_err(), "undone once");
    photograph(&browser, "proposta-arrependimento").await;
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 1);
}

/// Accepts the page's confirmation dialog once it shows (htmx's `hx-confirm`).
async fn accept_confirmation(browser: &Client) {
    let started = Instant::now();
    while browser.accept_alert().await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(10), "no confirmation was asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
