//! The legal hold (issue 47): asked to anonymise a person with a contract in force, or ended less
//! than `RETENTION_CONTRACT_YEARS` ago, the service refuses with `409 retencao_legal` naming the
//! basis and the hold's end, and blocks the person instead: out of the sellers' list, search and
//! route 7, refused for any new registration or proposal (routes 3, 5 and 6), marked in the
//! export. Once the hold has ended (lived through with the sandbox's clock), the same request
//! anonymises.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, customer_body, proposal_body, shop_proposal_body};
use serde_json::{Value, json};

pub(super) const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";
const OTHER_CPF: &str = "11144477735";

/// The demo's catalog, a partner's representative and the back office (the retention schedule's
/// tests share it).
pub(super) struct Setup {
    pub(super) app: TestApp,
    pub(super) partner: String,
    pub(super) office: String,
}

pub(super) async fn setup() -> Setup {
    setup_with(&[]).await
}

/// [`setup`] with some of the service's settings.
pub(super) async fn setup_with(settings: &[(&str, &str)]) -> Setup {
    let app = TestApp::spawn_with(settings).await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

/// A contract of `cpf`: made by the partner, signed by every party and approved by the back office.
pub(super) async fn contract(s: &Setup, cpf: &str) -> String {
    contract_of(s, &proposal_body(cpf)).await
}

/// [`contract`] of the route 5 proposal `body`.
pub(super) async fn contract_of(s: &Setup, body: &Value) -> String {
    let identifier = s.app.sent_proposal_of(&s.partner, body).await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let approved = s
        .app
        .change_status(&s.office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    identifier
}

pub(super) async fn anonymize(s: &Setup) -> reqwest::Response {
    s.app
        .client
        .post(s.app.url(&format!("/privacy/customers/{CPF}/anonymize")))
        .bearer_auth(&s.office)
        .send()
        .await
        .unwrap()
}

/// The back office's export of the person (`data`).
pub(super) async fn export(s: &Setup) -> Value {
    let response = s.app.get(&format!("/privacy/customers/{CPF}"), Some(&s.office)).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json::<Value>().await.unwrap()["data"].clone()
}

/// The identifiers `token`'s caller finds in the list, filtered by `query` (`q`).
async fn listed(s: &Setup, token: &str, query: &str) -> Vec<String> {
    let path = match query {
        "" => "/proposal/list".to_owned(),
        query => format!("/proposal/list?q={query}"),
    };
    let response = s.app.get(&path, Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["document"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["identificador"].as_str().unwrap().to_owned())
        .collect()
}

/// A timestamp of the export (PostgreSQL's JSON text).
fn at(value: &Value) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_str(value.as_str().unwrap(), "%Y-%m-%dT%H:%M:%S%.f%:z")
        .unwrap()
        .to_utc()
}

pub(super) async fn days_later(s: &Setup, days: i64) {
    let moved = s.app.post_json("/sandbox/clock", &json!({"daysAhead": days})).await;
    assert_eq!(moved.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_contract_in_force_blocks_the_person_instead_and_no_seller_sees_or_uses_their_data() {
    let s = setup().await;
    let held = contract(&s, CPF).await;
    let other = contract(&s, OTHER_CPF).await;

    let refused = assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;
    let message = refused["message"].as_str().unwrap();
    for named in [
        "o fim do contrato em vigor e mais 5 anos",
        "LGPD art. 16, I",
        "Lei 9.613/1998",
        held.as_str(),
    ] {
        assert!(message.contains(named), "{named} not in: {message}");
    }

    // Nothing was anonymised: the back office reads everything, and the export says why it is kept.
    let office_view = s.app.proposal_data(&held, &s.office).await;
    assert_eq!(office_view["customer"]["fullName"], "Maria da Silva");
    let exported = export(&s).await;
    assert_eq!(exported["cadastros"][0]["nome_completo"], "Maria da Silva");
    assert!(exported["bloqueio"]["base"].as_str().unwrap().contains("art. 16, I"));
    assert_eq!(
        exported["bloqueio"]["ate"],
        Value::Null,
        "a contract in force: no end yet"
    );
    assert_eq!(exported["bloqueio"]["por"], "bo@demo.com.br");
    let history = &exported["propostas"][0]["historico"];
    assert!(
        history.as_array().unwrap().iter().any(|h| h["action"] == "bloqueio"),
        "{history}"
    );

    // The seller still serves the contract in force (decision 284): route 7, its history and its
    // events answer; the list and its search leave the person out.
    let served = s.app.proposal_data(&held, &s.partner).await;
    assert_eq!(served["proposal"]["status"], "APROVADO");
    assert_eq!(served["customer"]["fullName"], "Maria da Silva");
    for path in [format!("/proposal/{held}/history"), format!("/proposal/{held}/events")] {
        assert_eq!(
            s.app.get(&path, Some(&s.partner)).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
    assert!(
        message.contains("o contrato em vigor segue atendido pelo seu vendedor"),
        "{message}"
    );
    assert_eq!(listed(&s, &s.partner, "").await, [other.as_str()]);
    assert_eq!(listed(&s, &s.partner, CPF).await, Vec::<String>::new());
    assert_eq!(listed(&s, &s.partner, "Maria").await, [other.as_str()]);
    let office_list = listed(&s, &s.office, "").await;
    assert!(office_list.contains(&held) && office_list.contains(&other));

    // Nothing new is made of the person's data, by any seller's route.
    let error = assert_error(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
        StatusCode::CONFLICT,
        "titular_bloqueado",
    )
    .await;
    assert!(error["message"].as_str().unwrap().contains("retenção legal"));
    assert_error(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(CPF))
            .await,
        StatusCode::CONFLICT,
        "titular_bloqueado",
    )
    .await;
    // The shop's route 6 too.
    let shop = s.app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    assert_error(
        s.app
            .post_json_as("/proposal/create/ecommerce", &shop, &shop_proposal_body(CPF))
            .await,
        StatusCode::CONFLICT,
        "titular_bloqueado",
    )
    .await;
    // Others are unaffected.
    assert_eq!(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body("39053344705"))
            .await
            .status(),
        StatusCode::CREATED
    );

    // Asked again, the same answer; the block is one row.
    assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM personal_data_blocks").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ended_contract_holds_for_five_years_after_its_end_then_the_person_is_anonymised() {
    let s = setup().await;
    let held = contract(&s, CPF).await;
    // Past the right of regret, the customer cancels: the contract ends.
    days_later(&s, 10).await;
    let cancelled = s
        .app
        .post_json_as(
            &format!("/proposal/{held}/cancel"),
            &s.partner,
            &json!({"reason": "Cliente mudou de emprego"}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);

    let refused = assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;
    // An ended contract is kept for the law, not served: its seller no longer reads it.
    let hidden = s
        .app
        .get(&format!("/proposal/byIdentifier/{held}"), Some(&s.partner))
        .await;
    assert_eq!(hidden.status(), StatusCode::NOT_FOUND);
    let exported = export(&s).await;
    let ended_at = exported["propostas"][0]["eventos"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["from_status"] == "APROVADO")
        .map(|e| at(&e["changed_at"]))
        .unwrap();
    let until = at(&exported["bloqueio"]["ate"]);
    assert_eq!(until, ended_at + chrono::Months::new(60), "five years after its end");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains(&until.format("%d/%m/%Y").to_string()), "{message}");

    // A day before its end the hold still holds; a day after it, the request anonymises and the
    // block goes.
    let days_left = (until - chrono::Utc::now()).num_days();
    days_later(&s, days_left - 1).await;
    assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;
    days_later(&s, days_left + 1).await;
    let done = anonymize(&s).await;
    assert_eq!(done.status(), StatusCode::OK);
    let body: Value = done.json().await.unwrap();
    assert_eq!(body["data"]["propostas"], json!([held]));
    assert_eq!(s.app.count("SELECT count(*) AS n FROM personal_data_blocks").await, 0);
    assert_eq!(export(&s).await, json!({"cpf": CPF, "cadastros": [], "propostas": []}));
    // The CPF is free again: a new customer of it is anyone's.
    assert_eq!(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(CPF))
            .await
            .status(),
        StatusCode::CREATED
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_whose_proposals_never_concluded_is_anonymised_at_once() {
    let s = setup().await;
    // Signed, then refused by the analyst: never a contract.
    let identifier = s.app.sent_proposal(&s.partner, CPF).await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let refused = s
        .app
        .change_status(&s.office, &identifier, "REPROVADO", "Renda não comprovada pelo cliente")
        .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let done = anonymize(&s).await;
    assert_eq!(done.status(), StatusCode::OK);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM personal_data_blocks").await, 0);
}

/// Decision 284 keeps the contract in force serviceable; a blocked person's other proposals stay
/// the back office's alone, their history included (it answered any seller before).
#[tokio::test(flavor = "multi_thread")]
async fn a_blocked_persons_refused_proposal_and_its_history_are_the_back_offices_only() {
    let s = setup().await;
    let held = contract(&s, CPF).await;
    let refused = s.app.sent_proposal(&s.partner, CPF).await;
    s.app.sign_as_every_party(&s.office, &refused).await;
    let refusal = s
        .app
        .change_status(&s.office, &refused, "REPROVADO", "Risco não aceito")
        .await;
    assert_eq!(refusal.status(), StatusCode::OK);
    assert_error(anonymize(&s).await, StatusCode::CONFLICT, "retencao_legal").await;

    for path in [
        format!("/proposal/byIdentifier/{refused}"),
        format!("/proposal/{refused}/history"),
    ] {
        assert_error(
            s.app.get(&path, Some(&s.partner)).await,
            StatusCode::NOT_FOUND,
            "proposta_nao_encontrada",
        )
        .await;
        assert_eq!(
            s.app.get(&path, Some(&s.office)).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
    assert_eq!(
        s.app
            .get(&format!("/proposal/{held}/history"), Some(&s.partner))
            .await
            .status(),
        StatusCode::OK,
        "the contract in force is still its seller's"
    );
}
