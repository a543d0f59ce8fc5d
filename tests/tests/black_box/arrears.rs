//! An unpaid premium under the insurance contract law (issue 67; Lei 15.040/2024 arts. 20–21),
//! on Pix Automático contracts and the development clock: a later instalment unpaid is noticed
//! by e-mail and text message, each delivery and its receipt recorded; the cover is suspended no
//! sooner than 15 days after the receipt, a second notice tells the end ahead, and the contract
//! ends (`CANCELADO`, `INADIMPLENCIA`) no sooner than 30 days after the suspension, with no charge
//! after it; paid within the notice's days it resumes; the first instalment unpaid for good ends
//! the contract at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{Setup, days_later};
use super::pix_automatico::{charge, contract_with_a_charge_sent, sandbox, setup, txid};
use black_box_tests::TestApp;
use chrono::{Days, NaiveDate};
use serde_json::{Value, json};

const CPF: &str = "52998224725";
const EMAIL: &str = "maria@exemplo.com.br";

/// An accepted Pix contract (the payer's recurrence approved): its identifier and the Brasília
/// day it was accepted (the sandbox clock's day 0).
async fn accepted_pix_contract(s: &Setup) -> (String, NaiveDate) {
    let (identifier, _) = contract_with_a_charge_sent(s, CPF).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    // The first charge falls due 10 days after the acceptance (the product's policy).
    let start = due_of(&charge(&data, 1)) - Days::new(10);
    (identifier, start)
}

/// The billing's run (with its arrears pass) and Pix Automático's, as every instance makes them.
pub(super) async fn run(s: &Setup) -> domain::billing::service::BillingRun {
    let config = TestApp::config(&s.app.db, &[]);
    let run = api_actix::cli::run_billing(&config).await.unwrap();
    api_actix::cli::run_pix(&config).await.unwrap();
    run
}

/// The sandbox clock on `day`, counted from the acceptance's day.
pub(super) async fn on(s: &Setup, start: NaiveDate, day: NaiveDate) {
    days_later(s, (day - start).num_days()).await;
}

fn due_of(charge: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(charge["dueDate"].as_str().unwrap(), "%Y-%m-%d").unwrap()
}

