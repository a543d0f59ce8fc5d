//! The event catalog: a proposal's creation, its sendings, each party's signature and its
//! payment's state, each delivered to the subscriptions that asked for its kind, within their
//! owner's scope, signed as every delivery is.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::ecommerce::{WEBHOOK_SECRET, stripe_signature};
use super::hooks::{receiver, requests, verify};
use black_box_tests::{StatusCode, TestApp, assert_timestamp, cpf_from};
use serde_json::{Value, json};
use std::time::Duration;
use wiremock::{MockServer, Request};

const PARTNER: &str = "11222333000181";
const NEW_KINDS: [&str; 4] = [
    "PROPOSTA_CRIADA",
    "PROPOSTA_ENVIADA",
    "ASSINATURA_REGISTRADA",
    "PAGAMENTO_ALTERADO",
];

struct Setup {
    app: TestApp,
    partner: String,
    other_partner: String,
    office: String,
    shop: String,
}

async fn setup() -> Setup {
    let app = TestApp::spawn_with(&[
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        ("HOOKS_POLL_INTERVAL_MS", "200"),
        ("SIGNATURE_MAX_RESENDS", "2"),
        ("PAYMENT_WEBHOOK_SECRET", WEBHOOK_SECRET),
    ])
    .await;
    app.seed_catalog().await;
    Setup {
        partner: app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await,
        other_partner: app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await,
        office: app.token_for("bo@demo.com.br", "BACKOFFICE", "").await,
        shop: app.token_for("loja@demo.com.br", "ECOMMERCE", "").await,
        app,
    }
}

/// A receiver and its owner's active subscription to `events`: (receiver, secret).
async fn subscribed(s: &Setup, token: &str, events: &[&str]) -> (MockServer, String) {
    let server = receiver(200).await;
    let response = s
        .app
        .post_json_as(
            "/hooks",
            token,
            &json!({"events": events, "endpoint": server.uri(), "status": "ATIVO"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["data"]["events"], json!(events));
    (server, body["data"]["secret"].as_str().unwrap().to_owned())
}

fn every_kind() -> Vec<&'static str> {
    let mut kinds = vec!["ALTERAÇÃO_STATUS"];
    kinds.extend(NEW_KINDS);
    kinds
}

/// Waits for `n` deliveries, lets a wrong extra one show up, and answers exactly what arrived,
/// each checked against the subscription's secret, as parsed bodies.
async fn exactly(server: &MockServer, secret: &str, n: usize) -> Vec<Value> {
    if n > 0 {
        requests(server, n).await;
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let received: Vec<Request> = server.received_requests().await.unwrap();
    let bodies: Vec<Value> = received
        .iter()
        .map(|request| {
            verify(secret, request);
            serde_json::from_slice(&request.body).unwrap()
        })
        .collect();
    assert_eq!(bodies.len(), n, "{bodies:#?}");
    bodies
}

/// The one body of `kind` (and `sequence`) among `bodies`.
fn one<'a>(bodies: &'a [Value], kind: &str, sequence: i64) -> &'a Value {
    let found: Vec<&Value> = bodies
        .iter()
        .filter(|b| b["type"] == kind && b["data"]["sequence"] == sequence)
        .collect();
    assert_eq!(found.len(), 1, "{kind} {sequence} in {bodies:#?}");
    assert_timestamp(&found[0]["timestamp"]);
    found[0]
}

fn kinds(bodies: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = bodies.iter().map(|b| b["type"].as_str().unwrap().to_owned()).collect();
    kinds.sort_unstable();
    kinds
}

