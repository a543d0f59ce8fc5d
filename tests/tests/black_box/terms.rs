//! The contract's term (issue 67, decision 270), on the development clock: every accepted
//! contract runs for its product's months from the day the insurer received the proposal
//! (route 7's `data.acceptance.term`); no charge falls due on or after the term's end; the
//! customer is told 30 days before it; a product that renews gives the contract a new term and a
//! new certificate on the end day, and one that does not ends it there (`CANCELADO`,
//! `FIM_DE_VIGENCIA`). The contracts here pay by `DÉBITO EM CONTA` with no remessa sent: never
//! presented, so never late (decision 265), whatever the calendar says.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::debits::debit_contract;
use super::legal_hold::{Setup, days_later, setup};
use black_box_tests::{StatusCode, TestApp, pdf_text};
use chrono::{Months, NaiveDate};
use serde_json::Value;

const CPF: &str = "52998224725";
const EMAIL: &str = "maria@exemplo.com.br";

async fn run(s: &Setup) -> domain::billing::service::BillingRun {
    api_actix::cli::run_billing(&TestApp::config(&s.app.db, &[]))
        .await
        .unwrap()
}

fn day(value: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(value.as_str().unwrap(), "%Y-%m-%d").unwrap()
}

/// The contract's term as route 7 shows it.
async fn term(s: &Setup, identifier: &str) -> Value {
    s.app.proposal_data(identifier, &s.partner).await["acceptance"]["term"].clone()
}

/// The sandbox clock on `target`, counted from `today`.
async fn on(s: &Setup, today: NaiveDate, target: NaiveDate) {
    days_later(s, (target - today).num_days()).await;
}

/// The charges of the contract falling due on or after `end`, ever created.
async fn charges_from(s: &Setup, identifier: &str, end: NaiveDate) -> i64 {
    s.app
        .count(&format!(
            "SELECT count(*) AS n FROM charges c JOIN proposals p ON p.id = c.id_proposta \
             WHERE p.identificador = '{identifier}' AND c.vencimento >= '{end}'"
        ))
        .await
}