/// The contract's notices as `kind: channel status, …` lines, oldest first, with whether each
/// has its receipt (or frustration) recorded.
pub(super) async fn notices(s: &Setup) -> Vec<String> {
    let text = s
        .app
        .text(
            "SELECT coalesce(string_agg(line, ' | ' ORDER BY id), '') AS line FROM ( \
                 SELECT n.id, n.tipo || ' ' || coalesce(n.periodo::text, '-') || ': ' || \
                     (SELECT string_agg(d.canal || ' ' || d.status || ' ' || d.destino, ', ' ORDER BY d.canal) \
                      FROM billing_notice_deliveries d WHERE d.id_aviso = n.id) || \
                     CASE WHEN n.recebido_em IS NOT NULL THEN ' (recebido)' ELSE '' END || \
                     CASE WHEN n.fechado_em IS NOT NULL THEN ' (fechado)' ELSE '' END AS line \
                 FROM billing_notices n) notices",
        )
        .await;
    text.split(" | ").filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

pub(super) async fn billing_status(s: &Setup, identifier: &str) -> String {
    s.app.proposal_data(identifier, &s.partner).await["billing"]["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A contract whose second charge is sent and refused by the payer's bank, the first paid.
pub(super) async fn second_charge_refused(s: &Setup) -> (String, NaiveDate, NaiveDate, String) {
    let (identifier, start) = accepted_pix_contract(s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    sandbox(s, &format!("cobr/{}/pay", txid(&data, 1))).await;
    days_later(s, 31).await;
    run(s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let second = txid(&data, 2);
    sandbox(s, &format!("cobr/{second}/fail")).await;
    let due = due_of(&charge(&s.app.proposal_data(&identifier, &s.partner).await, 2));
    (identifier, start, due, second)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_later_instalment_unpaid_is_noticed_suspended_fifteen_days_after_the_receipt_and_ended_thirty_after() {
    let s = setup().await;
    let (identifier, start, due, _) = second_charge_refused(&s).await;

    // No run between the due date and 20 days after it: late now, and noticed now.
    on(&s, start, due + Days::new(20)).await;
    let late = run(&s).await;
    assert_eq!(late.moved.len(), 1, "{late:?}");
    assert_eq!(late.moved[0].to, domain::billing::BillingStatus::Late);
    assert_eq!(late.arrears.notices.len(), 1, "{late:?}");
    assert_eq!(billing_status(&s, &identifier).await, "em_atraso");
    assert_eq!(
        notices(&s).await,
        ["atraso 2: email entregue m***@exemplo.com.br, sms entregue (11) *****-5678 (recebido)"]
    );
    let subject = format!("Aviso de atraso: proposta {identifier}");
    let mails = s.app.mails_to(EMAIL, &subject).await;
    assert_eq!(mails.len(), 1, "one notice");
    let text = mails[0].text();
    // The certificate's number as stored at the acceptance and shown on route 7 (decision 281;
    // decision 267's derived `{code}-{year}-{id}` before).
    let number = s.app.proposal_data(&identifier, &s.office).await["certificate"]["number"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains(&format!("certificado nº {number}")),
        "the certificate's number: {text}"
    );
    assert!(
        text.contains(&identifier)
            && text.contains("15 dias, contados do recebimento deste aviso")
            && text.contains("a cobertura do seguro será suspensa")
            && text.contains(&format!("sinistros ocorridos a partir de {}", due.format("%d/%m/%Y"))),
        "{text}"
    );
    assert_eq!(run(&s).await.arrears.notices.len(), 0, "noticed once");

    // Thirty days past due, but 10 since the receipt: not suspended.
    on(&s, start, due + Days::new(30)).await;
    assert_eq!(run(&s).await.moved, []);
    on(&s, start, due + Days::new(34)).await;
    run(&s).await;
    assert_eq!(
        billing_status(&s, &identifier).await,
        "em_atraso",
        "14 days after the receipt"
    );

    // Fifteen days after the receipt: suspended, and the end's notice sent.
    on(&s, start, due + Days::new(35)).await;
    let suspended = run(&s).await;
    assert_eq!(suspended.moved[0].to, domain::billing::BillingStatus::Suspended);
    assert_eq!(billing_status(&s, &identifier).await, "suspenso");
    let ends_on = due + Days::new(65);
    let warning = format!(
        "Aviso de atraso: seu seguro será cancelado em {} (proposta {identifier})",
        ends_on.format("%d/%m/%Y")
    );
    assert_eq!(s.app.mails_to(EMAIL, &warning).await.len(), 1);
    assert_eq!(notices(&s).await.len(), 2);
    assert!(notices(&s).await[1].starts_with("aviso_encerramento 2: email entregue"));

    // 29 days after the suspension: still running; 30: ended for the unpaid premium.
    on(&s, start, due + Days::new(64)).await;
    assert_eq!(run(&s).await.arrears.ended, Vec::<String>::new());
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["proposal"]["status"],
        "APROVADO"
    );
    on(&s, start, ends_on).await;
    let ended = run(&s).await;
    assert_eq!(ended.arrears.ended, std::slice::from_ref(&identifier));
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    let moves = super::billing::history_of(&s, &identifier, "status", "motivo").await;
    assert_eq!(moves.last().unwrap(), r#"null -> "INADIMPLENCIA""#, "{moves:?}");
    let ended_mail = format!("Seu seguro foi cancelado por falta de pagamento (proposta {identifier})");
    assert_eq!(s.app.mails_to(EMAIL, &ended_mail).await.len(), 1);
    assert_eq!(
        data["payment"]["pixAutomatico"]["status"], "CANCELADA",
        "the PSP collects no more"
    );
    let charges = data["charges"].as_array().unwrap().clone();
    assert!(
        charges
            .iter()
            .all(|c| c["status"] == "paga" || c["status"] == "cancelada"),
        "{charges:?}"
    );
    assert_eq!(
        super::billing::history_of(&s, &identifier, "aviso_cobranca", "aviso").await,
        [
            r#"null -> "atraso""#,
            r#"null -> "aviso_encerramento""#,
            r#"null -> "encerramento""#
        ]
    );

    // No charge after the end, however long on.
    on(&s, start, due + Days::new(120)).await;
    let later = run(&s).await;
    assert_eq!((later.created, later.moved.len()), (0, 0));
    assert_eq!(
        s.app.proposal_data(&identifier, &s.office).await["charges"]
            .as_array()
            .unwrap()
            .len(),
        charges.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_paid_within_the_notices_days_resumes_and_a_later_arrears_is_noticed_again() {
    let s = setup().await;
    let (identifier, start, due, second) = second_charge_refused(&s).await;
    on(&s, start, due + Days::new(6)).await;
    run(&s).await;
    assert_eq!(billing_status(&s, &identifier).await, "em_atraso");
    assert_eq!(notices(&s).await.len(), 1);

    // Tried again by the PSP and paid ten days after the notice: up to date, the notice closed.
    on(&s, start, due + Days::new(16)).await;
    run(&s).await;
    sandbox(&s, &format!("cobr/{second}/pay")).await;
    assert_eq!(billing_status(&s, &identifier).await, "em_dia");
    assert!(notices(&s).await[0].ends_with("(fechado)"), "{:?}", notices(&s).await);
    on(&s, start, due + Days::new(30)).await;
    run(&s).await;
    assert_eq!(billing_status(&s, &identifier).await, "em_dia", "nothing left unpaid");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_instalment_unpaid_for_good_ends_the_contract() {
    let s = setup().await;
    let (identifier, start) = accepted_pix_contract(&s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let first = txid(&data, 1);
    let due = due_of(&charge(&data, 1));

    // Refused by the payer's bank on the due date and on each retry (1, 3 and 5 days after it).
    sandbox(&s, &format!("cobr/{first}/fail")).await;
    for retry in [1, 3, 5] {
        on(&s, start, due + Days::new(retry)).await;
        let pass = run(&s).await;
        assert_eq!(pass.arrears.ended, Vec::<String>::new(), "retry {retry} pending");
        sandbox(&s, &format!("cobr/{first}/fail")).await;
    }
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(charge(&data, 1)["status"], "falhou");
    assert!(charge(&data, 1)["nextAttempt"].is_null(), "no retry left");

    let ended = run(&s).await;
    assert_eq!(ended.arrears.ended, std::slice::from_ref(&identifier));
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    assert_eq!(data["refunds"], json!([]), "nothing was paid, nothing goes back");
    let subject = format!("Seu seguro foi cancelado por falta de pagamento (proposta {identifier})");
    let mails = s.app.mails_to(EMAIL, &subject).await;
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text().contains("Nada mais será cobrado"),
        "{}",
        mails[0].text()
    );
    assert_eq!(notices(&s).await.len(), 1, "{:?}", notices(&s).await);
    assert!(notices(&s).await[0].starts_with("encerramento 1: email entregue"));
}

/// Lei 15.040/2024 art. 21 §2 (decision 272): a collective life product's policyholder gets a
/// copy of each notice, and a suspended contract ends no sooner than 90 days after the last one.
#[tokio::test(flavor = "multi_thread")]
async fn a_collective_life_contract_is_noticed_to_its_policyholder_and_ends_ninety_days_after_its_last_notice() {
    use api_actix::cli::{CollectiveLife, set_product_collective};
    const POLICYHOLDER: &str = "estipulante@associacao.org.br";
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let refused = set_product_collective(
        &config,
        101,
        CollectiveLife::Collective {
            policyholder: "  ".into(),
            email: "nao-e-email".into(),
        },
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("policyholder: informe o nome do estipulante")
            && refused.contains("policyholderEmail: nao-e-email não é um e-mail válido"),
        "{refused}"
    );
    assert_eq!(
        set_product_collective(&config, 101, CollectiveLife::Show)
            .await
            .unwrap(),
        None
    );
    set_product_collective(
        &config,
        101,
        CollectiveLife::Collective {
            policyholder: "Associação Nacional dos Segurados".into(),
            email: POLICYHOLDER.into(),
        },
    )
    .await
    .unwrap();
    let (identifier, start, due, _) = second_charge_refused(&s).await;

    on(&s, start, due + Days::new(20)).await;
    run(&s).await;
    let copy = format!("Aviso ao estipulante: segurado em atraso (proposta {identifier})");
    let mails = s.app.mails_to(POLICYHOLDER, &copy).await;
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0]
            .text()
            .contains("Prezados(as), Associação Nacional dos Segurados")
    );

    // Suspended 15 days after the receipt: the end is 90 days after the policyholder's copy of
    // the end's notice, not 30 after the suspension.
    on(&s, start, due + Days::new(35)).await;
    run(&s).await;
    assert_eq!(billing_status(&s, &identifier).await, "suspenso");
    let ends_on = (due + Days::new(125)).format("%d/%m/%Y");
    let warning = format!("Aviso de atraso: seu seguro será cancelado em {ends_on} (proposta {identifier})");
    assert_eq!(s.app.mails_to(EMAIL, &warning).await.len(), 1);
    let copy = format!("Aviso ao estipulante: seguro será cancelado em {ends_on} (proposta {identifier})");
    assert_eq!(s.app.mails_to(POLICYHOLDER, &copy).await.len(), 1);
    assert_eq!(
        s.app
            .text(
                "SELECT string_agg(tipo || ' ' || estipulante_destino, ', ' ORDER BY id) AS line FROM billing_notices"
            )
            .await,
        "atraso e***@associacao.org.br, aviso_encerramento e***@associacao.org.br"
    );
    for day in [65, 124] {
        on(&s, start, due + Days::new(day)).await;
        assert_eq!(run(&s).await.arrears.ended, Vec::<String>::new(), "day {day}");
    }
    on(&s, start, due + Days::new(125)).await;
    assert_eq!(run(&s).await.arrears.ended, std::slice::from_ref(&identifier));
    assert_eq!(
        s.app.proposal_data(&identifier, &s.office).await["proposal"]["status"],
        "CANCELADO"
    );
}