async fn sandbox_sign(s: &Setup, key: &str) {
    let response = s
        .app
        .client
        .post(s.app.url(&format!("/sandbox/sign/{key}")))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partners_proposal_tells_its_creation_sendings_and_signatures_to_those_who_asked_within_its_scope() {
    let s = setup().await;
    let (everything, everything_secret) = subscribed(&s, &s.partner, &every_kind()).await;
    let (status_only, status_only_secret) = subscribed(&s, &s.partner, &["ALTERAÇÃO_STATUS"]).await;
    let (created_only, created_only_secret) = subscribed(&s, &s.partner, &["PROPOSTA_CRIADA"]).await;
    let (other_seller, other_seller_secret) = subscribed(&s, &s.other_partner, &every_kind()).await;
    let (shop, shop_secret) = subscribed(&s, &s.shop, &every_kind()).await;
    let (office, office_secret) = subscribed(&s, &s.office, &NEW_KINDS).await;

    let identifier = s.app.create_proposal(&s.partner, &cpf_from(7)).await;
    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.partner))
        .await
        .json()
        .await
        .unwrap();
    let customer_id = detail["data"]["proposal"]["customerId"].as_i64().unwrap();
    let send = || async {
        let response = s
            .app
            .post_json_as(
                "/signer",
                &s.partner,
                &json!({"customerId": customer_id, "identifier": identifier}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
    };
    send().await;
    send().await;
    let detail: Value = s
        .app
        .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&s.partner))
        .await
        .json()
        .await
        .unwrap();
    let channel = detail["data"]["proposal"]["typeSend"].clone();
    sandbox_sign(&s, detail["data"]["sign"]["clientKey"].as_str().unwrap()).await;
    sandbox_sign(&s, detail["data"]["sign"]["federationKey"].as_str().unwrap()).await;

    // Creation, two sendings, the move to awaiting signatures, two signatures.
    let bodies = exactly(&everything, &everything_secret, 6).await;
    assert_eq!(
        kinds(&bodies),
        [
            "ALTERAÇÃO_STATUS",
            "ASSINATURA_REGISTRADA",
            "ASSINATURA_REGISTRADA",
            "PROPOSTA_CRIADA",
            "PROPOSTA_ENVIADA",
            "PROPOSTA_ENVIADA"
        ]
    );
    let created = &one(&bodies, "PROPOSTA_CRIADA", 1)["data"];
    assert_eq!(created["identificador"], identifier);
    assert_eq!(created["status"], "NOVO");
    assert_eq!(created["fluxo"], "PARCEIRO");
    assert_eq!(created["valor"], detail["data"]["proposal"]["value"]);
    assert_eq!(created["criadoPor"], "rep@demo.com.br");
    assert_eq!(created["criadoEm"], detail["data"]["proposal"]["createdAt"]);
    let first = &one(&bodies, "PROPOSTA_ENVIADA", 1)["data"];
    assert_eq!(first["reenvio"], false);
    assert_eq!(first["canal"], channel);
    assert_eq!(first["enviadoPor"], "rep@demo.com.br");
    assert_eq!(one(&bodies, "PROPOSTA_ENVIADA", 2)["data"]["reenvio"], true);
    let client = &one(&bodies, "ASSINATURA_REGISTRADA", 1)["data"];
    assert_eq!(client["identificador"], identifier);
    assert_eq!(client["parte"], "client");
    assert_eq!(client["status"], "ASSINADO");
    assert_eq!(one(&bodies, "ASSINATURA_REGISTRADA", 2)["data"]["parte"], "federation");
    assert_eq!(
        one(&bodies, "ALTERAÇÃO_STATUS", 1)["data"]["statusAtual"],
        "AGUARDANDO ASSINATURA"
    );
    for body in &bodies {
        let text = body.to_string();
        assert!(!text.contains(&cpf_from(7)), "no personal data: {text}");
    }

    // Each subscription gets the kinds it asked for; what it did not ask for, it never gets.
    let status_changes = exactly(&status_only, &status_only_secret, 1).await;
    assert_eq!(kinds(&status_changes), ["ALTERAÇÃO_STATUS"]);
    assert_eq!(
        kinds(&exactly(&created_only, &created_only_secret, 1).await),
        ["PROPOSTA_CRIADA"]
    );
    let office_bodies = exactly(&office, &office_secret, 5).await;
    assert!(!kinds(&office_bodies).contains(&"ALTERAÇÃO_STATUS".to_owned()));
    // Another seller and the shop see none of this partner's proposals.
    exactly(&other_seller, &other_seller_secret, 0).await;
    exactly(&shop, &shop_secret, 0).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_shops_proposal_tells_its_creation_and_each_payment_state_to_the_shop_and_never_to_a_partner() {
    let s = setup().await;
    let (shop, shop_secret) = subscribed(&s, &s.shop, &every_kind()).await;
    let (payments, payments_secret) = subscribed(&s, &s.office, &["PAGAMENTO_ALTERADO"]).await;
    let (partner, partner_secret) = subscribed(&s, &s.partner, &every_kind()).await;

    let cpf = "52998224725";
    let body = json!({
        "billingCode": 5004, "productCode": 103,
        "customer": {"fullName": "João Souza", "cpf": cpf, "birthDate": "1985-03-10", "gender": "Masculino", "email": "joao@exemplo.com.br"},
        "address": {"zipCode": "20040002", "address": "Rua da Assembleia", "number": 10, "neighborhood": "Centro", "city": "Rio de Janeiro", "state": "RJ"}
    });
    let created = s.app.post_json_as("/proposal/create/ecommerce", &s.shop, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let identifier = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();
    for (path, body) in [
        ("/ecommerce/createCustomer", json!({"cpf": cpf})),
        ("/ecommerce/createSetupIntent", json!({"cpf": cpf})),
    ] {
        assert!(s.app.post_json_as(path, &s.shop, &body).await.status().is_success());
    }
    let subscription: Value = s
        .app
        .post_json_as(
            "/ecommerce/createSubscription",
            &s.shop,
            &json!({"identifier": identifier}),
        )
        .await
        .json()
        .await
        .unwrap();
    let platform_id = subscription["document"][0]["id"].as_str().unwrap();
    let now = chrono::Utc::now().timestamp();
    let past_due = json!({"id": "evt_atraso", "type": "customer.subscription.updated",
        "data": {"object": {"id": platform_id, "status": "past_due"}}})
    .to_string();
    let unchanged = json!({"id": "evt_mesmo", "type": "customer.subscription.updated",
        "data": {"object": {"id": platform_id, "status": "past_due"}}})
    .to_string();
    for event in [&past_due, &unchanged] {
        let response = s
            .app
            .client
            .post(s.app.url("/callbacks/payment"))
            .header("stripe-signature", stripe_signature(event, now))
            .body(event.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }

    // Creation, the first payment state, the move to analysis, the state that changed (the
    // event that changed nothing tells nothing).
    let bodies = exactly(&shop, &shop_secret, 4).await;
    assert_eq!(
        kinds(&bodies),
        [
            "ALTERAÇÃO_STATUS",
            "PAGAMENTO_ALTERADO",
            "PAGAMENTO_ALTERADO",
            "PROPOSTA_CRIADA"
        ]
    );
    assert_eq!(one(&bodies, "PROPOSTA_CRIADA", 1)["data"]["fluxo"], "ECOMMERCE");
    let opened = &one(&bodies, "PAGAMENTO_ALTERADO", 1)["data"];
    assert_eq!(opened["identificador"], identifier);
    assert_eq!(opened["statusAnterior"], Value::Null);
    assert_eq!(opened["status"], "active");
    let late = &one(&bodies, "PAGAMENTO_ALTERADO", 2)["data"];
    assert_eq!(late["statusAnterior"], "active");
    assert_eq!(late["status"], "past_due");

    assert_eq!(
        kinds(&exactly(&payments, &payments_secret, 2).await),
        ["PAGAMENTO_ALTERADO", "PAGAMENTO_ALTERADO"]
    );
    exactly(&partner, &partner_secret, 0).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_contract_documents_every_kind_as_a_webhook_with_its_named_body() {
    let s = setup().await;
    let document: Value = s.app.get("/openapi.json", None).await.json().await.unwrap();
    for (kind, schema) in [
        ("PROPOSTA_CRIADA", "ProposalCreatedEvent"),
        ("PROPOSTA_ENVIADA", "ProposalSentEvent"),
        ("ASSINATURA_REGISTRADA", "SignatureRecordedEvent"),
        ("PAGAMENTO_ALTERADO", "PaymentChangedEvent"),
    ] {
        let body = &document["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"];
        assert_eq!(body, &json!(format!("#/components/schemas/{schema}")));
        let data = &document["components"]["schemas"][schema]["properties"]["data"];
        assert!(data.is_object(), "{schema} has its data");
    }
    let kinds = &document["components"]["schemas"]["EventKind"]["enum"];
    for kind in NEW_KINDS {
        assert!(kinds.as_array().unwrap().contains(&json!(kind)), "{kinds}");
    }
    // The reference page lists every kind with its data's members.
    let page = s.app.get("/docs", None).await.text().await.unwrap();
    for shown in [
        "Eventos (webhooks)",
        "PROPOSTA_CRIADA",
        "ProposalCreatedData",
        "criadoPor",
        "ASSINATURA_REGISTRADA",
        "parte",
        "PAGAMENTO_ALTERADO",
        "statusAnterior",
    ] {
        assert!(page.contains(shown), "{shown} missing from /docs");
    }
}

/// The acceptance clock's kinds (issue 45) are in the contract as the others: a webhook each with
/// its named body, in the kinds' enum, and on the reference page with their data's members.
#[tokio::test(flavor = "multi_thread")]
async fn the_contract_documents_the_requests_for_documents_as_webhooks_with_their_named_bodies() {
    let app = TestApp::spawn().await;
    let document: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for (kind, event, data, members) in [
        (
            "PENDENCIA_ABERTA",
            "PendingOpenedEvent",
            "PendingOpenedData",
            &["identificador", "pendencia", "itens", "nota", "suspensoEm"][..],
        ),
        (
            "PENDENCIA_RESPONDIDA",
            "PendingAnsweredEvent",
            "PendingAnsweredData",
            &["identificador", "pendencia", "arquivos", "respondidoEm", "prazo"][..],
        ),
    ] {
        let body = &document["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"];
        assert_eq!(body, &json!(format!("#/components/schemas/{event}")));
        let properties = &document["components"]["schemas"][data]["properties"];
        for member in members {
            assert!(properties[member].is_object(), "{data}.{member}");
        }
        assert!(
            document["components"]["schemas"]["EventKind"]["enum"]
                .as_array()
                .unwrap()
                .contains(&json!(kind))
        );
        let page = app.get("/docs", None).await.text().await.unwrap();
        for shown in [kind, data, members[1], members[members.len() - 1]] {
            assert!(page.contains(shown), "the reference page shows {shown}");
        }
    }
}
