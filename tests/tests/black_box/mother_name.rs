//! The mother's name (nome da mãe, used in identity checks), issue 48's proof that a customer
//! field is four files and a migration: sent by routes 3, 5 and 6, answered by routes 3 and 7,
//! printed on the document, held by the export and removed by anonymisation; a bad one is refused
//! naming its member, with nothing stored.

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

async fn document_text(s: &Sellers, identifier: &str) -> String {
    let response = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.partner))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    pdf_text(&response.bytes().await.unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mothers_name_travels_from_every_route_to_the_answers_and_the_document() {
    let s = sellers().await;

    // Route 3: sent, answered; a later registration that leaves it out keeps it.
    let mut registration = customer_body(CPF);
    registration["cliente"]["nome_mae"] = json!("  Ana   Maria da Silva ");
    let first = created(s.app.post_json_as("/customer/create", &s.partner, &registration).await).await;
    assert_eq!(
        first[0]["nome_mae"], "Ana Maria da Silva",
        "read with the full name's rules"
    );
    let again = created(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(CPF))
            .await,
    )
    .await;
    assert_eq!(again[0]["nome_mae"], "Ana Maria da Silva", "not sent: kept");

    // Route 5 without it: the proposal's copy takes the registration's; route 7 answers it.
    let record = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    assert_eq!(
        customer_of(&s.app, &s.partner, &identifier).await["motherName"],
        "Ana Maria da Silva"
    );

    // A correction through route 3 reaches the NOVO proposal, and its document.
    registration["cliente"]["nome_mae"] = json!("Ana Maria Souza");
    created(s.app.post_json_as("/customer/create", &s.partner, &registration).await).await;
    assert_eq!(
        customer_of(&s.app, &s.partner, &identifier).await["motherName"],
        "Ana Maria Souza"
    );
    let text = document_text(&s, &identifier).await;
    for shown in ["Nome da mãe", "Ana Maria Souza"] {
        assert!(text.contains(shown), "{shown}: {text}");
    }

    // Route 5 with one, for a new customer.
    let mut body = proposal_body(&cpf_from(7));
    body["customer"]["motherName"] = json!("Rita de Cássia");
    let record = created(s.app.post_json_as("/proposal/create", &s.partner, &body).await).await;
    let with_mother = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    assert_eq!(
        customer_of(&s.app, &s.partner, &with_mother).await["motherName"],
        "Rita de Cássia"
    );

    // Route 6: the shop's reduced customer carries it too.
    let mut shop = shop_proposal_body(SHOP_CPF);
    shop["customer"]["motherName"] = json!("Joana Souza");
    let record = created(s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &shop).await).await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap();
    assert_eq!(
        customer_of(&s.app, &s.shop, identifier).await["motherName"],
        "Joana Souza"
    );

    // Without one, the member is left out (the spec's shapes, exactly) and the document says
    // nothing of it.
    let plain = s.app.create_proposal(&s.partner, &cpf_from(8)).await;
    assert_eq!(customer_of(&s.app, &s.partner, &plain).await.get("motherName"), None);
    let plain_registration = created(
        s.app
            .post_json_as("/customer/create", &s.partner, &customer_body(&cpf_from(9)))
            .await,
    )
    .await;
    assert_eq!(plain_registration[0].get("nome_mae"), None);
    assert!(!document_text(&s, &plain).await.contains("Nome da mãe"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_mothers_name_is_refused_naming_its_member_and_nothing_is_stored() {
    let s = sellers().await;
    let mut registration = customer_body(CPF);
    registration["cliente"]["nome_mae"] = json!("Ana");
    let refused = assert_error(
        s.app.post_json_as("/customer/create", &s.partner, &registration).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["cliente.nome_mae"]);
    assert_eq!(refused["errors"][0]["code"], "nome_palavras");

    let mut body = proposal_body(CPF);
    body["customer"]["motherName"] = json!("An4 Souza");
    let refused = assert_error(
        s.app.post_json_as("/proposal/create", &s.partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["customer.motherName"]);
    assert_eq!(refused["errors"][0]["code"], "nome_caractere");

    let mut shop = shop_proposal_body(SHOP_CPF);
    shop["customer"]["motherName"] = json!(42);
    let refused = assert_error(
        s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &shop).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["customer.motherName"]);

    assert_eq!(s.app.count("SELECT count(*) AS n FROM customers").await, 0);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposals").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_export_holds_the_mothers_name_and_anonymisation_removes_it_everywhere() {
    let s = sellers().await;
    let mut body = proposal_body(CPF);
    body["customer"]["motherName"] = json!("Ana Maria Souza");
    let record = created(s.app.post_json_as("/proposal/create", &s.partner, &body).await).await;
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();

    let response = s.app.get(&format!("/privacy/customers/{CPF}"), Some(&s.office)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let export: Value = response.json().await.unwrap();
    assert_eq!(export["data"]["cadastros"][0]["nome_mae"], "Ana Maria Souza");
    assert_eq!(export["data"]["propostas"][0]["cliente"]["nome_mae"], "Ana Maria Souza");

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

    for table in ["customers", "proposal_customers"] {
        assert_eq!(
            s.app
                .count(&format!("SELECT count(*) AS n FROM {table} WHERE nome_mae IS NOT NULL"))
                .await,
            0,
            "{table}"
        );
    }
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_read_models WHERE documento::text LIKE '%Ana Maria%'")
            .await,
        0,
        "route 7's document follows"
    );
    assert_eq!(
        customer_of(&s.app, &s.office, &identifier).await.get("motherName"),
        None
    );
}
