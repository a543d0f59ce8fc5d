//! What a contract's life tells its partners besides its charges (issue 67, decision 273), on the
//! development clock: each notice to the customer as `AVISO_REGISTRADO`, once when sent and again
//! when its receipt is learned later (a text message's report: the law's 15 days count from it,
//! art. 20 §2, and the timeline shows it), and the term's renewal as `VIGENCIA_RENOVADA`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::arrears::{billing_status, notices, on, run, second_charge_refused};
use super::legal_hold::Setup;
use black_box_tests::TestApp;
use chrono::{Days, Months, NaiveDate};
use serde_json::{Value, json};

const CPF: &str = "52998224725";
const HOOKS_ON_THIS_MACHINE: (&str, &str) = ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8");

/// The partner subscribed to its contracts' notices and renewals.
async fn subscribed(s: &Setup) -> wiremock::MockServer {
    s.app
        .subscribed_receiver(&s.partner, &["AVISO_REGISTRADO", "VIGENCIA_RENOVADA"])
        .await
}

/// The data of the events of `kind` queued, in their sequence.
async fn told(s: &Setup, kind: &str) -> Vec<Value> {
    let bodies = s
        .app
        .text(&format!(
            "SELECT coalesce(jsonb_agg(body::jsonb -> 'data' ORDER BY (body::jsonb -> 'data' ->> 'sequence')::int), '[]')::text AS line \
             FROM hook_deliveries WHERE event_type = '{kind}'"
        ))
        .await;
    serde_json::from_str::<Vec<Value>>(&bodies).unwrap()
}

/// The customer reachable by text message alone, on a number whose carrier reports later (the
/// sandbox's numbers ending in 1111).
async fn text_message_only(s: &Setup, identifier: &str) {
    s.app
        .sql(&format!(
            "UPDATE proposal_customers SET email = NULL, celular = '(11) 91234-1111' \
             WHERE id_proposta = (SELECT id FROM proposals WHERE identificador = '{identifier}')"
        ))
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notice_received_later_counts_its_days_from_the_receipt_and_partners_are_told_its_sending_and_receipt() {
    let s = super::pix_automatico::setup_with(&[HOOKS_ON_THIS_MACHINE]).await;
    let _receiver = subscribed(&s).await;
    let (identifier, start, due, _) = second_charge_refused(&s).await;

    text_message_only(&s, &identifier).await;

    on(&s, start, due + Days::new(20)).await;
    assert_eq!(run(&s).await.arrears.notices.len(), 1);
    assert_eq!(notices(&s).await, ["atraso 2: sms enviado (11) *****-1111"]);
    let sent = told(&s, "AVISO_REGISTRADO").await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["identificador"], identifier.as_str());
    let notice = &sent[0];
    assert_eq!(
        (
            &notice["tipo"],
            &notice["periodo"],
            &notice["recebidoEm"],
            &notice["frustradoEm"]
        ),
        (&json!("atraso"), &json!(2), &Value::Null, &Value::Null)
    );
    assert_eq!(notice["canais"], json!([{"canal": "sms", "status": "enviado"}]));
    assert!(notice["enviadoEm"].is_string());
    assert_eq!(
        super::billing::history_of(&s, &identifier, "aviso_recebimento", "aviso").await,
        Vec::<String>::new(),
        "not received yet"
    );

    // Ten days on, the carrier's report: received today, told once, and on the timeline.
    on(&s, start, due + Days::new(30)).await;
    assert_eq!(run(&s).await.arrears.receipts, 1);
    assert_eq!(notices(&s).await, ["atraso 2: sms entregue (11) *****-1111 (recebido)"]);
    let received = told(&s, "AVISO_REGISTRADO").await;
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[1]["canais"], json!([{"canal": "sms", "status": "entregue"}]));
    assert!(received[1]["recebidoEm"].is_string(), "{received:?}");
    assert_eq!(received[1]["enviadoEm"], received[0]["enviadoEm"], "the same notice");
    assert!(received[1]["sequence"].as_i64() > received[0]["sequence"].as_i64());
    assert_eq!(
        super::billing::history_of(&s, &identifier, "aviso_recebimento", "aviso").await,
        [r#"null -> "atraso""#]
    );
    run(&s).await;
    assert_eq!(told(&s, "AVISO_REGISTRADO").await.len(), 2, "a receipt is told once");

    // Fifteen days after the sending it would have been suspended; it counts from the receipt.
    on(&s, start, due + Days::new(44)).await;
    run(&s).await;
    assert_eq!(
        billing_status(&s, &identifier).await,
        "em_atraso",
        "14 days after the receipt"
    );
    on(&s, start, due + Days::new(45)).await;
    run(&s).await;
    assert_eq!(billing_status(&s, &identifier).await, "suspenso");
    let warned = told(&s, "AVISO_REGISTRADO").await;
    assert_eq!(warned.last().unwrap()["tipo"], "aviso_encerramento", "{warned:?}");
}

