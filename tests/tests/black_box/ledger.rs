//! The contract's ledger (issue 65): every amount due, received, given back and owed back is an
//! entry written with the fact that causes it; route 7's `data.ledger` derives the balances from
//! them; `sales-api ledger check` compares every contract's entries with the facts its rails
//! recorded, enters what a fact lacks and lists what differs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::WEBHOOK_SECRET;
use super::settlements::{billing_run, brasilia_day, days_later, decide, employer_reports, signed_partner_sale};
use super::subscriptions::paid_sale;
use black_box_tests::{StatusCode, TestApp};
use chrono::{Days, Months, NaiveDate};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";

/// `sales-api ledger check`, with or without `--dry-run`: the report and the exit's outcome.
async fn ledger_check(app: &TestApp, dry_run: bool) -> (domain::ledger::check::LedgerReport, Result<(), String>) {
    let report = api_actix::cli::check_ledger(&TestApp::config(&app.db, &[]), !dry_run)
        .await
        .unwrap();
    let outcome = api_actix::cli::ledger_outcome(&report, !dry_run).map_err(|e| e.to_string());
    (report, outcome)
}

/// Route 7's ledger as `(due, received, refunded, owedBack)`.
fn balances(data: &Value) -> (i64, i64, i64, i64) {
    let l = &data["ledger"];
    let cents = |key: &str| l[key].as_i64().unwrap_or_else(|| panic!("ledger.{key}: {l}"));
    (cents("due"), cents("received"), cents("refunded"), cents("owedBack"))
}

