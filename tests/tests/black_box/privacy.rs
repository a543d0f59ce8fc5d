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

    s.app.outlive_the_contract(&s.partner, &partner_id).await;
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

/// Every table's rows that, as text, hold any of these (case-insensitive), by table.
async fn tables_holding(app: &TestApp, needles: &[&str]) -> Vec<(String, i64)> {
    #[derive(diesel::QueryableByName)]
    struct Table {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
    let mut conn = AsyncPgConnection::establish(&app.db.url).await.unwrap();
    let tables: Vec<Table> =
        diesel::sql_query("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
            .load(&mut conn)
            .await
            .unwrap();
    let patterns = needles
        .iter()
        .map(|n| format!("'%{n}%'"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut found = Vec::new();
    for table in tables {
        let n = app
            .count(&format!(
                "SELECT count(*) AS n FROM {} t WHERE t::text ILIKE ANY (ARRAY[{patterns}])",
                table.name
            ))
            .await;
        if n > 0 {
            found.push((table.name, n));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn after_anonymisation_nothing_of_the_person_is_left_but_the_signed_contract() {
    let s = setup().await;
    // A contract: signed by every party and approved.
    let signed = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let contract = signed_and_approved(&s, &signed).await;
    // Sent for signature, then cancelled before the last signature, with a reason that names
    // the customer.
    let sent = created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    let never_signed = sent["identificador"].as_str().unwrap().to_owned();
    let sending = s
        .app
        .post_json_as(
            "/signer",
            &s.partner,
            &json!({"customerId": sent["id_cliente"], "identifier": never_signed}),
        )
        .await;
    assert_eq!(sending.status(), StatusCode::OK);
    let reason = "Maria da Silva desistiu pelo telefone (11) 91234-5678";
    let cancelled = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{never_signed}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "CANCELADO", "reason": reason}))
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::OK);
    // An online sale, paid on the platform (its customer holds name, e-mail and phone), then
    // refused in analysis.
    let shop = created(
        s.app
            .post_json_as("/proposal/create/ecommerce", &s.shop, &shop_body())
            .await,
    )
    .await;
    let online = shop["identificador"].as_str().unwrap().to_owned();
    for path in ["/ecommerce/createCustomer", "/ecommerce/createSetupIntent"] {
        let step = s.app.post_json_as(path, &s.shop, &json!({"cpf": CPF})).await;
        assert!(step.status().is_success(), "{path}");
    }
    let paid = s
        .app
        .post_json_as("/ecommerce/createSubscription", &s.shop, &json!({"identifier": online}))
        .await;
    assert_eq!(paid.status(), StatusCode::CREATED);
    move_to(&s, &online, "REPROVADO").await;
    // A consent on record: its trail stays, tied to no one.
    let consented = s
        .app
        .post_json_as(
            &format!("/privacy/customers/{CPF}/consents"),
            &s.office,
            &json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
        )
        .await;
    assert_eq!(consented.status(), StatusCode::CREATED);
    // The request that asked for it, with a note naming her: the request stays, tied to no one.
    let asked = s
        .app
        .post_json_as(
            "/privacy/requests",
            &s.office,
            &json!({"cpf": CPF, "kind": "eliminacao", "channel": "telefone", "note": "Maria da Silva ligou do (11) 91234-5678"}),
        )
        .await;
    assert_eq!(asked.status(), StatusCode::CREATED);
    // The person's own acts by the links mailed to her: a consent with its proof (her browser)
    // and a request she filed.
    use super::person_channel::{ask, confirm, consent_by_link, mailed_token};
    ask(&s.app, CPF, "consentimentos", "maria@exemplo.com.br").await;
    let consents_link = mailed_token(&s.app, "maria@exemplo.com.br", "consentimentos").await;
    let own_consent = s
        .app
        .client
        .post(s.app.url("/privacidade/link/consentimento"))
        .header("user-agent", "Navegador da Maria Silva")
        .form(&[
            ("token", consents_link.as_str()),
            ("finalidade", "ofertas_parceiro"),
            ("concedido", "sim"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(own_consent.status(), StatusCode::CREATED);
    assert_eq!(
        consent_by_link(&s.app, &consents_link, "ofertas_parceiro", "nao")
            .await
            .status(),
        StatusCode::CREATED
    );
    ask(&s.app, CPF, "acesso", "maria@exemplo.com.br").await;
    let request_link = mailed_token(&s.app, "maria@exemplo.com.br", "Acesso").await;
    assert_eq!(confirm(&s.app, &request_link).await.status(), StatusCode::CREATED);
    // A request for documents about her health (decision 289), answered by her through the
    // mailed link with a file and a note that name her; the sale is then refused.
    use super::proponent_documents::{PDF, mailed_token as documents_token, upload};
    let analysed = s.app.sent_proposal(&s.partner, CPF).await;
    s.app.sign_as_every_party(&s.office, &analysed).await;
    let documents_asked = s
        .app
        .post_json_as(
            &format!("/proposal/{analysed}/pending"),
            &s.office,
            &json!({"items": ["Laudo cardiológico de Maria da Silva"], "note": "Maria declarou uso de Losartana",
                    "reasonCategory": "saude"}),
        )
        .await;
    assert_eq!(documents_asked.status(), StatusCode::CREATED);
    let documents_link = documents_token(&s.app).await;
    let uploaded = upload(
        &s.app,
        &documents_link,
        &[("laudo-maria-silva.pdf", PDF)],
        Some("Segue o laudo da Maria, (11) 91234-5678"),
    )
    .await;
    assert_eq!(uploaded.status(), StatusCode::CREATED);
    let refused = super::settlements::decide(
        &s.app,
        &s.office,
        &analysed,
        json!({"status": "REPROVADO", "reason": "Maria da Silva: cardiopatia acima do risco aceito", "reasonCategory": "saude"}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let needles = [
        "Maria",
        "Silva",
        CPF,
        "529.982.247-25",
        "maria@exemplo",
        "maria.loja@exemplo",
        "91234-5678",
        "912345678",
        "99876-5432",
        "998765432",
    ];
    assert!(
        !tables_holding(&s.app, &needles).await.is_empty(),
        "the scan finds the person before"
    );

    s.app.outlive_the_contract(&s.partner, &contract).await;
    let response = anonymize(&s, &s.office).await;
    assert_eq!(response.status(), StatusCode::OK);
    let done: Value = response.json().await.unwrap();
    let platform = done["data"]["plataformaPagamento"].as_array().unwrap();
    assert_eq!(platform.len(), 1, "{done}");
    assert!(platform[0]["cliente"].as_str().unwrap().starts_with("cus_"));
    assert_eq!(platform[0]["redigido"], true);
    assert_eq!(
        s.app
            .count(
                "SELECT count(*) AS n FROM payment_customer_redactions WHERE answered_at IS NOT NULL AND error IS NULL"
            )
            .await,
        1,
        "the call is recorded"
    );

    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_consents WHERE finalidade = 'ofertas' AND concedido")
            .await,
        1,
        "the consent's record is kept"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_requests WHERE tipo = 'eliminacao' AND observacao IS NULL")
            .await,
        1,
        "the request is kept, its note gone"
    );
    assert_eq!(
        s.app
            .count(
                "SELECT count(*) AS n FROM privacy_consents WHERE canal = 'link'
                 AND evidencia ? 'textoSha256' AND NOT evidencia ? 'enderecoIp' AND NOT evidencia ? 'navegador'"
            )
            .await,
        2,
        "the person's own consents keep which text and how, not from where"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_requests WHERE canal = 'email' AND tipo = 'acesso'")
            .await,
        1,
        "the request she filed is kept, tied to no one"
    );
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM privacy_person_links").await,
        0,
        "the links mailed to her are gone"
    );
    // Nothing of the person in any table; the only documents left are the contract's.
    assert_eq!(tables_holding(&s.app, &needles).await, Vec::<(String, i64)>::new());
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM proposal_pending_files").await,
        0,
        "the files she sent are gone (their bytes escape a text scan)"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_pending_requests WHERE link_enviado_para IS NOT NULL")
            .await,
        0,
        "so is where the link was mailed"
    );
    // Anonymised five years after the refusal, its defence has served its time (decision 290).
    assert_eq!(s.app.count("SELECT count(*) AS n FROM refusal_defences").await, 0);
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM sealed_documents sd JOIN proposals p ON p.id = sd.proposal_id
                 WHERE p.identificador <> '{contract}'"
            ))
            .await,
        0
    );
    for identifier in [&never_signed, &online, &analysed] {
        assert_error(
            s.app
                .get(&format!("/proposal/{identifier}/document"), Some(&s.office))
                .await,
            StatusCode::NOT_FOUND,
            "documento_removido",
        )
        .await;
    }
    let kept = s
        .app
        .get(&format!("/proposal/{contract}/document"), Some(&s.office))
        .await;
    assert_eq!(kept.status(), StatusCode::OK);
    let text = black_box_tests::pdf_text(&kept.bytes().await.unwrap());
    assert!(text.contains("Maria"), "the signed contract is kept as it was signed");

    // The reason is a marker in the history and the events; the history keeps everything else.
    let history: Value = s
        .app
        .get(&format!("/proposal/{never_signed}/history"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let entries = history["data"]["entries"].as_array().unwrap();
    let cancel = entries.iter().find(|e| e["changes"].get("motivo").is_some()).unwrap();
    assert_eq!(cancel["changes"]["motivo"]["to"], "[removido na anonimização]");
    assert_eq!(cancel["changes"]["status"]["to"], "CANCELADO");
    assert_eq!(cancel["by"], "bo@demo.com.br");
    let events: Value = s
        .app
        .get(&format!("/proposal/{never_signed}/events"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let last = events["document"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["reason"], "[removido na anonimização]");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_anonymisation_takes_what_a_request_for_documents_asked_from_the_webhooks_kept_copies() {
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    let s = Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        app,
    };
    let receiver = s.app.subscribed_receiver(&s.partner, &["PENDENCIA_ABERTA"]).await;
    let identifier = super::settlements::signed_partner_sale(&s.app, &s.partner, &s.office, CPF).await;
    // Documentation the seed's product leaves to its sellers: its items travel to the seller.
    let asked = s
        .app
        .post_json_as(
            &format!("/proposal/{identifier}/pending"),
            &s.office,
            &json!({"items": ["Comprovante de residência de Maria da Silva"], "note": "Conta em nome de Maria"}),
        )
        .await;
    assert_eq!(asked.status(), StatusCode::CREATED);
    let sent = super::hooks::requests(&receiver, 1).await;
    assert!(String::from_utf8_lossy(&sent[0].body).contains("Maria da Silva"));
    move_to(&s, &identifier, "REPROVADO").await;

    assert_eq!(anonymize(&s, &s.office).await.status(), StatusCode::OK);
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM hook_deliveries WHERE body LIKE '%Maria%'")
            .await,
        0
    );
    assert_eq!(
        s.app
            .count(
                "SELECT count(*) AS n FROM hook_deliveries
                 WHERE body::jsonb -> 'data' -> 'itens' = '[\"[removido na anonimização]\"]'::jsonb
                   AND body::jsonb -> 'data' ->> 'nota' = '[removido na anonimização]'"
            )
            .await,
        1,
        "the copy keeps its shape, with the marker"
    );
    // Only the refusal's defence, kept apart for the back office by design (decision 290), still
    // holds what was asked.
    assert_eq!(
        tables_holding(&s.app, &["Maria"]).await,
        vec![("refusal_defences".to_owned(), 1)]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_history_stays_append_only_outside_the_one_change_anonymisation_makes() {
    let s = setup().await;
    created(
        s.app
            .post_json_as("/proposal/create", &s.partner, &proposal_body(CPF))
            .await,
    )
    .await;
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
    let mut conn = AsyncPgConnection::establish(&s.app.db.url).await.unwrap();
    let refused = [
        "UPDATE proposal_history SET changes = '{}'",
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao'; UPDATE proposal_history SET changed_by = 'x'; COMMIT",
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao'; UPDATE proposal_history SET changes = changes || '{\"x\": 1}'; COMMIT",
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao'; DELETE FROM proposal_history; COMMIT",
    ];
    for statement in refused {
        let error = conn.batch_execute(statement).await.unwrap_err();
        assert!(
            error.to_string().contains("não pode ser alterado"),
            "{statement}: {error}"
        );
        let _ = conn.batch_execute("ROLLBACK").await;
    }
    // The one change admitted: itself with its reasons replaced (none here: no change at all).
    conn.batch_execute(
        "BEGIN; SET LOCAL sales.history_action = 'anonimizacao';
         UPDATE proposal_history SET changes = history_without_reasons(changes); COMMIT",
    )
    .await
    .unwrap();
}
