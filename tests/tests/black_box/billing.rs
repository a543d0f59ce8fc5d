//! The charges of a partner's contract (issue 46): from the acceptance, a charge per period
//! created by the billing's run (every instance and the worker; `sales-api charges run` once),
//! each once however many instances run it; the contract late past its product's grace days,
//! suspended from its unpaid days and resumed when paid; the employer's report of payroll
//! discounts applied once however many times it is read; the open charges cancelled with the
//! contract. Route 7 shows the last charges and the billing, the history and `COBRANCA_ALTERADA`
//! tell each change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{Setup, contract, days_later};
use black_box_tests::{StatusCode, TestApp};
use chrono::{Months, NaiveDate};
use serde_json::{Value, json};

const CPF: &str = "52998224725";

async fn billed_sale() -> (Setup, wiremock::MockServer) {
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    let s = Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    };
    let receiver = s.app.subscribed_receiver(&s.partner, &["COBRANCA_ALTERADA"]).await;
    (s, receiver)
}

async fn run(s: &Setup) -> domain::billing::service::BillingRun {
    api_actix::cli::run_billing(&TestApp::config(&s.app.db, &[]))
        .await
        .unwrap()
}

async fn report(s: &Setup, lines: &[String]) -> domain::billing::service::DiscountSummary {
    let text = format!("identificador;competencia;valor;data_desconto\n{}\n", lines.join("\n"));
    api_actix::cli::record_discounts(&TestApp::config(&s.app.db, &[]), &text)
        .await
        .unwrap()
}

fn day(value: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(value.as_str().unwrap(), "%Y-%m-%d").unwrap()
}

/// The history's entries of `action`, as `from -> to` of `member`.
pub(super) async fn history_of(s: &Setup, identifier: &str, action: &str, member: &str) -> Vec<String> {
    let response = s
        .app
        .get(&format!("/proposal/{identifier}/history"), Some(&s.office))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["action"] == action)
        .map(|entry| {
            let change = &entry["changes"][member];
            format!("{} -> {}", change["from"], change["to"])
        })
        .collect()
}