fn brasilia_today() -> NaiveDate {
    chrono::Utc::now()
        .with_timezone(&domain::contract::formats::brasilia())
        .date_naive()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_that_does_not_renew_is_noticed_a_month_before_billed_only_within_its_term_and_ended_at_it() {
    let s = setup().await;
    s.app.sql("UPDATE products SET renovacao = 'nenhuma'").await;
    let identifier = debit_contract(&s, CPF).await;
    let today = brasilia_today();
    let first = term(&s, &identifier).await;
    assert_eq!(day(&first["start"]), today, "received and accepted today");
    let end = today.checked_add_months(Months::new(12)).unwrap();
    assert_eq!(day(&first["end"]), end);
    assert_eq!(first["renewal"], "nenhuma");
    assert_eq!(first["renewedAt"], Value::Null);
    run(&s).await;

    // Thirty-one days before the end nothing is said yet; thirty days before, the notice.
    on(&s, today, end - chrono::Days::new(31)).await;
    assert_eq!(run(&s).await.term.notices.len(), 0);
    on(&s, today, end - chrono::Days::new(30)).await;
    let noticed = run(&s).await;
    assert_eq!(noticed.term.notices.len(), 1, "{noticed:?}");
    assert_eq!(noticed.term.notices[0].kind.as_str(), "fim_vigencia");
    let subject = format!(
        "Aviso de fim de vigência: seu seguro termina em {} (proposta {identifier})",
        end.format("%d/%m/%Y")
    );
    let mails = s.app.mails_to(EMAIL, &subject).await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].text().contains("não será renovada"), "{}", mails[0].text());
    assert_eq!(run(&s).await.term.notices.len(), 0, "once");

    // On the end day the billing's run reaches ten days past it: no charge falls due there,
    // and the contract ends.
    on(&s, today, end).await;
    let ended = run(&s).await;
    assert_eq!(ended.term.ended, std::slice::from_ref(&identifier));
    assert_eq!(charges_from(&s, &identifier, end).await, 0);
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    let moves = super::billing::history_of(&s, &identifier, "status", "motivo").await;
    assert_eq!(moves.last().unwrap(), r#"null -> "FIM_DE_VIGENCIA""#, "{moves:?}");
    let charges = data["charges"].as_array().unwrap();
    assert_eq!(charges.len(), 12, "twelve periods, each due within the term");
    assert!(charges.iter().all(|c| day(&c["dueDate"]) < end), "{charges:?}");

    // Months later nothing more is made.
    on(&s, today, end + chrono::Days::new(45)).await;
    assert_eq!(run(&s).await.created, 0);
    assert_eq!(charges_from(&s, &identifier, end).await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_renewing_contract_is_noticed_then_renewed_with_a_new_term_and_certificate_and_billed_on() {
    let s = setup().await;
    let identifier = debit_contract(&s, CPF).await;
    let today = brasilia_today();
    let end = today.checked_add_months(Months::new(12)).unwrap();
    assert_eq!(term(&s, &identifier).await["renewal"], "automatica");
    run(&s).await;
    let config = TestApp::config(&s.app.db, &[]);
    api_actix::cli::deliver_certificates(&config).await.unwrap();

    on(&s, today, end - chrono::Days::new(30)).await;
    let noticed = run(&s).await;
    assert_eq!(noticed.term.notices.len(), 1, "{noticed:?}");
    let subject = format!(
        "Aviso de renovação: seu seguro será renovado em {} (proposta {identifier})",
        end.format("%d/%m/%Y")
    );
    let mails = s.app.mails_to(EMAIL, &subject).await;
    assert_eq!(mails.len(), 1);
    let next_end = end.checked_add_months(Months::new(12)).unwrap();
    assert!(
        mails[0]
            .text()
            .contains(&format!("até {}", next_end.format("%d/%m/%Y"))),
        "{}",
        mails[0].text()
    );

    // The day before the end: still the first term, and nothing due from the end on.
    on(&s, today, end - chrono::Days::new(1)).await;
    assert!(run(&s).await.term.renewed.is_empty());
    assert_eq!(charges_from(&s, &identifier, end).await, 0);

    on(&s, today, end).await;
    let renewed = run(&s).await;
    assert_eq!(renewed.term.renewed, std::slice::from_ref(&identifier));
    let second = term(&s, &identifier).await;
    assert_eq!((day(&second["start"]), day(&second["end"])), (end, next_end));
    assert!(second["renewedAt"].is_string(), "{second}");
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    let renewals = super::billing::history_of(&s, &identifier, "vigencia", "vigencia").await;
    assert_eq!(renewals, ["1 -> 2"]);

    // The next run bills the new term's first period.
    let billed = run(&s).await;
    assert_eq!(billed.created, 1);
    assert_eq!(charges_from(&s, &identifier, end).await, 1);

    // The new term's certificate: its own number, period and renewal, mailed as the first was.
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&identifier));
    let served = s
        .app
        .get(&format!("/proposal/{identifier}/certificate"), Some(&s.partner))
        .await;
    assert_eq!(served.status(), StatusCode::OK);
    let text = pdf_text(&served.bytes().await.unwrap());
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let proposal_id = data["proposal"]["id"].as_i64().unwrap();
    assert!(flat.contains(&format!("{proposal_id:08}-2")), "{flat}");
    assert!(
        flat.contains(&end.format("%d/%m/%Y").to_string()) && flat.contains(&next_end.format("%d/%m/%Y").to_string()),
        "{flat}"
    );
    assert_eq!(s.app.mails_to(EMAIL, "Seu certificado de seguro").await.len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_keeps_the_term_its_product_declared_at_the_acceptance() {
    let s = setup().await;
    s.app.sql("UPDATE products SET vigencia_meses = 24").await;
    let identifier = debit_contract(&s, CPF).await;
    // Changed after the acceptance: the contract keeps its 24 months.
    s.app
        .sql("UPDATE products SET vigencia_meses = 6, renovacao = 'nenhuma'")
        .await;
    let today = brasilia_today();
    let kept = term(&s, &identifier).await;
    assert_eq!(day(&kept["end"]), today.checked_add_months(Months::new(24)).unwrap());
    assert_eq!(kept["renewal"], "automatica");
    // Six months on, nothing is said of the end: it is a year and a half away.
    on(&s, today, today.checked_add_months(Months::new(6)).unwrap()).await;
    let run = run(&s).await;
    assert!(run.term.notices.is_empty() && run.term.ended.is_empty(), "{run:?}");
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["proposal"]["status"],
        "APROVADO"
    );
}

/// `sales-api catalog term`: a value out of the rules is named by its option and changes nothing;
/// a good one is kept and read back, and the next contract runs by it.
#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_sets_a_products_term_and_a_value_out_of_the_rules_is_named() {
    use api_actix::cli::set_product_term;
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let refused = |result: Result<domain::billing::term::TermPolicy, api_actix::cli::CliError>| {
        result.map(|p| format!("{p:?}")).unwrap_err().to_string()
    };
    for months in [0, 61] {
        let said = refused(set_product_term(&config, 101, Some(months), None).await);
        assert!(said.contains("months deve estar entre 1 e 60"), "{months}: {said}");
    }
    let said = refused(set_product_term(&config, 101, Some(12), Some("talvez")).await);
    assert!(said.contains("renewal deve ser automatica ou nenhuma"), "{said}");
    let said = refused(set_product_term(&config, 999, Some(12), None).await);
    assert!(said.contains("produto 999 não encontrado"), "{said}");
    let unchanged = set_product_term(&config, 101, None, None).await.unwrap();
    assert_eq!((unchanged.months, unchanged.renewal.as_str()), (12, "automatica"));

    let set = set_product_term(&config, 101, Some(6), Some(" nenhuma ")).await;
    let set = set.unwrap();
    assert_eq!((set.months, set.renewal.as_str()), (6, "nenhuma"));
    let read = set_product_term(&config, 101, None, None).await.unwrap();
    assert_eq!(read, set);
    let identifier = debit_contract(&s, CPF).await;
    let term = term(&s, &identifier).await;
    let today = brasilia_today();
    assert_eq!(day(&term["end"]), today.checked_add_months(Months::new(6)).unwrap());
    assert_eq!(term["renewal"], "nenhuma");
}
