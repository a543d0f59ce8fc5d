//! The contract's ends that return money (issue 45): the refusal (`REPROVADO`) returns every
//! amount paid, corrected by the IPCA pro rata die (the sandbox index: 0,40 % a month, the
//! current month projected), the card's part by the platform and the rest recorded for the
//! finance team; a cancellation after the sale (`EM ANÁLISE` or `APROVADO`, past the right of
//! regret) returns the unused days of the period paid, under a protocol. The customer is told by
//! e-mail, read here from the service's mail folder. The days are lived through with the
//! sandbox's clock.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::WEBHOOK_SECRET;
use super::subscriptions::paid_sale;
use black_box_tests::{StatusCode, TestApp, assert_error, error_fields};
use chrono::{Days, FixedOffset, Months, NaiveDate, Utc};
use domain::refunds::service::RefundsError;
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const JUSTIFIED: &str = "Declaração de saúde incompatível com as condições do produto";

pub(super) async fn decide(app: &TestApp, office: &str, identifier: &str, body: Value) -> reqwest::Response {
    app.client
        .patch(app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(office)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn cancel(app: &TestApp, token: &str, identifier: &str, reason: &str) -> reqwest::Response {
    app.post_json_as(
        &format!("/proposal/{identifier}/cancel"),
        token,
        &json!({"reason": reason}),
    )
    .await
}

/// Moves the shared clock `days` ahead of today.
pub(super) async fn days_later(app: &TestApp, days: i64) {
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": days})).await;
    assert_eq!(moved.status(), StatusCode::OK);
}

/// Today in Brasília, `days` ahead.
pub(super) fn brasilia_day(days: u64) -> NaiveDate {
    (Utc::now() + Days::new(days))
        .with_timezone(&FixedOffset::west_opt(3 * 3600).unwrap())
        .date_naive()
}

/// The factor a correction recorded, in hundred-millionths.
fn factor_of(correction: &Value) -> i64 {
    let text = correction["factor"].as_str().unwrap();
    let (whole, fraction) = text.split_once('.').unwrap();
    assert_eq!(fraction.len(), 8, "{text}");
    whole.parse::<i64>().unwrap() * 100_000_000 + fraction.parse::<i64>().unwrap()
}

/// `cents` corrected by a factor in hundred-millionths, half up.
fn corrected(cents: i64, factor: i64) -> i64 {
    (cents * factor + 50_000_000) / 100_000_000
}

/// A partner's proposal of demo product 101 (R$ 49,90 a month by payroll discount), sent and
/// signed by every party: in analysis.
pub(super) async fn signed_partner_sale(app: &TestApp, partner: &str, office: &str, cpf: &str) -> String {
    let identifier = app.sent_proposal(partner, cpf).await;
    app.sign_as_every_party(office, &identifier).await;
    identifier
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_needs_its_justification_returns_the_card_payment_corrected_and_tells_the_customer() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, subscription) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;

    for (reason, code) in [
        (json!(null), "campo_obrigatorio"),
        (json!("   "), "campo_obrigatorio"),
        (json!("Não pode"), "texto_curto"),
        (json!("x".repeat(501)), "texto_longo"),
    ] {
        let refused = assert_error(
            decide(
                &app,
                &office,
                &identifier,
                json!({"status": "REPROVADO", "reason": reason}),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&refused), ["reason"], "{reason}");
        assert_eq!(refused["errors"][0]["code"], code, "{reason}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 0);

    // Sixteen days after the payment the insurer refuses.
    days_later(&app, 16).await;
    let refused = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "REPROVADO", "reason": JUSTIFIED}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let event = refused.json::<Value>().await.unwrap()["document"][0].clone();
    assert_eq!(event["status"], "REPROVADO");
    assert_eq!(event["reason"], JUSTIFIED);

    let data = app.proposal_data(&identifier, &shop).await;
    assert_eq!(data["proposal"]["status"], "REPROVADO");
    assert_eq!(data["subscription"]["id"], subscription.as_str());
    assert_eq!(data["subscription"]["status"], "canceled", "no further charge");
    let refunds = data["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 2, "{data}");
    // The card gets back what it was charged; the correction above it is the finance team's.
    let (card, to_pay) = (&refunds[0], &refunds[1]);
    assert!(card["id"].as_str().unwrap().starts_with("re_"), "{card}");
    assert_eq!(card["amount"], 3990);
    assert_eq!(card["status"], "succeeded");
    assert!(to_pay["id"].as_str().unwrap().starts_with("ap_"), "{to_pay}");
    assert_eq!(to_pay["status"], "a_pagar");
    for refund in refunds {
        assert_eq!(refund["reason"], "RECUSA");
        let correction = &refund["correction"];
        assert_eq!(correction["index"], "IPCA");
        assert_eq!(correction["from"], brasilia_day(0).to_string());
        assert_eq!(correction["to"], brasilia_day(16).to_string());
        let months = correction["months"].as_array().unwrap();
        let days: u64 = months.iter().map(|m| m["days"].as_u64().unwrap()).sum();
        assert_eq!(
            days, 16,
            "every day of the period in one month or another: {correction}"
        );
        assert!(months.iter().all(|m| m["rate"] == "0.40"), "{correction}");
        assert_eq!(
            months.last().unwrap()["projected"],
            true,
            "the current month is not published yet"
        );
    }
    let factor = factor_of(&card["correction"]);
    assert!(factor > 100_000_000, "sixteen days of inflation: {factor}");
    let owed = corrected(3990, factor);
    assert_eq!(to_pay["amount"].as_i64().unwrap(), owed - 3990);
    assert_eq!(to_pay["correction"]["amount"], owed - 3990);
    assert_eq!(card["correction"]["amount"], 0);
    // Every refund at the platform is recorded, and nothing more was refunded there.
    assert_eq!(
        app.count("SELECT count(*) AS n FROM sandbox_payment_objects WHERE kind = 'refund'")
            .await,
        1
    );

    // The customer reads the justification and what goes back.
    let mails = app.mails_to("joao@exemplo.com.br", "Sua proposta não foi aceita").await;
    assert_eq!(mails.len(), 1);
    let text = mails[0].text();
    assert!(text.contains(JUSTIFIED), "{text}");
    assert!(text.contains("R$ 39,90 devolvidos no cartão"), "{text}");
    assert!(text.contains(&domain::contract::formats::reais(owed - 3990)), "{text}");

    // The export lists both refunds with their reason and correction.
    let export: Value = app
        .get("/privacy/customers/52998224725", Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let exported = export["data"]["propostas"][0]["reembolsos"].as_array().unwrap();
    assert_eq!(exported.len(), 2);
    assert!(
        exported
            .iter()
            .all(|r| r["motivo"] == "RECUSA" && r["correcao"]["index"] == "IPCA")
    );
    assert_eq!(exported[1]["meio"], "a_pagar");

    // Decided: refusing again names both states.
    assert_error(
        decide(
            &app,
            &office,
            &identifier,
            json!({"status": "REPROVADO", "reason": JUSTIFIED}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "transicao_invalida",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partners_refusal_before_any_collection_returns_nothing() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = signed_partner_sale(&app, &partner, &office, "52998224725").await;
    days_later(&app, 3).await;
    let refused = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "REPROVADO", "reason": JUSTIFIED}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);

    // A partner's sale is billed from its acceptance: refused in analysis, nothing was ever
    // received, so nothing goes back (until 2026-12-05 a premium was taken as collected).
    let refunds = app.proposal_data(&identifier, &partner).await["refunds"].clone();
    assert!(refunds.is_null() || refunds == json!([]), "{refunds}");
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 0);
    let finance = api_actix::cli::refunds_of(&TestApp::config(&app.db, &[])).unwrap();
    assert!(finance.pending().await.unwrap().is_empty());

    let mails = app
        .mails_to("maria@exemplo.com.br", "Sua proposta não foi aceita")
        .await;
    assert_eq!(mails.len(), 1);
    let text = mails[0].text();
    assert!(text.contains(JUSTIFIED), "{text}");
    assert!(!text.contains("a pagar por transferência"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn within_the_regret_a_cancellation_is_refused_and_after_it_the_unused_days_return_under_a_protocol() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET)]).await;
    let (shop, identifier, _) = paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let other_seller = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;

    let refused = assert_error(
        cancel(&app, &shop, &identifier, "Cliente não quer mais").await,
        StatusCode::CONFLICT,
        "cancelamento_nao_permitido",
    )
    .await;
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("EM ANÁLISE") && message.contains("/withdraw"),
        "{message}"
    );
    assert!(
        message.contains(&brasilia_day(7).format("%d/%m/%Y").to_string()),
        "{message}"
    );
    assert_eq!(app.count("SELECT count(*) AS n FROM customer_requests").await, 0);

    days_later(&app, 10).await;
    assert_error(
        cancel(&app, &other_seller, &identifier, "Cliente não quer mais").await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    let cancelled = cancel(&app, &shop, &identifier, "Cliente não quer mais").await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let data = cancelled.json::<Value>().await.unwrap()["data"].clone();
    assert_eq!(data["status"], "CANCELADO");
    assert_eq!(data["previousStatus"], "EM ANÁLISE");
    let protocol = data["protocol"].as_str().unwrap().to_owned();

    let detail = app.proposal_data(&identifier, &shop).await;
    assert_eq!(detail["proposal"]["status"], "CANCELADO");
    assert_eq!(detail["subscription"]["status"], "canceled");
    let refunds = detail["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{detail}");
    let refund = &refunds[0];
    assert_eq!(refund["reason"], "CANCELAMENTO");
    assert_eq!(refund["status"], "succeeded");
    // The month paid on day 0, cancelled on day 10: the days left of it, pro rata, corrected.
    let (paid, today) = (brasilia_day(0), brasilia_day(10));
    let period_end = paid.checked_add_months(Months::new(1)).unwrap();
    let unused = (period_end - today).num_days();
    let period = (period_end - paid).num_days();
    let nominal = 3990 * unused / period;
    let factor = factor_of(&refund["correction"]);
    assert_eq!(
        refund["amount"].as_i64().unwrap(),
        corrected(nominal, factor),
        "{refund}"
    );
    assert_eq!(
        refund["correction"]["amount"].as_i64().unwrap(),
        corrected(nominal, factor) - nominal
    );

    let mails = app
        .mails_to("joao@exemplo.com.br", "Cancelamento do seu seguro confirmado")
        .await;
    assert_eq!(mails.len(), 1);
    let text = mails[0].text();
    assert!(text.contains(&format!("Protocolo: {protocol}")), "{text}");
    assert!(text.contains("Cliente não quer mais"), "{text}");
}

/// The employer's report of payroll discounts (`sales-api charges mark-paid`): each line
/// `identifier;MM/YYYY;reais;DD/MM/YYYY`.
pub(super) async fn employer_reports(app: &TestApp, lines: &[String]) -> domain::billing::service::DiscountSummary {
    let text = format!("identificador;competencia;valor;data_desconto\n{}\n", lines.join("\n"));
    api_actix::cli::record_discounts(&TestApp::config(&app.db, &[]), &text)
        .await
        .unwrap()
}

/// The billing's run once (`sales-api charges run`).
pub(super) async fn billing_run(app: &TestApp) {
    api_actix::cli::run_billing(&TestApp::config(&app.db, &[]))
        .await
        .unwrap();
}

fn day_of(value: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(value.as_str().unwrap(), "%Y-%m-%d").unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_contract_is_cancelled_at_any_time_returning_the_rest_of_the_month_being_paid() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = signed_partner_sale(&app, &partner, &office, "52998224725").await;
    let approved = decide(
        &app,
        &office,
        &identifier,
        json!({"status": "APROVADO", "reason": "Conferida"}),
    )
    .await;
    assert_eq!(approved.status(), StatusCode::OK);

    // The employer discounts the first two months; the third charge is made and left open.
    billing_run(&app).await;
    days_later(&app, 40).await;
    billing_run(&app).await;
    let charges = app.proposal_data(&identifier, &partner).await["charges"].clone();
    let dues: Vec<NaiveDate> = charges
        .as_array()
        .unwrap()
        .iter()
        .map(|c| day_of(&c["dueDate"]))
        .collect();
    assert_eq!(dues.len(), 2, "{charges}");
    let lines: Vec<String> = dues
        .iter()
        .map(|due| {
            format!(
                "{identifier};{};49,90;{}",
                due.format("%m/%Y"),
                brasilia_day(40).min(*due).format("%d/%m/%Y")
            )
        })
        .collect();
    assert_eq!(employer_reports(&app, &lines).await.paid, 2);
    // Into the second period, on the day the third charge is made (10 days before it falls due).
    let third_due = dues[1].checked_add_months(Months::new(1)).unwrap();
    let cancelled_on = (third_due - Days::new(10) - brasilia_day(0)).num_days();
    days_later(&app, cancelled_on).await;
    billing_run(&app).await;
    let cancelled = cancel(&app, &partner, &identifier, "Cliente mudou de emprego").await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    assert_eq!(
        cancelled.json::<Value>().await.unwrap()["data"]["previousStatus"],
        "APROVADO"
    );
    // Each period paid returns its days from today (from its start, if later) to its end, pro
    // rata, corrected, to be paid by the finance team; a period over returns nothing, and the
    // open charge, never paid, returns nothing and is cancelled.
    let today = brasilia_day(cancelled_on as u64);
    let expected: Vec<(NaiveDate, i64)> = dues
        .iter()
        .map(|start| {
            let end = start.checked_add_months(Months::new(1)).unwrap();
            let unused = (end - today.max(*start)).num_days().clamp(0, (end - *start).num_days());
            (*start, 4990 * unused / (end - *start).num_days())
        })
        .filter(|(_, nominal)| *nominal > 0)
        .collect();
    assert_eq!(
        expected.len(),
        1,
        "the day falls within the second period paid: {expected:?}"
    );
    let data = app.proposal_data(&identifier, &partner).await;
    let refunds = data["refunds"].as_array().unwrap();
    let returned: Vec<i64> = refunds
        .iter()
        .map(|r| {
            assert_eq!(r["reason"], "CANCELAMENTO");
            assert_eq!(r["status"], "a_pagar");
            let nominal = r["amount"].as_i64().unwrap() - r["correction"]["amount"].as_i64().unwrap();
            assert_eq!(
                r["amount"].as_i64().unwrap(),
                corrected(nominal, factor_of(&r["correction"]))
            );
            nominal
        })
        .collect();
    assert_eq!(
        returned,
        expected.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        "{refunds:?}"
    );
    let statuses: Vec<&str> = data["charges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["paga", "paga", "cancelada"]);

    // The finance team pays each with the bank's reference, once.
    let config = TestApp::config(&app.db, &[]);
    let finance = api_actix::cli::refunds_of(&config).unwrap();
    let pending = finance.pending().await.unwrap();
    assert_eq!(pending.len(), expected.len());
    assert_eq!(pending[0].identifier, identifier);
    let id = pending[0].refund.id.clone();
    assert_eq!(
        finance.mark_paid(&id, "  ", "financeiro").await,
        Err(RefundsError::Reference)
    );
    assert!(matches!(
        finance.mark_paid("ap_desconhecido", "TED 1", "financeiro").await,
        Err(RefundsError::NotFound(_))
    ));
    finance
        .mark_paid(&id, "E0000000020261128123456789012345", "financeiro")
        .await
        .unwrap();
    assert!(matches!(
        finance.mark_paid(&id, "TED 2", "financeiro").await,
        Err(RefundsError::AlreadyPaid { reference, .. }) if reference == "E0000000020261128123456789012345"
    ));
    assert_eq!(finance.pending().await.unwrap().len(), expected.len() - 1);
    let paid = app.proposal_data(&identifier, &office).await["refunds"][0].clone();
    assert_eq!(paid["status"], "pago");
    let mails = app
        .mails_to("maria@exemplo.com.br", "Cancelamento do seu seguro confirmado")
        .await;
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text().contains("a pagar por transferência"),
        "{}",
        mails[0].text()
    );

    // Finished: nothing left to cancel.
    let again = assert_error(
        cancel(&app, &partner, &identifier, "De novo").await,
        StatusCode::CONFLICT,
        "cancelamento_nao_permitido",
    )
    .await;
    assert!(again["message"].as_str().unwrap().contains("CANCELADO"), "{again}");
}
