//! The social name (nome social, Decreto 8.727/2016): sent by routes 3, 5 and 6, answered by
//! routes 3 and 7, printed on the document beside the civil name, held by the export and removed
//! by anonymisation; a bad one is refused naming its member, with nothing stored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{
    StatusCode, TestApp, assert_error, cpf_from, customer_body, error_fields, pdf_text, proposal_body,
    shop_proposal_body,
};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";
const SHOP_CPF: &str = "12345678909";

struct Sellers {
    app: TestApp,
    partner: String,
    shop: String,
    office: String,
}

async fn sellers() -> Sellers {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    Sellers {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

async fn created(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.unwrap()
}

async fn customer_of(app: &TestApp, token: &str, identifier: &str) -> Value {
    let response = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["data"]["customer"].clone()
}

async fn export(s: &Sellers, cpf: &str) -> Value {
    let response = s.app.get(&format!("/privacy/customers/{cpf}"), Some(&s.office)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["data"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_social_name_travels_from_every_route_to_the_answers_and_the_document_beside_the_civil_name() {
    let s = sellers().await;

    // Route 3: sent, answered; a later registration that leaves it out keeps it.
    let mut registration = customer_body(CPF);
    registration["cliente"]["nome_social"] = json!("  Mariana   Souza ");
    let first = created(s.app.post_json_as("/customer/create", &s.partner, &registration).await).await;
    assert_eq!(
        first[0]["nome_social"], "Mariana Souza",
        "read with the full name's rules"
    );
    assert_eq!(first[0]["nome_completo"], "Maria da Silva");
    let again = created(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(CPF))
            .await,
    )
    .await;
    assert_eq!(again[0]["nome_social"], "Mariana Souza", "not sent: kept");

    // Route 5 without it: the proposal's copy takes the registration's.
    let record = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer = customer_of(&s.app, &s.partner, &identifier).await;
    assert_eq!(customer["socialName"], "Mariana Souza");
    assert_eq!(customer["fullName"], "Maria da Silva");

    // A correction through route 3: the registration's NOVO proposal's copy follows it.
    registration["cliente"]["nome_social"] = json!("Mariana Souza Lima");
    created(s.app.post_json_as("/customer/create", &s.partner, &registration).await).await;
    let customer = customer_of(&s.app, &s.partner, &identifier).await;
    assert_eq!(
        customer["socialName"], "Mariana Souza Lima",
        "a NOVO proposal follows its registration"
    );

    // The document shows the social name first and the civil name beside it.
    let response = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.partner))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = pdf_text(&response.bytes().await.unwrap());
    for shown in ["Nome social", "Mariana Souza Lima", "Nome civil", "Maria da Silva"] {
        assert!(text.contains(shown), "{shown}: {text}");
    }

    // Route 5 with one, for a new customer: route 7 answers it.
    let other = cpf_from(7);
    let mut body = proposal_body(&other);
    body["customer"]["socialName"] = json!("Mariano Souza");
    let record = created(s.app.post_json_as("/proposal/create", &s.partner, &body).await).await;
    let with_social = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer = customer_of(&s.app, &s.partner, &with_social).await;
    assert_eq!(customer["socialName"], "Mariano Souza");

    // Route 6: the shop's reduced customer carries it too.
    let mut shop = shop_proposal_body(SHOP_CPF);
    shop["customer"]["socialName"] = json!("Joana Souza");
    let record = created(s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &shop).await).await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap();
    let customer = customer_of(&s.app, &s.shop, identifier).await;
    assert_eq!(customer["socialName"], "Joana Souza");
    assert_eq!(customer["fullName"], "João Souza");

    // Without one, the member is left out (the spec's customer, exactly); the document says only
    // "Nome".
    let plain = s.app.create_proposal(&s.partner, &cpf_from(8)).await;
    let customer = customer_of(&s.app, &s.partner, &plain).await;
    assert_eq!(customer.get("socialName"), None);
    let plain_registration = created(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(&cpf_from(9)))
            .await,
    )
    .await;
    assert_eq!(plain_registration[0].get("nome_social"), None);
    let response = s
        .app
        .get(&format!("/proposal/{plain}/document"), Some(&s.partner))
        .await;
    let text = pdf_text(&response.bytes().await.unwrap());
    assert!(
        text.contains("Maria da Silva") && !text.contains("Nome social") && !text.contains("Nome civil"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_social_name_is_refused_naming_its_member_and_nothing_is_stored() {
    let s = sellers().await;
    let mut registration = customer_body(CPF);
    registration["cliente"]["nome_social"] = json!("Mariana");
    let refused = assert_error(
        s.app.post_json_as("/customer/create", &s.partner, &registration).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["cliente.nome_social"]);
    assert_eq!(refused["errors"][0]["code"], "nome_palavras");

    let mut body = proposal_body(CPF);
    body["customer"]["socialName"] = json!("M4riana Souza");
    let refused = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["customer.socialName"]);
    assert_eq!(refused["errors"][0]["code"], "nome_caractere");

    let mut shop = shop_proposal_body(SHOP_CPF);
    shop["customer"]["socialName"] = json!(42);
    let refused = assert_error(
        s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &shop).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["customer.socialName"]);

    assert_eq!(s.app.count("SELECT count(*) AS n FROM customers").await, 0);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposals").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_export_holds_the_social_name_and_anonymisation_removes_it_everywhere() {
    let s = sellers().await;
    let mut body = proposal_body(CPF);
    body["customer"]["socialName"] = json!("Mariana Souza");
    let record = created(s.app.post_json_as("/proposal/create", &s.partner, &body).await).await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();

    let data = export(&s, CPF).await;
    assert_eq!(data["cadastros"][0]["nome_social"], "Mariana Souza");
    assert_eq!(data["propostas"][0]["cliente"]["nome_social"], "Mariana Souza");

    let response = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "CANCELADO", "reason": "pedido do titular"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let response = s
        .app
        .client
        .post(s.app.url(&format!("/privacy/customers/{CPF}/anonymize")))
        .bearer_auth(&s.office)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM customers WHERE nome_social IS NOT NULL")
            .await,
        0
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_customers WHERE nome_social IS NOT NULL")
            .await,
        0
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_read_models WHERE documento::text LIKE '%Mariana%'")
            .await,
        0,
        "route 7's document follows"
    );
    let customer = customer_of(&s.app, &s.office, &identifier).await;
    assert_eq!(customer.get("socialName"), None);
}
