//! Customers are private to the seller that registered them: another seller's registration of the
//! same CPF shows nothing of the first's and changes nothing the first sees; a proposal keeps the
//! customer it was made with; the back office sees every registration with its seller.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, error_fields, proposal_body};
use serde_json::{Value, json};

const PARTNER_A: &str = "11222333000181";
const PARTNER_B: &str = "11444777000161";
const CPF: &str = "12345678909";

struct Sellers {
    app: TestApp,
    a: String,
    b: String,
    shop: String,
    office: String,
}

async fn sellers_with(extra: &[(&str, &str)]) -> Sellers {
    let app = TestApp::spawn_with(extra).await;
    app.seed_catalog().await;
    let a = app.token_for("rep@parceiro-a.com.br", "PARCEIRO", PARTNER_A).await;
    let b = app.token_for("rep@parceiro-b.com.br", "PARCEIRO", PARTNER_B).await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    Sellers {
        app,
        a,
        b,
        shop,
        office,
    }
}

/// Partner A's full registration: a landline, a political exposure and a medicine (health data).
fn registration_a() -> Value {
    json!({
        "cliente": {
            "nome_completo": "Maria da Silva", "cpf": CPF, "data_nascimento": "1990-05-15", "sexo": "Feminino",
            "estado_civil": "Casado", "nacionalidade": "Brasileira", "celular": "(11) 91234-5678",
            "telefone_fixo": "(11) 3123-4567", "email": "maria@exemplo.com.br", "profissao": "Professora", "salario": 250000,
            "trabalhando": true, "pep": true, "medicamento": true, "medicamento_descricao": "Losartana"
        },
        "endereco": {"cep": "01310100", "endereco": "Avenida Paulista", "numero": 1000, "bairro": "Bela Vista",
            "cidade": "São Paulo", "estado": "SP"}
    })
}

/// Another seller's registration of the same CPF, optional fields left out.
fn registration_b() -> Value {
    json!({
        "cliente": {
            "nome_completo": "Beatriz Outra Pessoa", "cpf": CPF, "data_nascimento": "1990-05-15", "sexo": "Feminino",
            "nacionalidade": "Brasileira", "celular": "(21) 98888-7777", "email": "beatriz@outro.com.br",
            "profissao": "Engenheira", "salario": 0
        },
        "endereco": {"cep": "20040002", "endereco": "Rua da Assembleia", "numero": 10, "bairro": "Centro",
            "cidade": "Rio de Janeiro", "estado": "RJ"}
    })
}

/// The shop's sale of another product (103) to the same CPF, with only what route 6 requires.
fn shop_proposal() -> Value {
    json!({"billingCode": 5004, "productCode": 103,
        "customer": {"fullName": "Maria Compradora", "cpf": CPF, "birthDate": "1990-05-15", "gender": "Feminino"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
            "city": "Rio de Janeiro", "state": "RJ"}})
}

async fn register(app: &TestApp, token: &str, body: &Value) -> Value {
    let response = app.post_json_as("/customer/create", token, body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let records: Value = response.json().await.unwrap();
    records[0].clone()
}

async fn detail(app: &TestApp, token: &str, identifier: &str) -> Value {
    let response = app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(token))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    body["data"].clone()
}

