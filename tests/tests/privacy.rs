//! The LGPD routes: everything held about a CPF exported, anonymisation refused while a proposal
//! is unfinished, and afterwards nothing personal reachable while the signed contract is kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";

struct Setup {
    app: TestApp,
    partner: String,
    shop: String,
    office: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

fn shop_body() -> Value {
    json!({
        "billingCode": 5004, "productCode": 103, "shippingType": "sms",
        "customer": {"fullName": "Maria da Silva", "cpf": CPF, "birthDate": "1990-05-15", "gender": "Feminino",
            "maritalStatus": "Solteiro", "cellPhone": "(21) 99876-5432", "email": "maria.loja@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro",
            "city": "Rio de Janeiro", "state": "RJ", "complement": "Sala 501"}
    })
}

async fn created(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    body["document"][0].clone()
}

async fn export(s: &Setup) -> Value {
    let response = s.app.get(&format!("/privacy/customers/{CPF}"), Some(&s.office)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    body["data"].clone()
}

async fn anonymize(s: &Setup, token: &str) -> reqwest::Response {
    s.app
        .client
        .post(s.app.url("/privacy/customers/529.982.247-25/anonymize"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

async fn move_to(s: &Setup, identifier: &str, status: &str) {
    let response = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": status, "reason": "pedido do titular"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

async fn history_actions(s: &Setup, identifier: &str) -> Vec<String> {
    let body: Value = s
        .app
        .get(&format!("/proposal/{identifier}/history"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    body["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect()
}

/// The partner's proposal taken through the sandbox's four signatures and approved: its sealed
/// and signed documents exist.
async fn signed_and_approved(s: &Setup, record: &Value) -> String {
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
    move_to(s, &identifier, "APROVADO").await;
    identifier
}

#[tokio::test(flavor = "multi_thread")]
async fn only_the_back_office_exercises_the_rights_and_a_bad_cpf_is_named() {
    let s = setup().await;
    for token in [&s.partner, &s.shop] {
        assert_error(
            s.app.get(&format!("/privacy/customers/{CPF}"), Some(token)).await,
            StatusCode::FORBIDDEN,
            "sem_permissao",
        )
        .await;
        assert_error(anonymize(&s, token).await, StatusCode::FORBIDDEN, "sem_permissao").await;
    }
    let bad = assert_error(
        s.app.get("/privacy/customers/123.456.789-00", Some(&s.office)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(bad["errors"][0]["field"], "cpf");
    // Nothing held: an empty export, and nothing to anonymise.
    let empty = export(&s).await;
    assert_eq!(empty, json!({"cpf": CPF, "cadastros": [], "propostas": []}));
    assert_error(
        anonymize(&s, &s.office).await,
        StatusCode::NOT_FOUND,
        "titular_sem_dados",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_export_holds_every_registration_and_proposal_and_is_recorded_in_their_history() {
    let s = setup().await;
    let partners = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let shops = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &shop_body())
            .await,
    )
    .await;

    let data = export(&s).await;
    assert_eq!(data["cpf"], CPF);
    let registrations = data["cadastros"].as_array().unwrap();
    assert_eq!(registrations.len(), 2, "one registration per seller");
    let sellers: Vec<&str> = registrations
        .iter()
        .map(|r| r["vendedor"]["aplicacao"].as_str().unwrap())
        .collect();
    assert_eq!(sellers, ["PARCEIRO", "ECOMMERCE"]);
    assert_eq!(registrations[0]["endereco"]["endereco"], "Avenida Paulista");
    assert_eq!(registrations[1]["email"], "maria.loja@exemplo.com.br");
    let proposals = data["propostas"].as_array().unwrap();
    let identifiers: Vec<&Value> = proposals.iter().map(|p| &p["proposta"]["identificador"]).collect();
    assert_eq!(identifiers, [&partners["identificador"], &shops["identificador"]]);
    assert_eq!(proposals[0]["cliente"]["nome_completo"], "Maria da Silva");
    assert_eq!(proposals[0]["pagamento"]["tipo"], "DESCONTO EM FOLHA");
    assert_eq!(proposals[0]["historico"][0]["action"], "criacao");
    for member in ["assinatura", "documentos", "assinaturas_pagamento", "eventos"] {
        assert!(proposals[0].get(member).is_some(), "{member}");
    }
    for record in [&partners, &shops] {
        assert_eq!(
            history_actions(&s, record["identificador"].as_str().unwrap()).await,
            ["criacao", "exportacao"]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn anonymisation_waits_for_every_proposal_to_finish_then_leaves_nothing_personal_but_the_signed_contract() {
    let s = setup().await;
    let partners = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let shops = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &shop_body())
            .await,
    )
    .await;
    let shop_id = shops["identificador"].as_str().unwrap().to_owned();

    // Unfinished proposals block it, each named; nothing changes.
    let blocked = assert_error(
        anonymize(&s, &s.office).await,
        StatusCode::CONFLICT,
        "anonimizacao_bloqueada",
    )
    .await;
    let message = blocked["message"].as_str().unwrap();
    assert!(message.contains(partners["identificador"].as_str().unwrap()) && message.contains(&shop_id));
    assert_eq!(export(&s).await["cadastros"][0]["nome_completo"], "Maria da Silva");

    let partner_id = signed_and_approved(&s, &partners).await;
    move_to(&s, &shop_id, "CANCELADO").await;
    let signed_before = s
        .app
        .get(&format!("/proposal/{partner_id}/document"), Some(&s.office))
        .await
        .bytes()
        .await
        .unwrap();

    let response = anonymize(&s, &s.office).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    let done = &body["data"];
    assert_eq!(done["cadastros"], 2);
    assert_eq!(done["propostas"], json!([partner_id, shop_id]));
    let kept: Vec<(&str, &str)> = done["documentosMantidos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["identificador"].as_str().unwrap(), d["versao"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kept,
        [(partner_id.as_str(), "assinado"), (partner_id.as_str(), "selado")]
    );

    // Route 4 says "not registered" to every seller; the registrations and the export are empty.
    let ownership: Value = s
        .app
        .get(&format!("/customer/validCustomer/{CPF}"), Some(&s.partner))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ownership["rowsAffected"], json!([0]));
    let registrations: Value = s
        .app
        .get(&format!("/customer/registrations/{CPF}"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(registrations["document"], json!([]));
    assert_eq!(export(&s).await, json!({"cpf": CPF, "cadastros": [], "propostas": []}));

    // The proposals remain, without the person; their history says what happened.
    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{partner_id}"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let text = detail.to_string();
    for personal in ["Maria", "Silva", "maria@exemplo", "91234", "Paulista", CPF] {
        assert!(!text.contains(personal), "{personal} still in route 7");
    }
    assert!(
        history_actions(&s, &partner_id)
            .await
            .contains(&"anonimizacao".to_owned())
    );
    assert!(history_actions(&s, &shop_id).await.contains(&"anonimizacao".to_owned()));
    let history: Value = s
        .app
        .get(&format!("/proposal/{partner_id}/history"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let entry = history["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "anonimizacao")
        .unwrap()
        .clone();
    assert_eq!(entry["by"], "bo@demo.com.br");
    assert_eq!(s.app.count("SELECT count(*) AS n FROM addresses").await, 0);

    // The signed contract is kept as it was.
    let signed_after = s
        .app
        .get(&format!("/proposal/{partner_id}/document"), Some(&s.office))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(signed_before, signed_after);

    // Done once: nothing is held under the CPF any more.
    assert_error(
        anonymize(&s, &s.office).await,
        StatusCode::NOT_FOUND,
        "titular_sem_dados",
    )
    .await;
}