fn brasilia_today() -> NaiveDate {
    chrono::Utc::now()
        .with_timezone(&domain::contract::formats::brasilia())
        .date_naive()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_renewal_is_told_to_partners_with_the_new_term_and_its_notice_before_it() {
    let s = super::legal_hold::setup_with(&[HOOKS_ON_THIS_MACHINE]).await;
    let _receiver = subscribed(&s).await;
    let identifier = super::debits::debit_contract(&s, CPF).await;
    let today = brasilia_today();
    let end = today.checked_add_months(Months::new(12)).unwrap();
    let config = TestApp::config(&s.app.db, &[]);
    api_actix::cli::run_billing(&config).await.unwrap();

    on(&s, today, end - Days::new(30)).await;
    api_actix::cli::run_billing(&config).await.unwrap();
    let noticed = told(&s, "AVISO_REGISTRADO").await;
    assert_eq!(noticed.len(), 1, "{noticed:?}");
    assert_eq!(noticed[0]["tipo"], "renovacao");
    assert_eq!(noticed[0]["identificador"], identifier.as_str());
    assert!(noticed[0]["recebidoEm"].is_string(), "the e-mail taken at once");
    assert_eq!(told(&s, "VIGENCIA_RENOVADA").await, Vec::<Value>::new());

    on(&s, today, end).await;
    api_actix::cli::run_billing(&config).await.unwrap();
    let renewed = told(&s, "VIGENCIA_RENOVADA").await;
    assert_eq!(renewed.len(), 1, "{renewed:?}");
    let next_end = end.checked_add_months(Months::new(12)).unwrap();
    let term = &renewed[0];
    assert_eq!(term["identificador"], identifier.as_str());
    assert_eq!(
        (&term["vigencia"], &term["inicio"], &term["fim"], &term["renovacao"]),
        (
            &json!(2),
            &json!(end.to_string()),
            &json!(next_end.to_string()),
            &json!("automatica")
        )
    );
    assert!(term["renovadaEm"].is_string());
    // Route 7 shows the same term.
    let shown = s.app.proposal_data(&identifier, &s.partner).await["acceptance"]["term"].clone();
    assert_eq!((&shown["start"], &shown["end"]), (&term["inicio"], &term["fim"]));
    api_actix::cli::run_billing(&config).await.unwrap();
    assert_eq!(told(&s, "VIGENCIA_RENOVADA").await.len(), 1, "renewed once");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_timeline_shows_a_notice_received_after_it_was_sent() {
    use super::console::{photograph, sign_in, wait_for_text};
    use fantoccini::Locator;

    let s = super::pix_automatico::setup().await;
    let (identifier, start, due, _) = second_charge_refused(&s).await;
    text_message_only(&s, &identifier).await;
    on(&s, start, due + Days::new(20)).await;
    run(&s).await;
    on(&s, start, due + Days::new(23)).await;
    assert_eq!(run(&s).await.arrears.receipts, 1);

    let (_driver, browser) = black_box_tests::browser::start_browser().await;
    sign_in(&browser, &s.app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("APROVADO")).await;
    black_box_tests::browser::click(
        &browser,
        Locator::Css(&format!("button.open[data-identifier='{identifier}']")),
    )
    .await;
    let timeline = wait_for_text(&browser, "#timeline", |t| t.contains("Recebimento do aviso")).await;
    let sent = timeline.find("Aviso ao cliente").expect("the notice's sending");
    let received = timeline.find("Recebimento do aviso (ou entrega frustrada)").unwrap();
    assert!(timeline[received..].contains("recebido_em"), "{timeline}");
    assert!(
        timeline[sent..].contains("sms enviado"),
        "the sending before its receipt was known: {timeline}"
    );
    browser
        .execute(
            "document.querySelector('#timeline li.a-aviso_recebimento').scrollIntoView({block: 'center'})",
            vec![],
        )
        .await
        .unwrap();
    photograph(&browser, "aviso-recebido").await;
}