/// The proposal answers 404 to this token, exactly as a missing one.
async fn assert_hidden(app: &TestApp, token: &str, identifier: &str) {
    assert_error(
        app.get(&format!("/proposal/byIdentifier/{identifier}"), Some(token))
            .await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
}

async fn document(app: &TestApp, token: &str, identifier: &str) -> Vec<u8> {
    let response = app.get(&format!("/proposal/{identifier}/document"), Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.bytes().await.unwrap().to_vec()
}

/// Whether the PDF's text, as a reader extracts it, holds `needle`.
fn contains(pdf: &[u8], needle: &str) -> bool {
    black_box_tests::pdf_text(pdf).contains(needle)
}

async fn ownership(app: &TestApp, token: &str) -> Value {
    let response = app.get(&format!("/customer/validCustomer/{CPF}"), Some(token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_partner_registering_the_cpf_sees_nothing_of_the_first_and_changes_nothing() {
    let s = sellers_with(&[]).await;
    let first = register(&s.app, &s.a, &registration_a()).await;
    // The proposal carries health data too (the log audit looks for it afterwards).
    let mut body = proposal_body(CPF);
    body["customer"]["medication"] = json!(true);
    body["customer"]["medicationDescription"] = json!("Metformina");
    let response = s.app.post_json_as("/proposal/create", &s.a, &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    // Route 5 sent the same name and phone, so A's proposal shows A's data.
    let before = detail(&s.app, &s.a, &identifier).await;

    let second = register(&s.app, &s.b, &registration_b()).await;
    assert_ne!(second["id"], first["id"], "a registration of its own");
    assert_eq!(second["nome_completo"], "Beatriz Outra Pessoa");
    assert_eq!(
        second["telefone_fixo"],
        Value::Null,
        "A's landline does not show through"
    );
    assert_eq!(second["pep"], false);
    assert_eq!(second["medicamento"], false);
    assert_eq!(second["medicamento_descricao"], Value::Null);
    assert_eq!(second["trabalhando"], false);

    // Route 7 and the document of A's proposal are as they were.
    let after = detail(&s.app, &s.a, &identifier).await;
    assert_eq!(after["customer"], before["customer"]);
    assert_eq!(after["customer"]["fullName"], "Maria da Silva");
    assert_eq!(after["customer"]["cellPhone"], "(11) 91234-5678");
    assert_eq!(after["customer"]["street"], "Avenida Paulista");
    assert_eq!(after["customer"]["medicationDescription"], "Metformina");
    let pdf = document(&s.app, &s.a, &identifier).await;
    assert!(contains(&pdf, "Maria da Silva"));
    assert!(!contains(&pdf, "Beatriz"), "B's registration is not in A's document");
    assert!(!contains(&pdf, "Assembleia"));

    // A's registration, read back through route 3 with only the required fields: all A's (a
    // correction of A's own, which A's unsent proposal takes).
    let mut again = registration_a();
    for optional in [
        "telefone_fixo",
        "pep",
        "medicamento",
        "medicamento_descricao",
        "trabalhando",
        "estado_civil",
    ] {
        again["cliente"].as_object_mut().unwrap().remove(optional);
    }
    again.as_object_mut().unwrap().remove("endereco");
    let a_again = register(&s.app, &s.a, &again).await;
    assert_eq!(a_again["id"], first["id"]);
    assert_eq!(a_again["nome_completo"], "Maria da Silva");
    assert_eq!(a_again["email"], "maria@exemplo.com.br");
    assert_eq!(a_again["celular"], "(11) 91234-5678");
    assert_eq!(a_again["telefone_fixo"], "(11) 3123-4567");
    assert_eq!(a_again["pep"], true);
    assert_eq!(a_again["medicamento_descricao"], "Metformina", "route 5 sent it last");

    // Route 4: each partner sees its own registration; only A has a proposal.
    let a_owns = ownership(&s.app, &s.a).await;
    assert_eq!(a_owns["rowsAffected"], json!([1]));
    assert_eq!(
        a_owns["document"],
        json!([{"id_cliente": first["id"], "codigo_produto": 101}])
    );
    let b_owns = ownership(&s.app, &s.b).await;
    assert_eq!(b_owns["rowsAffected"], json!([1]));
    assert_eq!(b_owns["document"], json!([]), "A's proposal is not B's");
    // Routes 8 and 9 stay global: B learns only that the CPF and phone are taken for the product.
    for path in [
        format!("/proposal/cpfValidtoProduct/{CPF}/9101"),
        "/proposal/cellPhoneValidtoProduct/11912345678/9101".to_owned(),
    ] {
        let available: Value = s.app.get(&path, Some(&s.b)).await.json().await.unwrap();
        assert_eq!(available["data"]["isValid"], false, "{path}");
    }
    let refused = s.app.post_json_as("/proposal/create", &s.b, &proposal_body(CPF)).await;
    assert_error(refused, StatusCode::BAD_REQUEST, "proposta_em_andamento").await;
    // B cannot read A's proposal.
    assert_hidden(&s.app, &s.b, &identifier).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shop_registering_the_cpf_sees_nothing_of_a_partners_and_changes_nothing() {
    let s = sellers_with(&[]).await;
    register(&s.app, &s.a, &registration_a()).await;
    let partners = s.app.create_proposal(&s.a, CPF).await;
    let before = detail(&s.app, &s.a, &partners).await;

    // The shop sells another product to the same CPF, sending only what route 6 requires.
    let response = s
        .app
        .post_json_as("/proposal/create/ecommerce", &s.shop, &shop_proposal())
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    let shops = created["document"][0]["identificador"].as_str().unwrap().to_owned();

    let seen = detail(&s.app, &s.shop, &shops).await["customer"].clone();
    assert_eq!(seen["fullName"], "Maria Compradora");
    assert_eq!(seen["phone"], Value::Null);
    assert_eq!(seen["cellPhone"], Value::Null);
    assert_eq!(seen["email"], Value::Null);
    assert_eq!(seen["pep"], false);
    assert_eq!(seen["takingMedication"], false);
    assert_eq!(seen["medicationDescription"], Value::Null);
    assert_eq!(seen["street"], "Rua da Assembleia");
    assert_ne!(
        created["document"][0]["id_cliente"], before["proposal"]["customerId"],
        "the shop's own registration"
    );

    assert_eq!(detail(&s.app, &s.a, &partners).await["customer"], before["customer"]);
    // The shop reads only e-commerce proposals; the partner's stays out of its reach.
    assert_hidden(&s.app, &s.shop, &partners).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_sees_every_registration_with_its_seller_and_no_one_else_does() {
    let s = sellers_with(&[]).await;
    let a = register(&s.app, &s.a, &registration_a()).await;
    let b = register(&s.app, &s.b, &registration_b()).await;

    let response = s
        .app
        .get(&format!("/customer/registrations/{CPF}"), Some(&s.office))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(body["rowsAffected"], json!([2]));
    let found = body["document"].as_array().unwrap();
    assert_eq!(found[0]["id"], a["id"]);
    assert_eq!(found[0]["nome_completo"], "Maria da Silva");
    assert_eq!(found[0]["medicamento_descricao"], "Losartana");
    assert_eq!(found[0]["endereco"]["endereco"], "Avenida Paulista");
    assert_eq!(found[0]["vendedor"]["aplicacao"], "PARCEIRO");
    assert_eq!(found[0]["vendedor"]["cpf_cnpj_parceiro"], PARTNER_A);
    assert_eq!(found[1]["id"], b["id"]);
    assert_eq!(found[1]["nome_completo"], "Beatriz Outra Pessoa");
    assert_eq!(found[1]["vendedor"]["cpf_cnpj_parceiro"], PARTNER_B);
    assert_eq!(found[1]["endereco"]["cidade"], "Rio de Janeiro");

    // Route 4 for the back office: registered (with anyone).
    assert_eq!(ownership(&s.app, &s.office).await["rowsAffected"], json!([1]));

    for token in [&s.a, &s.shop] {
        assert_error(
            s.app.get(&format!("/customer/registrations/{CPF}"), Some(token)).await,
            StatusCode::FORBIDDEN,
            "sem_permissao",
        )
        .await;
    }
    let bad = assert_error(
        s.app.get("/customer/registrations/12345678900", Some(&s.office)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&bad), ["cpf"]);
    let none: Value = s
        .app
        .get("/customer/registrations/52998224725", Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (none["document"].clone(), none["rowsAffected"].clone()),
        (json!([]), json!([0]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_proposal_sent_for_signature_is_unchanged_by_any_later_registration() {
    let s = sellers_with(&[("SIGNATURE_CALLBACK_SECRET", "segredo-de-teste-1234567890")]).await;
    let created: Value = s
        .app
        .post_json_as("/proposal/create", &s.a, &proposal_body(CPF))
        .await
        .json()
        .await
        .unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = created["document"][0]["id_cliente"].as_i64().unwrap();
    let sent = s
        .app
        .post_json_as(
            "/signer",
            &s.a,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let before = detail(&s.app, &s.office, &identifier).await;
    let pdf_before = document(&s.app, &s.a, &identifier).await;

    // Its own seller corrects the registration, another partner and the shop register the CPF.
    let mut correction = registration_b();
    correction["cliente"]["nome_completo"] = json!("Maria Corrigida Depois");
    register(&s.app, &s.a, &correction).await;
    register(&s.app, &s.b, &registration_b()).await;
    let shop = s
        .app
        .post_json_as("/proposal/create/ecommerce", &s.shop, &shop_proposal())
        .await;
    assert_eq!(shop.status(), StatusCode::CREATED);

    let after = detail(&s.app, &s.office, &identifier).await;
    assert_eq!(after["customer"], before["customer"]);
    assert_eq!(after["customer"]["fullName"], "Maria da Silva");
    let pdf_after = document(&s.app, &s.a, &identifier).await;
    assert!(contains(&pdf_after, "Maria da Silva"));
    assert!(
        !contains(&pdf_after, "Corrigida") && !contains(&pdf_after, "Beatriz") && !contains(&pdf_after, "Assembleia")
    );
    assert_eq!(pdf_after.len(), pdf_before.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_proposal_follows_its_own_sellers_correction_until_it_is_sent() {
    let s = sellers_with(&[]).await;
    let identifier = s.app.create_proposal(&s.a, CPF).await;
    let mut correction = registration_a();
    correction["cliente"]["celular"] = json!("(11) 97777-6666");
    register(&s.app, &s.a, &correction).await;
    assert_eq!(
        detail(&s.app, &s.a, &identifier).await["customer"]["cellPhone"],
        "(11) 97777-6666"
    );
    // Another seller's registration is not a correction of A's proposal.
    register(&s.app, &s.b, &registration_b()).await;
    assert_eq!(
        detail(&s.app, &s.a, &identifier).await["customer"]["cellPhone"],
        "(11) 97777-6666"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_signing_notice_goes_to_the_phone_of_the_proposals_own_customer() {
    use wiremock::MockServer;
    let clicksign = MockServer::start().await;
    let uri = clicksign.uri();
    let s = sellers_with(&[
        ("CLICKSIGN_BASE_URL", &uri),
        ("CLICKSIGN_ACCESS_TOKEN", "token"),
        ("SIGNATURE_CALLBACK_SECRET", "segredo-de-teste-1234567890"),
    ])
    .await;
    let created: Value = s
        .app
        .post_json_as("/proposal/create", &s.a, &proposal_body(CPF))
        .await
        .json()
        .await
        .unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = created["document"][0]["id_cliente"].as_i64().unwrap();
    // Partner B registers the same CPF with another phone before A sends.
    register(&s.app, &s.b, &registration_b()).await;

    black_box_tests::mount_clicksign_envelope(&clicksign).await;
    black_box_tests::mount_clicksign_signers(&clicksign).await;
    black_box_tests::mount_clicksign_notifications(&clicksign).await;
    let sent = s
        .app
        .post_json_as(
            "/signer",
            &s.a,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);

    let signers: Vec<Value> = clicksign
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/api/v3/envelopes/env-1/signers")
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["attributes"].clone())
        .collect();
    let client = signers
        .iter()
        .find(|s| s["documentation"] == "123.456.789-09" || s["name"] == "Maria da Silva")
        .unwrap_or_else(|| panic!("no client signer in {signers:?}"));
    assert_eq!(client["name"], "Maria da Silva");
    let phone = client["phone_number"].as_str().unwrap_or_default();
    assert!(phone.contains("912345678"), "A's customer's phone, not B's: {client}");
    assert!(
        !signers
            .iter()
            .any(|s| s.to_string().contains("988887777") || s.to_string().contains("Beatriz")),
        "nothing of B's registration reaches the provider"
    );
}
