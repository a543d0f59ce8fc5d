//! Débito em conta under a bank agreement (issue 46): the contract's authorisation recorded with
//! its evidence, the remessa (CNAB 150) of the debits due read back line by line, and the bank's
//! retorno applied once however many times and in whatever files it arrives: a paid debit, a
//! refused one tried again on the policy's day, an authorisation refused ending the debits. The
//! console lists the files sent and read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{Setup, days_later};
use black_box_tests::{StatusCode, TestApp, cpf_from, proposal_body};
use chrono::NaiveDate;
use domain::billing::cnab150::{Agreement, read_remessa_debits, retorno_text, return_line};
use serde_json::{Value, json};

const AGREEMENTS: &str = "001:123456:SEGURADORA EXEMPLO";

fn agreement() -> Agreement {
    Agreement::parse_list(AGREEMENTS).unwrap().remove(0)
}

async fn debit_sale() -> Setup {
    let app = TestApp::spawn_with(&[("DEBIT_AGREEMENTS", AGREEMENTS)]).await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

/// A contract paid by debit from the customer's account at bank 001: made, sent, signed, approved.
pub(super) async fn debit_contract(s: &Setup, cpf: &str) -> String {
    let mut body = proposal_body(cpf);
    body["typeOfPayments"] = json!("DÉBITO EM CONTA");
    body.as_object_mut().unwrap().remove("discountOnSheet");
    body["debitAccount"] = json!({"bank": "001", "agency": "1234-5", "account": "56789-0"});
    let created = s.app.post_json_as("/proposal/create", &s.partner, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let record = created.json::<Value>().await.unwrap()["document"][0].clone();
    let identifier = record["identificador"].as_str().unwrap().to_owned();
    let sent = s
        .app
        .post_json_as(
            "/signer",
            &s.partner,
            &json!({"customerId": record["id_cliente"], "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let approved = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    identifier
}

fn config(s: &Setup) -> api_actix::config::Config {
    TestApp::config(&s.app.db, &[("DEBIT_AGREEMENTS", AGREEMENTS)])
}

async fn remessas(s: &Setup, folder: &std::path::Path, until: NaiveDate) -> Vec<(std::path::PathBuf, String)> {
    api_actix::cli::write_remessas(&config(s), folder, None, Some(until))
        .await
        .unwrap()
        .into_iter()
        .map(|(path, _)| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

async fn retorno(
    s: &Setup,
    folder: &std::path::Path,
    name: &str,
    text: &str,
) -> domain::billing::debits::RetornoReport {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    api_actix::cli::read_retorno(&config(s), &path).await.unwrap()
}

/// This test's folder for the files exchanged with the bank (its database's name: its own).
fn folder(s: &Setup) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("sales-api-test-debits-{}", s.app.db.name));
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn day(value: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(value.as_str().unwrap(), "%Y-%m-%d").unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_remessa_is_read_back_and_the_banks_retorno_applies_each_result_once() {
    let s = debit_sale().await;
    let folder = folder(&s);
    let paying = debit_contract(&s, "52998224725").await;
    let refusing = debit_contract(&s, &cpf_from(7)).await;
    assert_eq!(
        s.app
            .count(
                "SELECT count(*) AS n FROM debit_authorizations WHERE situacao = 'ativa' AND banco = '001' \
                 AND evidencia_sha256 IS NOT NULL"
            )
            .await,
        2,
        "each contract holds the authorisation its signature gave"
    );
    api_actix::cli::run_billing(&config(&s)).await.unwrap();
    let due = day(&s.app.proposal_data(&paying, &s.partner).await["charges"][0]["dueDate"]);

    // Nothing due within the default five days; up to the due date, both debits.
    assert_eq!(
        api_actix::cli::write_remessas(&config(&s), folder.as_path(), None, None)
            .await
            .unwrap()
            .len(),
        0
    );
    let sent = remessas(&s, folder.as_path(), due).await;
    assert_eq!(sent.len(), 1);
    let (path, text) = &sent[0];
    assert!(path.ends_with("CNAB150_001_123456_000001.REM"), "{path:?}");
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(lines.iter().all(|l| l.len() == 150), "{lines:#?}");
    assert_eq!(&lines[0][..2], "A1");
    assert_eq!(&lines[0][73..79], "000001", "the agreement's first file");
    let orders = read_remessa_debits(text);
    assert_eq!(orders.len(), 2);
    assert!(
        orders
            .iter()
            .all(|o| o.agency == "1234" && o.account == "56789-0" && o.date == due)
    );
    let total: i64 = orders.iter().map(|o| o.amount).sum();
    assert_eq!(&lines[3][..24], format!("Z000004{total:017}"));
    assert!(
        remessas(&s, folder.as_path(), due).await.is_empty(),
        "a debit awaiting its return is not sent again"
    );
    let data = s.app.proposal_data(&paying, &s.partner).await;
    assert_eq!(data["charges"][0]["attempts"], 1);
    assert_eq!(data["charges"][0]["externalId"], "CNAB150 001/123456 NSA 1");

    // The bank's retorno: the first debited, the second refused for want of funds.
    let paying_id = data["proposal"]["id"].as_i64().unwrap();
    let (paid, refused) = match orders[0].client.parse::<i64>().unwrap() == paying_id {
        true => (&orders[0], &orders[1]),
        false => (&orders[1], &orders[0]),
    };
    let answered = [return_line(paid, "00"), return_line(refused, "01")];
    let text = retorno_text(&agreement(), 1, due, &answered, Some(1));
    let first = retorno(&s, folder.as_path(), "RET001.RET", &text).await;
    assert_eq!(
        (first.summary.paid, first.summary.failed, first.summary.unknown),
        (1, 1, 0)
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM debit_files WHERE tipo = 'remessa' AND conteudo IS NULL")
            .await,
        1,
        "a remessa answered whole keeps its digest, not its accounts"
    );
    let again = retorno(&s, folder.as_path(), "RET001-copia.RET", &text).await;
    assert!(again.summary.already_read);
    // The same results in another file (another day's header): each applied already.
    let resent = retorno_text(&agreement(), 2, due + chrono::Days::new(1), &answered, None);
    let later = retorno(&s, folder.as_path(), "RET002.RET", &resent).await;
    assert_eq!(
        (later.summary.already_applied, later.summary.paid, later.summary.failed),
        (2, 0, 0)
    );

    let data = s.app.proposal_data(&paying, &s.partner).await;
    assert_eq!(data["charges"][0]["status"], "paga");
    assert!(data["charges"][0]["paidAt"].is_string());
    let data = s.app.proposal_data(&refusing, &s.partner).await;
    let charge = &data["charges"][0];
    assert_eq!(charge["status"], "aberta");
    assert_eq!(charge["reason"], "01: insuficiência de fundos");
    assert_eq!(
        day(&charge["nextAttempt"]),
        due + chrono::Days::new(1),
        "retried a day after the due date"
    );

    // The retry goes in the next remessa, numbered 2; the bank answers that no authorisation holds.
    days_later(&s, 11).await;
    let retry = remessas(&s, folder.as_path(), due + chrono::Days::new(1)).await;
    assert_eq!(retry.len(), 1);
    assert!(retry[0].0.ends_with("CNAB150_001_123456_000002.REM"));
    let orders = read_remessa_debits(&retry[0].1);
    assert_eq!(orders.len(), 1);
    assert!(orders[0].reference.ends_with("T2"), "{:?}", orders[0]);
    let text = retorno_text(
        &agreement(),
        3,
        due + chrono::Days::new(1),
        &[return_line(&orders[0], "30")],
        Some(2),
    );
    let refused = retorno(&s, folder.as_path(), "RET003.RET", &text).await;
    assert_eq!(refused.summary.authorizations_refused, 1);
    let data = s.app.proposal_data(&refusing, &s.partner).await;
    assert_eq!(data["charges"][0]["status"], "falhou");
    assert_eq!(data["charges"][0]["attempts"], 2);
    assert_eq!(
        s.app
            .text(
                "SELECT string_agg(situacao || ': ' || coalesce(motivo, '-'), ', ' ORDER BY situacao) AS line \
                 FROM debit_authorizations"
            )
            .await,
        "ativa: -, recusada: 30: sem contrato de débito automático"
    );
    assert!(
        remessas(&s, folder.as_path(), due + chrono::Days::new(60))
            .await
            .is_empty(),
        "no debit without an authorisation"
    );

    // The console lists the files sent and read, the newest first.
    let (_driver, browser) = black_box_tests::browser::start_browser().await;
    super::console::sign_in(&browser, &s.app).await;
    super::console::wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("APROVADO")).await;
    super::console::click(&browser, "nav-debits").await;
    let listed = super::console::wait_for_text(&browser, "#debit-files tbody", |t| !t.is_empty()).await;
    let rows: Vec<&str> = listed
        .lines()
        .filter(|l| l.contains(".REM") || l.contains(".RET"))
        .collect();
    assert!(rows[0].contains("RET003.RET"), "{listed}");
    assert!(listed.contains("CNAB150_001_123456_000001.REM"), "{listed}");
    assert!(listed.contains("processada pelo banco"), "{listed}");
    assert!(listed.contains("1 paga(s), 1 falha(s)"), "{listed}");
    super::console::photograph(&browser, "debito-em-conta").await;
}

/// A debit never put in a remessa was never asked of the customer: the contract stays up to date
/// however long past its due date (decision 265). Presented late, it is late from the day it
/// was presented, not from the due date the bank never saw.
#[tokio::test(flavor = "multi_thread")]
async fn a_debit_never_presented_makes_nobody_late_and_one_presented_late_counts_from_its_remessa() {
    let s = debit_sale().await;
    let folder = folder(&s);
    let identifier = debit_contract(&s, "52998224725").await;
    let run = || async { api_actix::cli::run_billing(&config(&s)).await.unwrap() };
    run().await;
    let due = day(&s.app.proposal_data(&identifier, &s.partner).await["charges"][0]["dueDate"]);

    // Sixty days on, no remessa made: the first charge is 50 days past due and never presented.
    days_later(&s, 60).await;
    let judged = run().await;
    assert_eq!(judged.moved, [], "nothing moved");
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["billing"]["status"], "em_dia");
    let charges = data["charges"].as_array().unwrap();
    assert!(
        charges.len() >= 2,
        "the later periods are made all the same: {charges:?}"
    );
    assert!(
        charges
            .iter()
            .all(|c| c["presentedAt"].is_null() && c["attempts"] == 0 && c["status"] == "aberta"),
        "{charges:?}"
    );

    // The remessa made now presents the charges due by now, debited today; their grace days run
    // from today.
    let today = due + chrono::Days::new(50);
    let sent = remessas(&s, folder.as_path(), today).await;
    assert_eq!(sent.len(), 1);
    assert!(
        read_remessa_debits(&sent[0].1).iter().all(|o| o.date >= today),
        "debited from the file's day on"
    );
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let presented = data["charges"][0]["presentedAt"].as_str().unwrap().to_owned();
    assert_eq!(data["charges"][1]["presentedAt"], presented, "one remessa");
    days_later(&s, 65).await;
    run().await;
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["billing"]["status"],
        "em_dia",
        "five days after the remessa: within the grace days"
    );
    days_later(&s, 66).await;
    run().await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["billing"]["status"], "em_atraso", "six days after the remessa");
    assert_eq!(
        data["charges"][0]["presentedAt"], presented,
        "the first presentation is kept"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retorno_of_another_agreement_or_out_of_layout_is_refused_whole() {
    let s = debit_sale().await;
    let folder = folder(&s);
    let on = NaiveDate::from_ymd_opt(2026, 12, 8).unwrap();
    let other = Agreement {
        code: "999".into(),
        ..agreement()
    };
    let path = folder.join("OUTRO.RET");
    std::fs::write(&path, retorno_text(&other, 1, on, &[], None)).unwrap();
    let refused = api_actix::cli::read_retorno(&config(&s), &path).await.unwrap_err();
    assert!(refused.to_string().contains("convênio 999"), "{refused}");

    let cut = retorno_text(&agreement(), 1, on, &[], None).replacen("Z000002", "Z00002", 1);
    std::fs::write(&path, cut).unwrap();
    let refused = api_actix::cli::read_retorno(&config(&s), &path).await.unwrap_err();
    assert!(refused.to_string().contains("150"), "{refused}");
    assert_eq!(s.app.count("SELECT count(*) AS n FROM debit_files").await, 0);
}

/// A debit sent before the contract ended and paid by the bank after it: the money is recorded
/// (the charge paid, marked to be given back), never lost because the charge was cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn a_debit_paid_after_its_contract_ended_is_recorded_to_be_given_back() {
    let s = debit_sale().await;
    let folder = folder(&s);
    let identifier = debit_contract(&s, "52998224725").await;
    api_actix::cli::run_billing(&config(&s)).await.unwrap();
    let due = day(&s.app.proposal_data(&identifier, &s.partner).await["charges"][0]["dueDate"]);
    let sent = remessas(&s, folder.as_path(), due).await;
    let orders = read_remessa_debits(&sent[0].1);

    days_later(&s, 10).await;
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente mudou de emprego")
        .await;
    assert_eq!(
        s.app.proposal_data(&identifier, &s.partner).await["charges"][0]["status"],
        "cancelada"
    );

    let text = retorno_text(&agreement(), 1, due, &[return_line(&orders[0], "00")], Some(1));
    let report = retorno(&s, folder.as_path(), "RET001.RET", &text).await;
    assert_eq!(report.summary.paid, 1);
    let charge = s.app.proposal_data(&identifier, &s.partner).await["charges"][0].clone();
    assert_eq!(charge["status"], "paga");
    assert_eq!(
        charge["reason"],
        "debitada pelo banco depois do encerramento do contrato: a devolver"
    );
}

/// The customer revokes the authorisation through the insurer (CMN 4.790/2020, art. 9): a
/// protocol, the history, and no debit of the contract in the next remessa; the contract goes on.
#[tokio::test(flavor = "multi_thread")]
async fn the_customer_revokes_the_debits_through_the_seller_under_a_protocol_and_no_debit_follows() {
    let s = debit_sale().await;
    let folder = folder(&s);
    let identifier = debit_contract(&s, "52998224725").await;
    let kept = debit_contract(&s, "11144477735").await;
    api_actix::cli::run_billing(&config(&s)).await.unwrap();
    let path = format!("/proposal/{identifier}/debit-authorization/revoke");

    // The reason is the customer's words: at least three characters, the field named.
    let short = s.app.post_json_as(&path, &s.partner, &json!({"reason": "x"})).await;
    assert_eq!(short.status(), StatusCode::BAD_REQUEST);
    let body: Value = short.json().await.unwrap();
    assert_eq!(body["errors"][0]["field"], "reason", "{body}");
    // Another seller does not see the proposal.
    let other = s.app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let hidden = s
        .app
        .post_json_as(&path, &other, &json!({"reason": "Cliente vai pagar por boleto"}))
        .await;
    assert_eq!(hidden.status(), StatusCode::NOT_FOUND);

    let revoked = s
        .app
        .post_json_as(&path, &s.partner, &json!({"reason": "Cliente vai pagar por boleto"}))
        .await;
    assert_eq!(revoked.status(), StatusCode::OK, "{}", revoked.text().await.unwrap());
    let data = revoked.json::<Value>().await.unwrap()["data"].clone();
    assert_eq!(data["status"], "revogada");
    assert_eq!(data["identifier"], identifier.as_str());
    let protocol = data["protocol"].as_str().unwrap().to_owned();

    // Once: a second revocation finds it inactive; a payroll contract has none.
    let again = s
        .app
        .post_json_as(&path, &s.office, &json!({"reason": "Cliente ligou de novo"}))
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    let body: Value = again.json().await.unwrap();
    assert_eq!(body["code"], "autorizacao_debito_inativa", "{body}");
    assert!(body["message"].as_str().unwrap().contains("revogada"), "{body}");

    // The request under its protocol, and the change in the proposal's history.
    let found = s.app.get(&format!("/protocol/{protocol}"), Some(&s.office)).await;
    assert_eq!(found.status(), StatusCode::OK);
    let request = found.json::<Value>().await.unwrap()["data"].clone();
    assert_eq!(request["kind"], "revogacao_debito", "{request}");
    assert_eq!(request["reason"], "Cliente vai pagar por boleto");
    assert_eq!(
        super::billing::history_of(&s, &identifier, "autorizacao_debito", "situacao").await,
        vec![r#""ativa" -> "revogada""#.to_owned()]
    );
    assert_eq!(
        super::billing::history_of(&s, &identifier, "solicitacao", "tipo").await,
        vec![r#"null -> "revogacao_debito""#.to_owned()]
    );

    // The next remessa carries the other contract's debit, not the revoked one's; the contract
    // itself goes on, its charge open.
    let due = day(&s.app.proposal_data(&identifier, &s.partner).await["charges"][0]["dueDate"]);
    let sent = remessas(&s, folder.as_path(), due).await;
    assert_eq!(sent.len(), 1);
    let orders = read_remessa_debits(&sent[0].1);
    assert_eq!(orders.len(), 1, "only the contract still authorised");
    let kept_id = s.app.proposal_data(&kept, &s.partner).await["proposal"]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(orders[0].client.parse::<i64>().unwrap(), kept_id);
    let detail = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(detail["proposal"]["status"], "APROVADO");
    assert_eq!(detail["charges"][0]["status"], "aberta");
}

/// A contract paid by payroll discount has no debit authorisation to revoke.
#[tokio::test(flavor = "multi_thread")]
async fn a_contract_without_debits_has_no_authorisation_to_revoke() {
    let s = debit_sale().await;
    let created = s
        .app
        .post_json_as("/proposal/create", &s.partner, &proposal_body(&cpf_from(4242)))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let identifier = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = s
        .app
        .post_json_as(
            &format!("/proposal/{identifier}/debit-authorization/revoke"),
            &s.office,
            &json!({"reason": "Cliente pediu"}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "autorizacao_debito_inexistente", "{body}");
}
