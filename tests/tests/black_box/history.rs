//! `GET /proposal/:identifier/history`: an entry for every change on the whole path from creation
//! to approval, personal values masked, scoped as route 7, and never changed or removed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";

struct Setup {
    app: TestApp,
    partner: String,
    other_partner: String,
    shop: String,
    office: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn_with(&[("SIGNATURE_MAX_RESENDS", "2")]).await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        other_partner: app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    }
}

async fn history(s: &Setup, identifier: &str, token: &str) -> reqwest::Response {
    s.app.get(&format!("/proposal/{identifier}/history"), Some(token)).await
}

async fn entries(s: &Setup, identifier: &str) -> Vec<Value> {
    let response = history(s, identifier, &s.office).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "success");
    body["data"]["entries"].as_array().unwrap().clone()
}

fn actions(entries: &[Value]) -> Vec<&str> {
    entries.iter().map(|e| e["action"].as_str().unwrap()).collect()
}

/// The partner's correction of its customer (route 3, same CPF): another name, e-mail and phone.
fn correction() -> Value {
    json!({
        "cliente": {"nome_completo": "Maria Aparecida Souza", "cpf": CPF, "data_nascimento": "1990-05-15T00:00:00.000Z",
            "sexo": "Feminino", "estado_civil": "Casado", "nacionalidade": "Brasileira", "celular": "(11) 98888-7777",
            "telefone_fixo": null, "email": "maria.souza@exemplo.com.br", "profissao": "Professora", "salario": 141200,
            "trabalhando": true, "servidor_publico": false, "pep": false, "afastado": false, "medicamento": false,
            "e_analfabeto": false}
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn every_change_from_creation_to_approval_has_its_entry_oldest_first_personal_values_masked() {
    let s = setup().await;
    let created = s
        .app
        .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let record: Value = created.json().await.unwrap();
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    let customer_id = record["document"][0]["id_cliente"].as_i64().unwrap();

    let first = entries(&s, &identifier).await;
    assert_eq!(actions(&first), ["criacao"]);
    assert_eq!(first[0]["by"], "rep@demo.com.br");
    assert_eq!(first[0]["at"], record["document"][0]["criado_em"]);
    let changes = &first[0]["changes"];
    assert_eq!(changes["status"], json!({"from": null, "to": "NOVO"}));
    assert_eq!(changes["codigo_faturamento"], json!({"from": null, "to": 5002}));
    assert_eq!(changes["tipo_envio"], json!({"from": null, "to": "whatsapp"}));
    assert_eq!(changes["cpf_cliente"], json!({"from": null, "to": "***.***.***-25"}));

    // A correction of the customer reaches the NOVO proposal's copy: masked before and after.
    let corrected = s.app.post_json_as("/customer/create", &s.partner, &correction()).await;
    assert_eq!(corrected.status(), StatusCode::CREATED);
    let after_correction = entries(&s, &identifier).await;
    assert_eq!(actions(&after_correction), ["criacao", "correcao"]);
    let changes = &after_correction[1]["changes"];
    assert_eq!(changes["nome_completo"], json!({"from": "M. d. S.", "to": "M. A. S."}));
    assert_eq!(
        changes["email"],
        json!({"from": "m***@exemplo.com.br", "to": "m***@exemplo.com.br"})
    );
    assert_eq!(changes["celular"], json!({"from": "****5678", "to": "****7777"}));
    assert!(changes.get("cpf").is_none(), "unchanged fields are left out");
    let text = serde_json::to_string(&after_correction).unwrap();
    for personal in ["Maria", "Souza", "maria.souza", "98888", CPF] {
        assert!(!text.contains(personal), "{personal} in {text}");
    }

    // Sent, sent again, four signatures, then the back office approves with a reason.
    let sent = s
        .app
        .post_json_as(
            "/signer",
            &s.partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let resent = s
        .app
        .post_json_as(
            "/signer",
            &s.partner,
            &json!({"customerId": customer_id, "identifier": identifier}),
        )
        .await;
    assert_eq!(resent.status(), StatusCode::OK);
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let approved = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "APROVADO", "reason": "Documentação conferida"}))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), StatusCode::OK);

    let all = entries(&s, &identifier).await;
    let sequence = actions(&all);
    assert_eq!(sequence[..2], ["criacao", "correcao"]);
    // Route 12's first call: the document and the client's request key, and the move.
    assert!(sequence[2..5].contains(&"envio"), "{sequence:?}");
    assert!(sequence[2..5].contains(&"status"), "{sequence:?}");
    assert_eq!(
        sequence[5..],
        [
            "reenvio",
            "assinatura",
            "assinatura",
            "assinatura",
            "assinatura",
            "status",
            "status"
        ]
    );
    let sending: Vec<&Value> = all.iter().filter(|e| e["action"] == "envio").collect();
    assert!(sending.iter().all(|e| e["by"] == "rep@demo.com.br"));
    assert!(sending.iter().any(|e| e["changes"]["key_documento"]["from"].is_null()
        && e["changes"]["key_documento"]["to"].is_string()));
    let to_signature = all.iter().find(|e| e["action"] == "status").unwrap();
    assert_eq!(
        to_signature["changes"]["status"],
        json!({"from": "NOVO", "to": "AGUARDANDO ASSINATURA"})
    );
    assert_eq!(all[5]["changes"]["reenvios"], json!({"from": 0, "to": 1}));
    assert_eq!(all[5]["by"], "rep@demo.com.br");
    let signers: Vec<&str> = all[6..10].iter().map(|e| e["by"].as_str().unwrap()).collect();
    let mut roles = signers.clone();
    roles.sort_unstable();
    assert_eq!(
        roles,
        [
            "signatário: association",
            "signatário: client",
            "signatário: enterprise",
            "signatário: federation"
        ]
    );
    assert_eq!(
        all[6]["changes"][format!("assinatura_{}", &signers[0]["signatário: ".len()..])],
        json!({"from": "PENDENTE", "to": "ASSINADO"})
    );
    assert_eq!(
        all[10]["changes"]["status"],
        json!({"from": "AGUARDANDO ASSINATURA", "to": "EM ANÁLISE"})
    );
    assert_eq!(
        all[11]["changes"],
        json!({"status": {"from": "EM ANÁLISE", "to": "APROVADO"}, "motivo": {"from": null, "to": "Documentação conferida"}})
    );
    assert_eq!(all[11]["by"], "bo@demo.com.br");
    // Oldest first.
    let times: Vec<&str> = all.iter().map(|e| e["at"].as_str().unwrap()).collect();
    let mut sorted = times.clone();
    sorted.sort_unstable();
    assert_eq!(times, sorted);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_history_is_seen_by_whoever_sees_the_proposal_and_is_404_for_the_others() {
    let s = setup().await;
    let identifier = s.app.create_proposal(&s.partner, CPF).await;
    assert_eq!(history(&s, &identifier, &s.partner).await.status(), StatusCode::OK);
    assert_eq!(history(&s, &identifier, &s.office).await.status(), StatusCode::OK);
    for token in [&s.other_partner, &s.shop] {
        assert_error(
            history(&s, &identifier, token).await,
            StatusCode::NOT_FOUND,
            "proposta_nao_encontrada",
        )
        .await;
    }
    assert_error(
        history(&s, "nao-existe", &s.office).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;
    assert_eq!(
        s.app
            .get(&format!("/proposal/{identifier}/history"), None)
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn entries_cannot_be_changed_or_removed_even_by_sql() {
    let s = setup().await;
    let identifier = s.app.create_proposal(&s.partner, CPF).await;
    let mut conn = AsyncPgConnection::establish(&s.app.db.url).await.unwrap();
    for statement in [
        "UPDATE proposal_history SET action = 'x'",
        "DELETE FROM proposal_history",
        "TRUNCATE proposal_history",
    ] {
        let refused = diesel::sql_query(statement).execute(&mut conn).await;
        assert!(refused.is_err(), "{statement} went through");
    }
    assert_eq!(actions(&entries(&s, &identifier).await), ["criacao"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_online_sales_subscription_is_written_as_payment_entries_with_the_move_to_analysis() {
    let s = setup().await;
    let body = black_box_tests::shop_proposal_body(CPF);
    let created = s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let record: Value = created.json().await.unwrap();
    let identifier = record["document"][0]["identificador"].as_str().unwrap().to_owned();
    for (path, body, expected) in [
        ("/ecommerce/createCustomer", json!({"cpf": CPF}), StatusCode::CREATED),
        ("/ecommerce/createSetupIntent", json!({"cpf": CPF}), StatusCode::OK),
        (
            "/ecommerce/createSubscription",
            json!({"identifier": identifier}),
            StatusCode::CREATED,
        ),
    ] {
        assert_eq!(
            s.app.post_json_as(path, &s.shop, &body).await.status(),
            expected,
            "{path}"
        );
    }

    let all = entries(&s, &identifier).await;
    let payments: Vec<&Value> = all.iter().filter(|e| e["action"] == "pagamento").collect();
    // The subscription claimed (pending), then the platform's answer (active).
    assert_eq!(
        payments
            .iter()
            .map(|e| e["changes"]["assinatura_pagamento"].clone())
            .collect::<Vec<_>>(),
        [
            json!({"from": null, "to": "pending"}),
            json!({"from": "pending", "to": "active"})
        ]
    );
    assert!(payments.iter().all(|e| e["by"] == "plataforma de pagamento"));
    let moved = all.iter().find(|e| e["action"] == "status").unwrap();
    assert_eq!(moved["changes"]["status"], json!({"from": "NOVO", "to": "EM ANÁLISE"}));
    assert_eq!(actions(&all)[0], "criacao");
}