/// The `COBRANCA_ALTERADA` bodies queued, in their sequence.
async fn charge_events(s: &Setup) -> Vec<Value> {
    let bodies = s
        .app
        .text(
            "SELECT coalesce(jsonb_agg(body::jsonb ORDER BY (body::jsonb -> 'data' ->> 'sequence')::int), '[]')::text AS line \
             FROM hook_deliveries WHERE event_type = 'COBRANCA_ALTERADA'",
        )
        .await;
    serde_json::from_str::<Vec<Value>>(&bodies).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payroll_contract_is_charged_monthly_suspended_when_unpaid_and_resumed_when_the_employer_pays() {
    let (s, _receiver) = billed_sale().await;
    let identifier = contract(&s, CPF).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["billing"]["status"], "em_dia");
    assert_eq!(data["charges"], json!([]));
    let value = data["proposal"]["value"].as_i64().unwrap();

    // Two instances' runs at once: the first charge is created once.
    let (first, second) = tokio::join!(run(&s), run(&s));
    assert_eq!(first.created + second.created, 1);
    assert_eq!(run(&s).await.created, 0, "a later run creates nothing more");
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let charge = &data["charges"][0];
    assert_eq!(data["charges"].as_array().unwrap().len(), 1);
    assert_eq!(charge["period"], 1);
    assert_eq!(charge["amount"], value);
    assert_eq!(charge["method"], "DESCONTO EM FOLHA");
    assert_eq!(charge["status"], "aberta");
    assert_eq!(charge["attempts"], 0);
    let due = day(&charge["dueDate"]);
    let accepted_on = chrono::DateTime::parse_from_rfc3339(data["billing"]["since"].as_str().unwrap())
        .unwrap()
        .with_timezone(&domain::contract::formats::brasilia())
        .date_naive();
    assert_eq!((due - accepted_on).num_days(), 10, "due 10 days after the acceptance");

    // Six days past due (grace: 5): late. Thirty: suspended, and the next month's charge made.
    days_later(&s, 16).await;
    let late = run(&s).await;
    assert_eq!(late.moved.len(), 1);
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["billing"]["status"],
        "em_atraso"
    );
    days_later(&s, 40).await;
    let suspended = run(&s).await;
    assert_eq!(suspended.created, 1);
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["billing"]["status"], "suspenso");
    assert_eq!(
        day(&data["charges"][1]["dueDate"]),
        due.checked_add_months(Months::new(1)).unwrap()
    );
    assert_eq!(run(&s).await.moved, [], "a suspension happens once");

    // The employer's report: the first month paid (read twice: once), a wrong amount refused.
    let month = due.format("%m/%Y").to_string();
    let paid_on = (due + chrono::Days::new(31)).format("%d/%m/%Y").to_string();
    let reais = format!("{},{:02}", value / 100, value % 100);
    let lines = [
        format!("{identifier};{month};{reais};{paid_on}"),
        format!(
            "{identifier};{};1,00;{paid_on}",
            due.checked_add_months(Months::new(1)).unwrap().format("%m/%Y")
        ),
    ];
    let summary = report(&s, &lines).await;
    assert_eq!((summary.paid, summary.already_paid), (1, 0));
    assert_eq!(summary.refused.len(), 1);
    assert_eq!(summary.refused[0].line, 3);
    assert!(summary.refused[0].reason.contains("R$ 1,00"), "{:?}", summary.refused);
    assert_eq!(summary.moved.len(), 1, "resumed when nothing is left late");
    let again = report(&s, &lines[..1]).await;
    assert_eq!((again.paid, again.already_paid, again.moved.len()), (0, 1, 0));

    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["billing"]["status"], "em_dia");
    assert_eq!(data["charges"][0]["status"], "paga");
    assert!(data["charges"][0]["paidAt"].is_string());
    assert_eq!(data["charges"][1]["status"], "aberta");
    assert_eq!(
        history_of(&s, &identifier, "cobranca_situacao", "situacao").await,
        [
            r#""em_dia" -> "em_atraso""#,
            r#""em_atraso" -> "suspenso""#,
            r#""suspenso" -> "em_dia""#
        ]
    );
    assert_eq!(
        history_of(&s, &identifier, "cobranca", "status").await,
        [r#""aberta" -> "paga""#]
    );

    // What the partner's subscription was told, in order: each charge made or paid, each move.
    let told: Vec<(Value, Value, Value)> = charge_events(&s)
        .await
        .iter()
        .map(|e| {
            (
                e["data"]["cobranca"]["periodo"].clone(),
                e["data"]["cobranca"]["status"].clone(),
                e["data"]["situacao"].clone(),
            )
        })
        .collect();
    assert_eq!(
        told,
        [
            (json!(1), json!("aberta"), json!("em_dia")),
            (Value::Null, Value::Null, json!("em_atraso")),
            (json!(2), json!("aberta"), json!("em_atraso")),
            (Value::Null, Value::Null, json!("suspenso")),
            (json!(1), json!("paga"), json!("suspenso")),
            (Value::Null, Value::Null, json!("em_dia")),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_that_ends_cancels_its_open_charges_and_is_charged_no_more() {
    let (s, _receiver) = billed_sale().await;
    let identifier = contract(&s, CPF).await;
    run(&s).await;
    // Past the right of regret, the seller cancels the contract.
    days_later(&s, 10).await;
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente mudou de emprego")
        .await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["charges"][0]["status"], "cancelada");
    assert_eq!(data["charges"][0]["reason"], "contrato encerrado");
    days_later(&s, 90).await;
    let later = run(&s).await;
    assert_eq!((later.created, later.moved.len()), (0, 0));
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["charges"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let events = charge_events(&s).await;
    assert_eq!(events.last().unwrap()["data"]["cobranca"]["status"], "cancelada");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_report_that_is_not_the_employers_is_refused_whole_and_changes_nothing() {
    let (s, _receiver) = billed_sale().await;
    let identifier = contract(&s, CPF).await;
    run(&s).await;
    let refused = api_actix::cli::record_discounts(
        &TestApp::config(&s.app.db, &[]),
        &format!("{identifier};12/2026;39,90;05/12/2026\n"),
    )
    .await
    .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("identificador;competencia;valor;data_desconto"),
        "{refused}"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM charges WHERE status = 'paga'")
            .await,
        0
    );
}

/// The back office sees a suspended contract on its page: the billing's status, since when, and
/// each charge with its due date and situation (with `CONSOLE_SCREENSHOTS`, photographed).
#[tokio::test(flavor = "multi_thread")]
async fn the_console_shows_a_suspended_contract_and_its_charges() {
    use super::console::{photograph, sign_in, wait_for_text};
    use fantoccini::Locator;

    let (s, _receiver) = billed_sale().await;
    let identifier = contract(&s, CPF).await;
    run(&s).await;
    // Late six days past due, and noticed then: the cover may be suspended 15 days after the
    // notice's receipt (Lei 15.040/2024 art. 20 §1, decision 266), so thirty days past due it is.
    days_later(&s, 16).await;
    run(&s).await;
    days_later(&s, 40).await;
    run(&s).await;

    let (_driver, browser) = black_box_tests::browser::start_browser().await;
    sign_in(&browser, &s.app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("APROVADO")).await;
    black_box_tests::browser::click(
        &browser,
        Locator::Css(&format!("button.open[data-identifier='{identifier}']")),
    )
    .await;
    let billing = wait_for_text(&browser, "#billing", |t| !t.is_empty()).await;
    assert!(billing.contains("suspenso por falta de pagamento"), "{billing}");
    let charges = wait_for_text(&browser, "#charges tbody", |t| !t.is_empty()).await;
    let rows: Vec<&str> = charges.lines().collect();
    assert_eq!(rows.len(), 2, "{charges}");
    assert!(
        rows[0].starts_with('1') && rows[0].contains("aberta, em atraso"),
        "{charges}"
    );
    assert!(
        rows[1].starts_with('2') && rows[1].contains("DESCONTO EM FOLHA"),
        "{charges}"
    );
    browser
        .execute(
            "document.getElementById('billing').scrollIntoView({block: 'start'}); window.scrollBy(0, -80)",
            vec![],
        )
        .await
        .unwrap();
    photograph(&browser, "cobranca").await;
}
