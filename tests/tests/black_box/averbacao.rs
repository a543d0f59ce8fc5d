//! The averbação of a payroll discount (issue 67, decision 268): a `DESCONTO EM FOLHA` contract
//! is registered with the consignment platform after its acceptance, billed only once the
//! averbação is active (its first charge due the product's days after it), never billed when
//! refused, and its averbação cancelled when the contract ends. Route 7 shows its id and status,
//! the history each move. Development's sandbox platform keeps a payroll number ending in 0000
//! pending for five days and refuses one ending in 9999.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::billing::history_of;
use super::legal_hold::{Setup, days_later, setup};
use black_box_tests::{StatusCode, TestApp, proposal_body};
use chrono::NaiveDate;
use serde_json::Value;

const CPF: &str = "52998224725";

async fn run(s: &Setup) -> domain::billing::service::BillingRun {
    api_actix::cli::run_billing(&TestApp::config(&s.app.db, &[]))
        .await
        .unwrap()
}

/// An accepted payroll contract whose benefit number is `number`.
async fn payroll_contract(s: &Setup, number: &str) -> String {
    let mut body = proposal_body(CPF);
    body["discountOnSheet"]["number"] = number.into();
    let identifier = s.app.sent_proposal_of(&s.partner, &body).await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let approved = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    identifier
}

/// The recipients the person's export names (`compartilhamentos`).
async fn shared_with(s: &Setup) -> Vec<String> {
    super::legal_hold::export(s).await["compartilhamentos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["destinatario"].as_str().unwrap().to_owned())
        .collect()
}

fn averbacao(data: &Value) -> &Value {
    &data["billing"]["averbacao"]
}

fn brasilia_day_of(instant: &Value) -> NaiveDate {
    chrono::DateTime::parse_from_rfc3339(instant.as_str().unwrap())
        .unwrap()
        .with_timezone(&domain::contract::formats::brasilia())
        .date_naive()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_payroll_contract_is_not_billed_before_its_averbacao_and_billed_from_it_then_cancelled_with_the_contract() {
    let s = setup().await;
    let identifier = payroll_contract(&s, "1234560000").await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(averbacao(&data)["status"], Value::Null, "not asked before the pass");
    assert!(!shared_with(&s).await.contains(&"empregador_ou_inss".to_owned()));

    // Asked at the first pass; the employer has not decided: nothing billed.
    let first = run(&s).await;
    assert_eq!((first.averbacao.requested, first.created), (1, 0));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(averbacao(&data)["status"], "pendente");
    assert!(averbacao(&data)["id"].as_str().unwrap().starts_with("SBX-P-"));
    // The person's export names who received their data for it (LGPD art. 18, VII; issue 69).
    assert!(shared_with(&s).await.contains(&"empregador_ou_inss".to_owned()));
    assert_eq!(data["charges"], serde_json::json!([]));

    // Twenty days after the acceptance the first charge would have been made and late: not
    // without the averbação. The pass reads it back pending.
    days_later(&s, 3).await;
    let waiting = run(&s).await;
    assert_eq!((waiting.averbacao.activated, waiting.created), (0, 0));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["charges"], serde_json::json!([]));
    assert_eq!(data["billing"]["status"], "em_dia");

    // Active on the sixth day: the charge made, due the product's ten days after the averbação.
    days_later(&s, 6).await;
    let active = run(&s).await;
    assert_eq!((active.averbacao.activated, active.created), (1, 1));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(averbacao(&data)["status"], "ativa");
    let due = NaiveDate::parse_from_str(data["charges"][0]["dueDate"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    assert_eq!(
        (due - brasilia_day_of(&averbacao(&data)["updatedAt"])).num_days(),
        10,
        "due ten days after the averbação, not the acceptance"
    );

    // The contract ends: its averbação cancelled at the platform by the next pass, once.
    days_later(&s, 10).await;
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente mudou de emprego")
        .await;
    let ended = run(&s).await;
    assert_eq!(ended.averbacao.cancelled, 1);
    assert_eq!(run(&s).await.averbacao.cancelled, 0, "cancelled once");
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(averbacao(&data)["status"], "cancelada");
    assert_eq!(
        history_of(&s, &identifier, "averbacao", "situacao").await,
        [
            "null -> \"pendente\"",
            "\"pendente\" -> \"ativa\"",
            "\"ativa\" -> \"cancelada\""
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_averbacao_shows_why_and_the_contract_is_never_billed() {
    let s = setup().await;
    let identifier = payroll_contract(&s, "1234569999").await;
    let pass = run(&s).await;
    assert_eq!((pass.averbacao.refused, pass.created), (1, 0));
    days_later(&s, 45).await;
    let later = run(&s).await;
    assert_eq!((later.averbacao.requested, later.created, later.moved.len()), (0, 0, 0));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(averbacao(&data)["status"], "recusada");
    assert!(averbacao(&data)["reason"].as_str().unwrap().contains("margem"));
    assert_eq!(data["charges"], serde_json::json!([]));
    assert_eq!(
        data["billing"]["status"], "em_dia",
        "nobody is late for a discount never allowed"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn where_no_platform_is_wired_the_back_office_records_the_employers_answer_forward_only() {
    let s = setup().await;
    let identifier = payroll_contract(&s, "1234560000").await;
    let config = TestApp::config(&s.app.db, &[]);
    let record = |status: domain::billing::averbacao::AverbacaoStatus| domain::billing::averbacao::Averbacao {
        id: "ECONSIG-778899".into(),
        status,
        margin_cents: Some(42_000),
        reason: None,
    };
    use domain::billing::averbacao::AverbacaoStatus::{Active, Pending};
    assert!(
        api_actix::cli::record_averbacao(&config, &identifier, &record(Active))
            .await
            .unwrap()
    );
    assert!(
        !api_actix::cli::record_averbacao(&config, &identifier, &record(Active))
            .await
            .unwrap(),
        "the same answer again changes nothing"
    );
    let backwards = api_actix::cli::record_averbacao(&config, &identifier, &record(Pending)).await;
    assert!(backwards.unwrap_err().to_string().contains("não passa a pendente"));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(averbacao(&data)["id"], "ECONSIG-778899");
    assert_eq!(averbacao(&data)["margin"], 42_000);
    // Recorded active, the pass asks nothing of the platform and bills it.
    let pass = run(&s).await;
    assert_eq!((pass.averbacao.requested, pass.created), (0, 1));
}
