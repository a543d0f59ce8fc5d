//! A refund to pay (issue 65) has a due date (`REFUND_DUE_DAYS` after its day), a destination the
//! seller or the back office records (`PUT /proposal/{identificador}/refund-destination`: the
//! customer's Pix key or account, the customer told by e-mail), and, paid after its due date, the
//! delay corrected by the IPCA and recorded paid with it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ledger::approved_payroll_contract;
use super::settlements::{billing_run, brasilia_day, days_later, employer_reports};
use black_box_tests::{StatusCode, TestApp, assert_error};
use chrono::{Days, Months, NaiveDate};
use domain::refunds::service::RefundsError;
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CUSTOMER_CPF: &str = "52998224725";

/// A payroll contract of demo product 101 (R$ 49,90 a month) with its first premium discounted
/// and its second charge made and left unpaid, cancelled 10 days before the second falls due (as
/// the ledger's test does): the unused days of the period paid are a refund to pay. Answers the
/// proposal and how many days ahead of today it was cancelled.
async fn cancelled_with_a_refund_to_pay(app: &TestApp, partner: &str, office: &str) -> (String, i64) {
    let identifier = approved_payroll_contract(app, partner, office, CUSTOMER_CPF).await;
    billing_run(app).await;
    let data = app.proposal_data(&identifier, partner).await;
    let first_due = NaiveDate::parse_from_str(data["charges"][0]["dueDate"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let line = format!(
        "{identifier};{};49,90;{}",
        first_due.format("%m/%Y"),
        brasilia_day(0).min(first_due).format("%d/%m/%Y")
    );
    assert_eq!(employer_reports(app, &[line]).await.paid, 1);
    let second_due = first_due.checked_add_months(Months::new(1)).unwrap();
    let cancelled_on = (second_due - Days::new(10) - brasilia_day(0)).num_days();
    days_later(app, cancelled_on).await;
    billing_run(app).await;
    let cancelled = app
        .post_json_as(
            &format!("/proposal/{identifier}/cancel"),
            partner,
            &json!({"reason": "Cliente mudou de emprego"}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    (identifier, cancelled_on)
}

/// Today in Brasília, `days` ahead (the clock's shift).
fn day_ahead(days: i64) -> NaiveDate {
    brasilia_day(u64::try_from(days).unwrap())
}

fn to_pay(data: &Value) -> Vec<Value> {
    data["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "a_pagar")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refund_to_pay_is_due_by_its_day_paid_where_the_customer_asked_and_corrected_when_late() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (identifier, shift) = cancelled_with_a_refund_to_pay(&app, &partner, &office).await;
    let cancelled_on = day_ahead(shift);

    // Due REFUND_DUE_DAYS (10) after the cancellation's day; the e-mail says by when and asks
    // where.
    let data = app.proposal_data(&identifier, &partner).await;
    let owed = to_pay(&data);
    assert_eq!(owed.len(), 1, "{data}");
    let due = cancelled_on.checked_add_days(Days::new(10)).unwrap();
    assert_eq!(owed[0]["dueDate"], due.to_string());
    let (id, amount) = (
        owed[0]["id"].as_str().unwrap().to_owned(),
        owed[0]["amount"].as_i64().unwrap(),
    );
    let mails = app
        .mails_to("maria@exemplo.com.br", "Cancelamento do seu seguro confirmado")
        .await;
    let text = mails[0].text();
    assert!(text.contains(&format!("até {}", due.format("%d/%m/%Y"))), "{text}");
    assert!(text.contains("chave Pix ou conta"), "{text}");

    // The back office's page says by when.
    let page = app
        .get(&format!("/console/proposals/{identifier}"), Some(&office))
        .await
        .text()
        .await
        .unwrap();
    // (The page escapes `/` as `&#x2f;`.)
    let page = page.replace("&#x2f;", "/");
    assert!(page.contains(&format!("vence em {}", due.format("%d/%m/%Y"))), "{page}");

    // Before any destination: the finance team sees it missing.
    let finance = api_actix::cli::refunds_of(&TestApp::config(&app.db, &[])).unwrap();
    let pending = finance.pending().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert!(pending[0].destination.is_none());
    assert!(api_actix::cli::pending_refunds_text(&pending).contains("destino não informado"));

    // Each bad destination named; another person's CPF and a company's key refused.
    let path = format!("/proposal/{identifier}/refund-destination");
    for (body, field, code) in [
        (json!({}), "pixKey", "destino_reembolso"),
        (
            json!({"pixKey": "+5511912345678", "refundAccount": {"bank": "001"}}),
            "pixKey",
            "destino_reembolso",
        ),
        (json!({"pixKey": "123.456.789-09"}), "pixKey", "chave_pix_titular"),
        (json!({"pixKey": "11.222.333/0001-81"}), "pixKey", "chave_pix_titular"),
        (json!({"pixKey": "cliente"}), "pixKey", "chave_pix_formato"),
        (
            json!({"refundAccount": {"bank": "001", "agency": "1234", "account": "12345-6", "type": "investimento"}}),
            "refundAccount.type",
            "tipo_conta",
        ),
    ] {
        let refused = assert_error(
            app.put_json_as(&path, &partner, &body).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        let errors = refused["errors"].as_array().unwrap();
        assert!(
            errors.iter().any(|e| e["field"] == field && e["code"] == code),
            "{body}: {refused}"
        );
    }
    // Another partner's seller does not see the proposal.
    let stranger = app.token_for("rep@outro.com.br", "PARCEIRO", "45723174000110").await;
    let hidden = app
        .put_json_as(&path, &stranger, &json!({"pixKey": "maria@exemplo.com.br"}))
        .await;
    assert_eq!(hidden.status(), StatusCode::NOT_FOUND);
    assert_eq!(app.count("SELECT count(*) AS n FROM refund_destinations").await, 0);

    // The customer's own e-mail key: answered and e-mailed in part, listed whole for the finance team.
    let recorded = app
        .put_json_as(&path, &partner, &json!({"pixKey": " Maria.Pix@Exemplo.com.br "}))
        .await;
    assert_eq!(recorded.status(), StatusCode::OK);
    let recorded: Value = recorded.json().await.unwrap();
    let answer = &recorded["data"];
    assert_eq!(
        (answer["kind"].as_str(), answer["pixKeyType"].as_str()),
        (Some("pix"), Some("email"))
    );
    assert_eq!(answer["shown"], "Pix para a chave e-mail m***@exemplo.com.br");
    assert_eq!(answer["owed"][0]["id"], id.as_str());
    assert_eq!(answer["owed"][0]["dueDate"], due.to_string());
    assert_eq!(answer["owedTotal"], amount);
    assert!(!recorded.to_string().contains("maria.pix@"), "{recorded}");
    let told = app
        .mails_to("maria@exemplo.com.br", "Seu reembolso: onde vamos pagar")
        .await;
    assert_eq!(told.len(), 1);
    let text = told[0].text();
    assert!(text.contains("m***@exemplo.com.br"), "{text}");
    assert!(!text.contains("maria.pix@"), "{text}");
    assert!(text.contains(&format!("até {}", due.format("%d/%m/%Y"))), "{text}");
    let pending = finance.pending().await.unwrap();
    let listed = api_actix::cli::pending_refunds_text(&pending);
    assert!(listed.contains("Pix email maria.pix@exemplo.com.br"), "{listed}");
    assert!(
        listed.contains(&format!("vence em {}", due.format("%d/%m/%Y"))),
        "{listed}"
    );

    // The back office replaces it with the customer's account.
    let replaced = app
        .put_json_as(
            &path,
            &office,
            &json!({"refundAccount": {"bank": "341", "agency": "1234", "account": "98765-4", "type": "corrente"}}),
        )
        .await;
    assert_eq!(replaced.status(), StatusCode::OK);
    assert_eq!(app.count("SELECT count(*) AS n FROM refund_destinations").await, 1);
    let listed = api_actix::cli::pending_refunds_text(&finance.pending().await.unwrap());
    assert!(
        listed.contains("conta corrente banco 341 agência 1234 conta 98765-4"),
        "{listed}"
    );

    // Paid 5 days after its due date: the delay corrected from the cancellation's day.
    days_later(&app, shift + 10 + 5).await;
    let pending = finance.pending().await.unwrap();
    let late = pending[0].late_correction.clone().expect("late: corrected");
    assert_eq!((late.from, late.to), (cancelled_on, day_ahead(shift + 15)));
    let owed_today = pending[0].owed_today();
    assert!(owed_today > amount, "{owed_today} > {amount}");
    let listed = api_actix::cli::pending_refunds_text(&pending);
    assert!(listed.contains("5 dia(s) de atraso"), "{listed}");
    // Two of the finance team mark it at once: the refund's row lock lets one through, the other
    // is told it was paid; one correction of the delay is recorded.
    let other = api_actix::cli::refunds_of(&TestApp::config(&app.db, &[])).unwrap();
    let (first, second) = tokio::join!(
        finance.mark_paid(&id, "TED 777", "financeiro"),
        other.mark_paid(&id, "TED 777", "financeiro")
    );
    let (paid, refused) = match (first, second) {
        (Ok(paid), refused) | (refused, Ok(paid)) => (paid, refused),
        both => panic!("neither marked it paid: {both:?}"),
    };
    assert!(
        matches!(&refused, Err(RefundsError::AlreadyPaid { reference, .. }) if reference == "TED 777"),
        "{refused:?}"
    );
    assert_eq!(
        app.count(&format!("SELECT count(*) AS n FROM refunds WHERE atraso_de = '{id}'"))
            .await,
        1
    );
    assert_eq!(paid.total(), owed_today);
    let correction = paid.late.clone().unwrap();
    assert_eq!(correction.id, format!("{id}_atraso"));

    // Route 7: the refund paid and its delay's correction beside it; nothing owed back.
    let data = app.proposal_data(&identifier, &office).await;
    let refunds = data["refunds"].as_array().unwrap();
    let delay = refunds.iter().find(|r| r["id"] == correction.id.as_str()).unwrap();
    assert_eq!(delay["status"], "pago");
    assert_eq!(delay["amount"], correction.amount);
    assert_eq!(delay["correction"]["from"], cancelled_on.to_string());
    assert_eq!(data["ledger"]["refunded"], owed_today);
    assert_eq!(data["ledger"]["owedBack"], 0);
    assert!(finance.pending().await.unwrap().is_empty());
    let report = api_actix::cli::check_ledger(&TestApp::config(&app.db, &[]), false)
        .await
        .unwrap();
    assert!(api_actix::cli::ledger_outcome(&report, false).is_ok(), "{report:?}");

    // The LGPD export names the destination and each refund's due date.
    let export = app
        .get(&format!("/privacy/customers/{CUSTOMER_CPF}"), Some(&office))
        .await;
    assert_eq!(export.status(), StatusCode::OK);
    let export: Value = export.json().await.unwrap();
    let proposal = &export["data"]["propostas"][0];
    assert_eq!(proposal["destino_reembolso"]["conta"], "98765-4");
    let exported = proposal["reembolsos"].as_array().unwrap();
    assert!(
        exported.iter().any(|r| r["corrige_atraso_de"] == id.as_str()),
        "{exported:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn paid_by_its_due_date_a_refund_to_pay_carries_nothing_more() {
    let app = TestApp::spawn_with(&[("REFUND_DUE_DAYS", "3")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let (identifier, shift) = cancelled_with_a_refund_to_pay(&app, &partner, &office).await;
    let owed = to_pay(&app.proposal_data(&identifier, &partner).await);
    assert_eq!(owed[0]["dueDate"], day_ahead(shift + 3).to_string());
    // On the due date itself: not late.
    days_later(&app, shift + 3).await;
    let finance = api_actix::cli::refunds_of(&TestApp::config(&app.db, &[("REFUND_DUE_DAYS", "3")])).unwrap();
    assert!(finance.pending().await.unwrap()[0].late_correction.is_none());
    let paid = finance
        .mark_paid(owed[0]["id"].as_str().unwrap(), "TED 1", "financeiro")
        .await
        .unwrap();
    assert_eq!((paid.total(), paid.late), (owed[0]["amount"].as_i64().unwrap(), None));
}
