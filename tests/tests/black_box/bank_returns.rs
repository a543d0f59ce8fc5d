//! Bank returns at their amount (issue 65): a paid `F` counts only at the amount of the debit
//! sent (one centavo does not pay R$ 49,90; the line is refused and named, nothing of it applied,
//! and `sales-api debits retorno` fails), a signed amount refuses the file, and a file's `F` and
//! `B` records reach only what its own bank and agreement were sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::Setup;
use black_box_tests::TestApp;
use chrono::NaiveDate;
use domain::billing::cnab150::{Agreement, DebitOrder, opt_out_line, read_remessa_debits, retorno_text, return_line};
use serde_json::{Value, json};

/// Two agreements: the customer's bank (001) and another (237).
const AGREEMENTS: &str = "001:123456:SEGURADORA EXEMPLO;237:654321:SEGURADORA EXEMPLO";

fn agreement(bank: &str) -> Agreement {
    Agreement::parse_list(AGREEMENTS)
        .unwrap()
        .into_iter()
        .find(|a| a.bank == bank)
        .unwrap()
}

fn config(s: &Setup) -> api_actix::config::Config {
    TestApp::config(&s.app.db, &[("DEBIT_AGREEMENTS", AGREEMENTS)])
}

/// A contract paid by debit at bank 001, approved, its first debit sent in a remessa: the order.
async fn debit_sent() -> (Setup, String, DebitOrder, std::path::PathBuf) {
    let app = TestApp::spawn_with(&[("DEBIT_AGREEMENTS", AGREEMENTS)]).await;
    app.seed_catalog().await;
    let s = Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    };
    let identifier = super::debits::debit_contract(&s, "52998224725").await;
    api_actix::cli::run_billing(&config(&s)).await.unwrap();
    let due = NaiveDate::parse_from_str(
        s.app.proposal_data(&identifier, &s.partner).await["charges"][0]["dueDate"]
            .as_str()
            .unwrap(),
        "%Y-%m-%d",
    )
    .unwrap();
    let folder = std::env::temp_dir().join(format!("sales-api-test-returns-{}", s.app.db.name));
    std::fs::create_dir_all(&folder).unwrap();
    let files = api_actix::cli::write_remessas(&config(&s), &folder, None, Some(due))
        .await
        .unwrap();
    assert_eq!(files.len(), 1, "one remessa: bank 001's");
    let order = read_remessa_debits(&std::fs::read_to_string(&files[0].0).unwrap()).remove(0);
    assert_eq!(order.amount, 4990);
    (s, identifier, order, folder)
}

async fn read(
    s: &Setup,
    folder: &std::path::Path,
    name: &str,
    text: &str,
) -> Result<domain::billing::debits::RetornoReport, api_actix::cli::CliError> {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    api_actix::cli::read_retorno(&config(s), &path).await
}

