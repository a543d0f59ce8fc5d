//! Pix Automático end to end (issue 46), on the sandbox PSP whose every request and answer the
//! Central Bank's `openapi.yaml` judges: a `PIX AUTOMÁTICO` proposal signed creates its recurrence
//! (the payer's bank asked to confirm it, jornada 1), the payer approves it, the accepted
//! contract's first charge is sent in its window and paid, the next refused by the payer's bank
//! and tried again, and the contract's cancellation gives back the unused days by a `devolucao`
//! of the Pix that paid them. The PSP's notifications are taken only with an authorised
//! certificate's subject, and only their ids are believed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{Setup, days_later};
use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};
use serde_json::{Value, json};

const CPF: &str = "52998224725";
const PSP_SUBJECT: &str = "CN=psp.sandbox.example,O=PSP Sandbox,C=BR";

/// The service behind its TLS proxy on this machine's 127.0.0.1, which verifies the PSP's client
/// certificate and passes its subject on (decision 245: the header is believed only from it).
pub(super) async fn setup() -> Setup {
    setup_with(&[]).await
}

/// [`setup`] with more of the service's settings.
pub(super) async fn setup_with(more: &[(&str, &str)]) -> Setup {
    let mut settings = vec![
        ("PIX_WEBHOOK_SUBJECTS", PSP_SUBJECT),
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
    ];
    settings.extend_from_slice(more);
    let app = TestApp::spawn_with(&settings).await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

fn pix_body(cpf: &str, account: Option<Value>) -> Value {
    let mut body = proposal_body(cpf);
    let fields = body.as_object_mut().unwrap();
    fields.remove("discountOnSheet");
    fields.insert("typeOfPayments".into(), json!("PIX AUTOMÁTICO"));
    if let Some(account) = account {
        fields.insert("pixAutomatico".into(), account);
    }
    body
}

/// A Pix sale made, sent and signed by every party: its identifier.
async fn signed_pix_sale(s: &Setup, account: Option<Value>) -> String {
    let identifier = s.app.sent_proposal_of(&s.partner, &pix_body(CPF, account)).await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    identifier
}

async fn run(s: &Setup) -> domain::billing::pix_collection::PixPass {
    let config = TestApp::config(&s.app.db, &[]);
    api_actix::cli::run_billing(&config).await.unwrap();
    api_actix::cli::run_pix(&config)
        .await
        .unwrap()
        .expect("the sandbox PSP in development")
}

pub(super) async fn sandbox(s: &Setup, path: &str) -> Value {
    let response = s.app.post_json(&format!("/sandbox/pix/{path}"), &json!({})).await;
    assert_eq!(response.status(), StatusCode::OK, "{}", response.text().await.unwrap());
    response.json::<Value>().await.unwrap()["data"].clone()
}

async fn notify(s: &Setup, kind: &str, subject: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = s.app.client.post(s.app.url(&format!("/pix/webhook/{kind}"))).json(body);
    if let Some(subject) = subject {
        request = request.header("X-Client-Cert-Subject", subject);
    }
    request.send().await.unwrap()
}

pub(super) fn charge(data: &Value, period: i64) -> Value {
    data["charges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["period"] == period)
        .cloned()
        .unwrap_or_else(|| panic!("no charge {period}: {}", data["charges"]))
}

pub(super) fn txid(data: &Value, period: i64) -> String {
    charge(data, period)["externalId"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pix_sale_is_signed_authorised_charged_retried_and_refunded_through_the_psp() {
    let s = setup().await;
    let account = json!({"ispb": "60701190", "agencia": "0001", "conta": "12345-6"});
    let identifier = signed_pix_sale(&s, Some(account)).await;

    // The last signature created the recurrence and asked the payer's bank to confirm it.
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let pix = &data["payment"]["pixAutomatico"];
    assert_eq!(data["payment"]["type"], "PIX AUTOMÁTICO");
    assert_eq!(data["payment"]["account"], "123456");
    assert_eq!(data["payment"]["agency"], "0001");
    assert_eq!(pix["ispb"], "60701190");
    assert_eq!(pix["status"], "CRIADA");
    let id_rec = pix["idRec"].as_str().unwrap().to_owned();
    assert!(id_rec.starts_with("RR"), "retries allowed: {id_rec}");

    // Approved by the payer in their bank: the notification's id read back.
    let approved = sandbox(&s, &format!("rec/{id_rec}/approve")).await;
    assert_eq!(approved["changed"], 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "APROVADA");
    assert_eq!(data["payment"]["pixAutomatico"]["pixCopiaECola"], Value::Null);

    // Accepted: the first charge created and sent to the PSP in its window, once.
    let accepted = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    let pass = run(&s).await;
    assert_eq!(pass.sent, 1, "{pass:?}");
    assert_eq!(run(&s).await.sent, 0, "sent once");
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let first = charge(&data, 1);
    assert_eq!(
        (first["method"].as_str(), first["status"].as_str()),
        (Some("PIX AUTOMÁTICO"), Some("aberta"))
    );
    assert_eq!(first["attempts"], 1);
    let first_txid = txid(&data, 1);

    // Paid by the payer's bank.
    let paid = sandbox(&s, &format!("cobr/{first_txid}/pay")).await;
    assert_eq!(paid["changed"], 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(charge(&data, 1)["status"], "paga");
    assert!(charge(&data, 1)["paidAt"].is_string());

    // A month on, the second charge is sent and refused by the payer's bank (no balance)...
    days_later(&s, 31).await;
    assert_eq!(run(&s).await.sent, 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let second_txid = txid(&data, 2);
    sandbox(&s, &format!("cobr/{second_txid}/fail")).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let second = charge(&data, 2);
    assert_eq!(second["status"], "falhou");
    assert!(second["reason"].as_str().unwrap().contains("AM02"), "{second}");
    let due = second["dueDate"].as_str().unwrap().to_owned();
    let retry_day = chrono::NaiveDate::parse_from_str(&due, "%Y-%m-%d").unwrap() + chrono::Days::new(1);
    assert_eq!(
        second["nextAttempt"],
        retry_day.to_string(),
        "the day after its due date"
    );

    // ...tried again by the next pass (the standard's retry) and paid on it.
    assert_eq!(run(&s).await.retried, 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(charge(&data, 2)["status"], "aberta");
    assert_eq!(charge(&data, 2)["attempts"], 2);
    sandbox(&s, &format!("cobr/{second_txid}/pay")).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(charge(&data, 2)["status"], "paga");
    assert_eq!(data["billing"]["status"], "em_dia");

    // Another month on (the sandbox's clock is set 62 days ahead of today), the third charge is sent; before it is settled the contract is cancelled at
    // the customer's request: the unused days of the period paid go back by a devolucao of the
    // Pix that paid it, and the PSP collects nothing more (the charge and the recurrence
    // cancelled there), all under the proposal's claim.
    days_later(&s, 62).await;
    let pass = run(&s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(pass.sent, 1, "{pass:?} {}", data["charges"]);
    let third_txid = txid(&data, 3);
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente contratou outro seguro")
        .await;
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    let refunds = data["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{refunds:?}");
    assert!(refunds[0]["id"].as_str().unwrap().starts_with('D'), "{refunds:?}");
    assert!(refunds[0]["amount"].as_i64().unwrap() > 0);
    assert_eq!(refunds[0]["reason"], "CANCELAMENTO");
    assert_eq!(charge(&data, 3)["status"], "cancelada");
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "CANCELADA");
    let settled = s
        .app
        .post_json(&format!("/sandbox/pix/cobr/{third_txid}/pay"), &json!({}))
        .await;
    assert_error(settled, StatusCode::BAD_REQUEST, "requisicao_invalida").await;
    assert_eq!(run(&s).await, Default::default(), "nothing left to send");
}

#[tokio::test(flavor = "multi_thread")]
async fn only_an_authorised_psps_notification_is_taken_and_only_its_ids_are_believed() {
    let s = setup().await;
    // Without the payer's account: the customer authorises by the QR code (jornada 2).
    let identifier = signed_pix_sale(&s, None).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let pix = &data["payment"]["pixAutomatico"];
    assert_eq!(pix["ispb"], Value::Null);
    assert!(
        pix["pixCopiaECola"].as_str().unwrap().starts_with("000201"),
        "an EMV QR code: {pix}"
    );
    let id_rec = pix["idRec"].as_str().unwrap().to_owned();
    let body = json!({"recs": [{"idRec": id_rec, "status": "APROVADA"}]});

    for subject in [None, Some("CN=outro.example,O=Outro,C=BR")] {
        assert_error(
            notify(&s, "rec", subject, &body).await,
            StatusCode::UNAUTHORIZED,
            "notificacao_pix_nao_autenticada",
        )
        .await;
    }
    // An authorised PSP claiming an approval the PSP does not hold changes nothing: the
    // recurrence is read back, and it still awaits its payer.
    let told = notify(&s, "rec", Some(PSP_SUBJECT), &body).await;
    assert_eq!(told.status(), StatusCode::OK);
    assert_eq!(told.json::<Value>().await.unwrap()["data"]["changed"], 0);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "CRIADA");

    // Refused by the payer: the collection learns it by the notification, once.
    sandbox(&s, &format!("rec/{id_rec}/reject")).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "REJEITADA");
    let again = notify(&s, "rec", Some(PSP_SUBJECT), &body).await;
    assert_eq!(again.json::<Value>().await.unwrap()["data"]["changed"], 0);

    // A charge the service does not know is ignored.
    let unknown = notify(
        &s,
        "cobr",
        Some(PSP_SUBJECT),
        &json!({"cobsr": [{"txid": "vendas00000000000000999999cobr"}]}),
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::OK);
    assert_eq!(unknown.json::<Value>().await.unwrap()["data"]["changed"], 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_payers_account_is_checked_member_by_member() {
    let s = setup().await;
    let bad = json!({"ispb": "6070", "agencia": "12345", "conta": "12a"});
    let refused = s
        .app
        .post_json_as("/proposal/create", &s.partner, &pix_body(CPF, Some(bad)))
        .await;
    let body = assert_error(refused, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    let fields: Vec<_> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fields,
        [
            ("pixAutomatico.ispb", "ispb_formato"),
            ("pixAutomatico.agencia", "agencia_pix_formato"),
            ("pixAutomatico.conta", "conta_pix_formato"),
        ]
    );
    let not_an_object = s
        .app
        .post_json_as("/proposal/create", &s.partner, &pix_body(CPF, Some(json!("60701190"))))
        .await;
    assert_error(not_an_object, StatusCode::BAD_REQUEST, "dados_invalidos").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_shows_the_recurrence_and_its_charges() {
    use super::console::{open_proposal, photograph, sign_in, wait_for_text};

    let s = setup().await;
    let identifier = signed_pix_sale(&s, Some(json!({"ispb": "60701190", "conta": "123456"}))).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let id_rec = data["payment"]["pixAutomatico"]["idRec"].as_str().unwrap().to_owned();
    sandbox(&s, &format!("rec/{id_rec}/approve")).await;
    let accepted = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    run(&s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    sandbox(&s, &format!("cobr/{}/fail", txid(&data, 1))).await;

    let (_driver, browser) = black_box_tests::browser::start_browser().await;
    sign_in(&browser, &s.app).await;
    wait_for_text(&browser, "#proposal-list tbody", |t| t.contains("APROVADO")).await;
    open_proposal(&browser, &identifier).await;
    let recurrence = wait_for_text(&browser, "#pix-recurrence", |t| !t.is_empty()).await;
    assert!(
        recurrence.contains(&id_rec) && recurrence.contains("autorizada pelo pagador"),
        "{recurrence}"
    );
    let charges = wait_for_text(&browser, "#charges tbody", |t| !t.is_empty()).await;
    assert!(
        charges.contains("PIX AUTOMÁTICO") && charges.contains("falhou") && charges.contains("nova tentativa em"),
        "{charges}"
    );
    browser
        .execute(
            "document.getElementById('pix-recurrence').scrollIntoView({block: 'start'}); window.scrollBy(0, -80)",
            vec![],
        )
        .await
        .unwrap();
    photograph(&browser, "pix-automatico").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn what_the_psp_changed_without_a_notification_is_read_back_by_the_reconciliation() {
    use adapters_postgres::{PoolSettings, build_pool};
    let s = setup().await;
    let identifier = signed_pix_sale(&s, None).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let id_rec = data["payment"]["pixAutomatico"]["idRec"].as_str().unwrap().to_owned();
    let config = TestApp::config(&s.app.db, &[]);
    let pool = build_pool(&PoolSettings::new(&s.app.db.url)).unwrap();
    // The sandbox PSP moved by hand: its notifications are lost.
    let psp = api_actix::app::pix_psp(&config, &pool, std::sync::Arc::new(domain::clock::SystemClock))
        .unwrap()
        .unwrap()
        .sandbox
        .unwrap();
    psp.approve(&id_rec).await.unwrap();
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(
        data["payment"]["pixAutomatico"]["status"], "CRIADA",
        "nobody told the service"
    );

    let done = api_actix::cli::reconcile_pix(&config, true).await.unwrap();
    assert_eq!((done.recurrences_read, done.recurrences_mended), (1, 1));
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "APROVADA");

    let accepted = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    assert_eq!(run(&s).await.sent, 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    psp.pay(&txid(&data, 1)).await.unwrap();
    // Before its due date the billing's pass leaves it to the notification...
    assert_eq!(run(&s).await.mended, 0);
    // ...past it, the pass reads the charge back itself.
    days_later(&s, 11).await;
    assert_eq!(run(&s).await.mended, 1);
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(charge(&data, 1)["status"], "paga");
    let again = api_actix::cli::reconcile_pix(&config, true).await.unwrap();
    assert_eq!(
        (again.recurrences_mended, again.charges_read, again.charges_mended),
        (0, 0, 0),
        "in agreement: nothing to mend"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_withdrawn_pix_sale_leaves_nothing_for_the_psp_to_collect() {
    let s = setup().await;
    let identifier = signed_pix_sale(&s, Some(json!({"ispb": "60701190", "conta": "123456"}))).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    let id_rec = data["payment"]["pixAutomatico"]["idRec"].as_str().unwrap().to_owned();
    sandbox(&s, &format!("rec/{id_rec}/approve")).await;

    let withdrawn = s
        .app
        .post_json_as(
            &format!("/proposal/{identifier}/withdraw"),
            &s.partner,
            &json!({"reason": "Cliente desistiu"}),
        )
        .await;
    assert_eq!(
        withdrawn.status(),
        StatusCode::OK,
        "{}",
        withdrawn.text().await.unwrap()
    );
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    assert_eq!(data["payment"]["pixAutomatico"]["status"], "CANCELADA");
    // The PSP refuses the payer's answer to a recurrence that has ended.
    let late = s
        .app
        .post_json(&format!("/sandbox/pix/rec/{id_rec}/approve"), &json!({}))
        .await;
    assert_error(late, StatusCode::BAD_REQUEST, "requisicao_invalida").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notification_is_believed_only_from_the_proxy_read_back_once_per_id_at_most_a_hundred_and_echoes_nothing() {
    let s = setup().await;
    let identifier = signed_pix_sale(&s, None).await;
    let id_rec = s.app.proposal_data(&identifier, &s.partner).await["payment"]["pixAutomatico"]["idRec"]
        .as_str()
        .unwrap()
        .to_owned();
    sandbox(&s, &format!("rec/{id_rec}/reject")).await;

    // A peer that is not the proxy (127.0.0.2 is this machine too, but not TRUSTED_PROXIES)
    // writing the PSP's subject itself is refused.
    let elsewhere = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let forged = elsewhere
        .post(s.app.url("/pix/webhook/rec"))
        .header("X-Client-Cert-Subject", PSP_SUBJECT)
        .json(&json!({"recs": [{"idRec": id_rec}]}))
        .send()
        .await
        .unwrap();
    assert_error(forged, StatusCode::UNAUTHORIZED, "notificacao_pix_nao_autenticada").await;

    // The same id named three times is read back once; the answer counts, and names no id.
    let repeated = json!({"recs": [{"idRec": id_rec}, {"idRec": id_rec}, {"idRec": id_rec}]});
    let told = notify(&s, "rec", Some(PSP_SUBJECT), &repeated).await;
    assert_eq!(told.status(), StatusCode::OK);
    let text = told.text().await.unwrap();
    assert!(!text.contains(&id_rec), "{text}");
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        data["data"],
        json!({"received": 1, "readBack": 1, "deferred": 0, "changed": 0})
    );

    // A body naming 250 charges: 100 read back in the request, the rest left to the
    // reconciliation; nothing echoed.
    let many: Vec<Value> = (0..250)
        .map(|n| json!({"txid": format!("vendas{:020}cobr", 900_000 + n)}))
        .collect();
    let flood = notify(&s, "cobr", Some(PSP_SUBJECT), &json!({"cobsr": many})).await;
    assert_eq!(flood.status(), StatusCode::OK);
    let text = flood.text().await.unwrap();
    assert!(!text.contains("cobr\""), "{text}");
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        data["data"],
        json!({"received": 250, "readBack": 100, "deferred": 150, "changed": 0})
    );
}

/// A Pix contract accepted with its first charge sent to the PSP: its identifier and the txid.
pub(super) async fn contract_with_a_charge_sent(s: &Setup, cpf: &str) -> (String, String) {
    let identifier = s.app.sent_proposal_of(&s.partner, &pix_body(cpf, None)).await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let id_rec = s.app.proposal_data(&identifier, &s.partner).await["payment"]["pixAutomatico"]["idRec"]
        .as_str()
        .unwrap()
        .to_owned();
    sandbox(s, &format!("rec/{id_rec}/approve")).await;
    let accepted = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(accepted.status(), StatusCode::OK);
    run(s).await;
    let data = s.app.proposal_data(&identifier, &s.partner).await;
    (identifier, txid(&data, 1))
}

/// Every cent the PSP settled for the contract went back by a `devolucao` (the period paid had
/// not begun: all of it, corrected up to what the Pix paid) or is owed back by transfer.
fn every_settled_cent_returned(data: &Value) {
    let first = charge(data, 1);
    let refunds = data["refunds"].as_array().cloned().unwrap_or_default();
    match first["status"].as_str().unwrap() {
        "paga" => {
            let by_pix: Vec<&Value> = refunds
                .iter()
                .filter(|r| r["id"].as_str().unwrap().starts_with('D'))
                .collect();
            assert_eq!(by_pix.len(), 1, "{refunds:?}");
            let returned: i64 = refunds.iter().map(|r| r["amount"].as_i64().unwrap()).sum();
            let nominal: i64 = refunds
                .iter()
                .map(|r| r["amount"].as_i64().unwrap() - r["correction"]["amount"].as_i64().unwrap())
                .sum();
            assert_eq!(
                nominal,
                first["amount"].as_i64().unwrap(),
                "the whole period, not begun: {refunds:?}"
            );
            assert!(returned >= nominal);
        }
        "cancelada" => assert!(refunds.is_empty(), "nothing received, nothing returned: {refunds:?}"),
        other => panic!("the first charge ended {other}: {first}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pix_settled_at_the_psp_while_its_contract_ends_is_recorded_and_given_back() {
    let s = setup().await;
    let (identifier, first_txid) = contract_with_a_charge_sent(&s, CPF).await;
    // The payer's bank settles the charge; its notification never arrives.
    let settled = sandbox(&s, &format!("cobr/{first_txid}/settle-unnotified")).await;
    assert_eq!(settled["changed"], 0);
    assert_eq!(
        charge(&s.app.proposal_data(&identifier, &s.partner).await, 1)["status"],
        "aberta"
    );
    let config = TestApp::config(&s.app.db, &[]);
    let drift = api_actix::cli::reconcile_pix(&config, false).await.unwrap();
    assert_eq!(drift.drifted, 1, "the dry run sees the settlement: {drift:?}");
    assert_eq!(drift.charges_mended, 0, "and mends nothing");

    // Past the regret the contract is cancelled: stopping the collection finds the charge
    // settled, records it paid, and the end gives it back, all under its claim.
    days_later(&s, 8).await;
    s.app
        .cancel_at_customers_request(&s.partner, &identifier, "Cliente contratou outro seguro")
        .await;
    let data = s.app.proposal_data(&identifier, &s.office).await;
    assert_eq!(data["proposal"]["status"], "CANCELADO");
    assert_eq!(charge(&data, 1)["status"], "paga");
    every_settled_cent_returned(&data);
    let clean = api_actix::cli::reconcile_pix(&config, false).await.unwrap();
    assert_eq!(clean.drifted, 0, "{clean:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pix_settled_while_its_contract_is_cancelled_is_never_kept_in_twenty_rounds() {
    let s = setup().await;
    let mut contracts = Vec::new();
    for round in 0..20 {
        contracts.push(contract_with_a_charge_sent(&s, &black_box_tests::cpf_from(100 + round)).await);
    }
    days_later(&s, 8).await;
    let mut outcomes = std::collections::BTreeMap::new();
    for (round, (identifier, txid)) in contracts.iter().enumerate() {
        // The payer's bank and the seller at once, a random gap (0 to 9 ms) between them.
        let gap = std::time::Duration::from_millis(
            (std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos() as u64
                + round as u64)
                % 10,
        );
        let pay = async {
            if round % 2 == 0 {
                tokio::time::sleep(gap).await;
            }
            s.app
                .post_json(&format!("/sandbox/pix/cobr/{txid}/pay"), &json!({}))
                .await
                .status()
        };
        let cancel = async {
            if round % 2 == 1 {
                tokio::time::sleep(gap).await;
            }
            s.app
                .post_json_as(
                    &format!("/proposal/{identifier}/cancel"),
                    &s.partner,
                    &json!({"reason": "Cliente contratou outro seguro"}),
                )
                .await
                .status()
        };
        let (paid, cancelled) = tokio::join!(pay, cancel);
        assert!(
            paid == StatusCode::OK || paid.is_client_error(),
            "round {round}: pay {paid}"
        );
        assert_eq!(cancelled, StatusCode::OK, "round {round}");
        let data = s.app.proposal_data(identifier, &s.office).await;
        assert_eq!(data["proposal"]["status"], "CANCELADO");
        every_settled_cent_returned(&data);
        *outcomes
            .entry(charge(&data, 1)["status"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    let config = TestApp::config(&s.app.db, &[]);
    let clean = api_actix::cli::reconcile_pix(&config, false).await.unwrap();
    assert_eq!(clean.drifted, 0, "{clean:?} after {outcomes:?}");
    // And every contract's ledger agrees with what the rails recorded (`ledger check --dry-run`).
    let report = api_actix::cli::check_ledger(&config, false).await.unwrap();
    assert_eq!(
        api_actix::cli::ledger_outcome(&report, false).map_err(|e| e.to_string()),
        Ok(()),
        "{report:?} after {outcomes:?}"
    );
}