/// A partner's payroll contract of demo product 101 (R$ 49,90 a month), signed and approved.
pub(super) async fn approved_payroll_contract(app: &TestApp, partner: &str, office: &str, cpf: &str) -> String {
    let identifier = signed_partner_sale(app, partner, office, cpf).await;
    let approved = decide(
        app,
        office,
        &identifier,
        json!({"status": "APROVADO", "reason": "Conferida"}),
    )
    .await;
    assert_eq!(approved.status(), StatusCode::OK);
    identifier
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payroll_contracts_ledger_follows_each_fact_from_its_charge_to_the_refund_paid() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = approved_payroll_contract(&app, &partner, &office, "52998224725").await;
    assert_eq!(
        balances(&app.proposal_data(&identifier, &partner).await),
        (0, 0, 0, 0),
        "nothing charged yet: every member present, zero"
    );

    // The first charge: due, not received.
    billing_run(&app).await;
    let data = app.proposal_data(&identifier, &partner).await;
    assert_eq!(balances(&data), (4990, 0, 0, 0), "{data}");
    let first_due = NaiveDate::parse_from_str(data["charges"][0]["dueDate"].as_str().unwrap(), "%Y-%m-%d").unwrap();

    // The employer discounts it at R$ 49,90: received.
    let line = format!(
        "{identifier};{};49,90;{}",
        first_due.format("%m/%Y"),
        brasilia_day(0).min(first_due).format("%d/%m/%Y")
    );
    assert_eq!(employer_reports(&app, &[line]).await.paid, 1);
    assert_eq!(
        balances(&app.proposal_data(&identifier, &partner).await),
        (4990, 4990, 0, 0)
    );

    // The second charge is made (10 days before it falls due) and left unpaid; the contract is
    // cancelled within the first period paid.
    let second_due = first_due.checked_add_months(Months::new(1)).unwrap();
    let cancelled_on = (second_due - Days::new(10) - brasilia_day(0)).num_days();
    days_later(&app, cancelled_on).await;
    billing_run(&app).await;
    assert_eq!(
        balances(&app.proposal_data(&identifier, &partner).await),
        (2 * 4990, 4990, 0, 0)
    );
    let cancelled = app
        .post_json_as(
            &format!("/proposal/{identifier}/cancel"),
            &partner,
            &json!({"reason": "Cliente mudou de emprego"}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);

    // The unpaid charge cancelled leaves what was due covered by what was received; the unused
    // days of the period paid are owed back, to be paid by the finance team.
    let data = app.proposal_data(&identifier, &partner).await;
    let refunds = data["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{data}");
    assert_eq!(refunds[0]["status"], "a_pagar");
    let owed = refunds[0]["amount"].as_i64().unwrap();
    assert!(owed > 0 && owed < 4990, "{refunds:?}");
    assert_eq!(balances(&data), (4990, 4990, 0, owed), "{data}");
    let statuses: Vec<&str> = data["charges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["paga", "cancelada"]);

    // Paid by transfer: given back, nothing owed.
    let finance = api_actix::cli::refunds_of(&TestApp::config(&app.db, &[])).unwrap();
    let id = refunds[0]["id"].as_str().unwrap();
    finance.mark_paid(id, "TED 123", "financeiro").await.unwrap();
    assert_eq!(
        balances(&app.proposal_data(&identifier, &office).await),
        (4990, 4990, owed, 0)
    );

    // The back office's page shows the four balances.
    let page = app
        .get(&format!("/console/proposals/{identifier}"), Some(&office))
        .await
        .text()
        .await
        .unwrap();
    let ledger = &page[page.find("id=\"ledger\"").expect("the ledger's table")..];
    let ledger = &ledger[..ledger.find("</table>").unwrap()];
    assert_eq!(ledger.matches("R$ 49,90").count(), 2, "{ledger}");

    // Every entry has its fact and every fact its entry.
    let (report, outcome) = ledger_check(&app, true).await;
    assert_eq!(outcome, Ok(()), "{report:?}");
    assert!(report.contracts >= 1);
    assert_eq!(report.drift_count, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_sale_enters_its_paid_invoice_and_the_regret_what_it_returned() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, _) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    // The first invoice, collected with the subscription's creation: due and received.
    assert_eq!(
        balances(&app.proposal_data(&identifier, &shop).await),
        (3990, 3990, 0, 0)
    );

    days_later(&app, 5).await;
    let response = app
        .post_json_as(
            &format!("/proposal/{identifier}/withdraw"),
            &shop,
            &json!({"reason": "Mudei de ideia"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let data = app.proposal_data(&identifier, &shop).await;
    let to_pay: i64 = data["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "a_pagar")
        .map(|r| r["amount"].as_i64().unwrap())
        .sum();
    assert!(to_pay > 0, "the correction above the card's charge: {data}");
    assert_eq!(balances(&data), (3990, 3990, 3990, to_pay), "{data}");
    let (report, outcome) = ledger_check(&app, true).await;
    assert_eq!(outcome, Ok(()), "{report:?}");

    // The person's export lists every entry, in order.
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let export = app
        .get("/privacy/customers/52998224725", Some(&office))
        .await
        .json::<Value>()
        .await
        .unwrap();
    let entries: Vec<(String, i64)> = export["data"]["propostas"][0]["razao"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                format!("{}:{}", e["origem"].as_str().unwrap(), e["tipo"].as_str().unwrap()),
                e["valor_centavos"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("fatura:devido".to_owned(), 3990),
            ("fatura:recebido".to_owned(), 3990),
            ("reembolso:devolvido".to_owned(), 3990),
            ("reembolso:a_devolver".to_owned(), to_pay),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_check_finds_a_fact_without_its_entry_enters_it_and_reports_an_entry_without_its_fact() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = approved_payroll_contract(&app, &partner, &office, "52998224725").await;
    billing_run(&app).await;
    let (report, outcome) = ledger_check(&app, true).await;
    assert_eq!((report.drift_count, outcome), (0, Ok(())));

    // A write that skipped the ledger (the database's triggers off): the charge paid, no entry.
    app.sql(
        "DO $$ BEGIN PERFORM set_config('session_replication_role', 'replica', true); \
         UPDATE charges SET status = 'paga', pago_em = now(), valor_pago = 4990; END $$",
    )
    .await;
    let (report, outcome) = ledger_check(&app, true).await;
    assert_eq!(report.drift_count, 1, "{report:?}");
    assert_eq!(report.drifted_contracts, 1);
    let drift = &report.drifts[0];
    assert_eq!(drift.identifier, identifier);
    assert_eq!(drift.source.origin, "cobranca");
    assert_eq!(drift.source.kind, domain::ledger::EntryKind::Received);
    assert_eq!((drift.ledger, drift.fact), (None, Some(4990)));
    let refused = outcome.unwrap_err();
    assert!(refused.contains("sales-api ledger check"), "{refused}");
    let listed = api_actix::cli::ledger_report(&report, false);
    assert!(
        listed.contains(&format!("{identifier} cobranca")) && listed.contains("lançamento ausente (4990 centavos)"),
        "{listed}"
    );

    // Without --dry-run the missing entry is entered (once), and route 7 reads it.
    let (report, outcome) = ledger_check(&app, false).await;
    assert_eq!((report.entered, outcome), (1, Ok(())), "{report:?}");
    let (report, outcome) = ledger_check(&app, true).await;
    assert_eq!((report.drift_count, outcome), (0, Ok(())));
    assert_eq!(
        balances(&app.proposal_data(&identifier, &partner).await),
        (4990, 4990, 0, 0)
    );

    // An entry without its fact cannot be mended by entering: it is reported, and the check fails.
    app.sql(&format!(
        "INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em) \
         SELECT id, 'devolvido', 100, 'reembolso', 'rf_inexistente', 'CARTÃO', now() FROM proposals \
         WHERE identificador = '{identifier}'"
    ))
    .await;
    let (report, outcome) = ledger_check(&app, false).await;
    assert_eq!(report.entered, 0);
    assert_eq!((report.drifts[0].ledger, report.drifts[0].fact), (Some(100), None));
    assert!(outcome.unwrap_err().contains("só uma pessoa resolve"));
}