async fn charge_status(s: &Setup, identifier: &str) -> Value {
    s.app.proposal_data(identifier, &s.partner).await["charges"][0]["status"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_paid_return_of_another_amount_is_refused_named_and_pays_nothing() {
    let (s, identifier, order, folder) = debit_sent().await;
    for (n, reported) in [1_i64, 5990].into_iter().enumerate() {
        let wrong = DebitOrder {
            amount: reported,
            ..order.clone()
        };
        let text = retorno_text(
            &agreement("001"),
            1 + n as u32,
            order.date,
            &[return_line(&wrong, "00")],
            None,
        );
        let report = read(&s, &folder, &format!("RET{n}.RET"), &text).await.unwrap();
        assert_eq!(report.summary.paid, 0, "{reported}");
        assert_eq!(report.summary.refused.len(), 1);
        let refused = &report.summary.refused[0];
        assert_eq!(
            (refused.line, refused.reference.as_str()),
            (2, order.reference.as_str())
        );
        assert!(refused.reason.contains("R$ 49,90"), "{}", refused.reason);
        // The command fails, so that whoever runs it sees it.
        let outcome = api_actix::cli::retorno_outcome(&report);
        assert!(
            matches!(&outcome, Err(e) if e.to_string().contains("1 linha(s) do retorno recusada(s)")),
            "{outcome:?}"
        );
        assert_eq!(charge_status(&s, &identifier).await, "aberta");
    }
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM debit_file_items WHERE codigo_retorno IS NOT NULL")
            .await,
        0,
        "nothing of a refused line is recorded"
    );
    let summary = s
        .app
        .text("SELECT resumo AS line FROM debit_files WHERE tipo = 'retorno' ORDER BY id LIMIT 1")
        .await;
    assert!(summary.contains("recusada(s) por valor divergente"), "{summary}");

    // The bank's corrected return, at the amount sent, pays it.
    let text = retorno_text(&agreement("001"), 3, order.date, &[return_line(&order, "00")], None);
    let report = read(&s, &folder, "RET3.RET", &text).await.unwrap();
    assert_eq!((report.summary.paid, report.summary.refused.len()), (1, 0));
    assert!(api_actix::cli::retorno_outcome(&report).is_ok());
    assert_eq!(charge_status(&s, &identifier).await, "paga");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_negative_amount_refuses_the_whole_file() {
    let (s, identifier, order, folder) = debit_sent().await;
    let mut line = return_line(&order, "00");
    line.replace_range(52..67, "-00000000004990");
    let text = retorno_text(&agreement("001"), 1, order.date, &[line], None);
    let refused = read(&s, &folder, "NEG.RET", &text).await.unwrap_err().to_string();
    assert!(
        refused.contains("linha 2") && refused.contains("só algarismos"),
        "{refused}"
    );
    assert_eq!(charge_status(&s, &identifier).await, "aberta");
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM debit_files WHERE tipo = 'retorno'")
            .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn another_banks_file_reaches_nothing_this_bank_was_sent() {
    let (s, identifier, order, folder) = debit_sent().await;
    // Bank 237's return names bank 001's debit and customer: neither is its own.
    let text = retorno_text(
        &agreement("237"),
        1,
        order.date,
        &[return_line(&order, "00"), opt_out_line(&order, order.date)],
        None,
    );
    let report = read(&s, &folder, "RET237.RET", &text).await.unwrap();
    assert_eq!(
        (report.summary.paid, report.summary.unknown, report.summary.revoked),
        (0, 1, 0)
    );
    assert_eq!(charge_status(&s, &identifier).await, "aberta");
    let authorization = s.app.text("SELECT situacao AS line FROM debit_authorizations").await;
    assert_eq!(authorization, "ativa");

    // Bank 001's own return applies both.
    let text = retorno_text(
        &agreement("001"),
        1,
        order.date,
        &[return_line(&order, "00"), opt_out_line(&order, order.date)],
        None,
    );
    let report = read(&s, &folder, "RET001.RET", &text).await.unwrap();
    assert_eq!((report.summary.paid, report.summary.revoked), (1, 1));
    assert_eq!(charge_status(&s, &identifier).await, "paga");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_debit_the_bank_pays_after_the_contract_ended_is_given_back_by_the_billings_pass() {
    let (s, identifier, order, folder) = debit_sent().await;
    // Past the regret the contract is cancelled while its debit is at the bank.
    super::legal_hold::days_later(&s, 8).await;
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente mudou de banco")
        .await;
    assert_eq!(charge_status(&s, &identifier).await, "cancelada");
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["refunds"],
        json!([]),
        "nothing received yet, nothing returned"
    );

    // The bank debits it anyway: money moved is recorded, marked to be given back...
    let text = retorno_text(&agreement("001"), 1, order.date, &[return_line(&order, "00")], None);
    let report = read(&s, &folder, "RET.RET", &text).await.unwrap();
    assert_eq!(report.summary.paid, 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["charges"][0]["status"], "paga");
    assert!(data["charges"][0]["reason"].as_str().unwrap().ends_with(": a devolver"));

    // ...and the billing's pass gives all of it back, corrected, under the proposal's claim, once.
    let config = config(&s);
    assert_eq!(api_actix::cli::give_back_late_payments(&config).await.unwrap(), 1);
    assert_eq!(
        api_actix::cli::give_back_late_payments(&config).await.unwrap(),
        0,
        "once"
    );
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let refunds = data["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{refunds:?}");
    let refund = &refunds[0];
    assert_eq!(
        (refund["status"].as_str(), refund["reason"].as_str()),
        (Some("a_pagar"), Some("CANCELAMENTO"))
    );
    assert_eq!(
        refund["amount"].as_i64().unwrap() - refund["correction"]["amount"].as_i64().unwrap(),
        order.amount,
        "all of it: the charge had been cancelled with the contract"
    );
    assert!(data["charges"][0]["reason"].as_str().unwrap().ends_with(": devolvida"));
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_operations WHERE kind = 'devolucao_tardia' AND state = 'done'")
            .await,
        1
    );
}
