//! What every route shares: unknown routes and methods, request ids, CORS, health (with the
//! database going away and coming back), and the contract documents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::{Value, json};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn unknown_routes_are_404_and_wrong_methods_405_in_the_envelope_with_a_request_id() {
    let app = TestApp::spawn().await;
    let missing = app.get("/nao/existe", None).await;
    assert!(missing.headers().get("x-request-id").is_some());
    assert_error(missing, StatusCode::NOT_FOUND, "nao_encontrado").await;
    let wrong_method = app.client.delete(app.url("/signin")).send().await.unwrap();
    assert_error(wrong_method, StatusCode::METHOD_NOT_ALLOWED, "metodo_nao_permitido").await;
    // Inside a group of routes (one first segment) the same answers.
    for path in ["/proposal/nao/existe/aqui", "/hooks/", "/billingGroup/list/extra"] {
        assert_error(app.get(path, None).await, StatusCode::NOT_FOUND, "nao_encontrado").await;
    }
    for path in ["/billingGroup/list", "/proposal/create", "/hooks"] {
        let wrong_method = app.client.delete(app.url(path)).send().await.unwrap();
        assert_error(wrong_method, StatusCode::METHOD_NOT_ALLOWED, "metodo_nao_permitido").await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn health_live_and_ready_answer_200() {
    let app = TestApp::spawn().await;
    assert_eq!(app.get("/health/live", None).await.status(), StatusCode::OK);
    let ready: Value = app.get("/health/ready", None).await.json().await.unwrap();
    assert_eq!(ready["status"], "success");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_database_going_away_answers_503_and_the_service_recovers_by_itself() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", "Vendas#2026", &["PARCEIRO"])
        .await;
    let name = app.db.name.clone();
    let admin = adapters_postgres::testing::with_database(&app.db.url, "postgres");
    let admin_sql = |sql: String| {
        let admin = admin.clone();
        async move {
            use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
            let mut conn = AsyncPgConnection::establish(&admin).await.unwrap();
            diesel::sql_query(sql).execute(&mut conn).await.unwrap();
        }
    };
    admin_sql(format!("ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS false")).await;
    admin_sql(format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
    ))
    .await;

    assert_error(
        app.get("/health/ready", None).await,
        StatusCode::SERVICE_UNAVAILABLE,
        "servico_indisponivel",
    )
    .await;
    let sign_in = app
        .post_json(
            "/signin",
            &serde_json::json!({"email": "ana@exemplo.com.br", "password": "Vendas#2026", "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_error(sign_in, StatusCode::SERVICE_UNAVAILABLE, "servico_indisponivel").await;

    admin_sql(format!("ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS true")).await;
    let mut recovered = false;
    for _ in 0..50 {
        if app.get("/health/ready", None).await.status() == StatusCode::OK {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "the service did not recover after the database came back");
    app.sign_in("ana@exemplo.com.br", "Vendas#2026", "PARCEIRO").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cors_allows_configured_origins_only_and_never_credentials() {
    let app = TestApp::spawn_with(&[("CORS_ALLOWED_ORIGINS", "https://loja.exemplo.com.br")]).await;
    let preflight = |origin: &'static str| {
        app.client
            .request(reqwest::Method::OPTIONS, app.url("/signin"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type")
            .send()
    };
    let allowed = preflight("https://loja.exemplo.com.br").await.unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    assert_eq!(
        allowed.headers().get("access-control-allow-origin").unwrap(),
        "https://loja.exemplo.com.br"
    );
    assert!(allowed.headers().get("access-control-allow-credentials").is_none());
    let refused = preflight("https://malicioso.exemplo.com").await.unwrap();
    assert!(refused.headers().get("access-control-allow-origin").is_none());
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(refused.headers().get("content-type").unwrap(), "application/json");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wildcard_origin_never_comes_with_credentials() {
    let app = TestApp::spawn_with(&[("CORS_ALLOWED_ORIGINS", "*")]).await;
    let response = app
        .client
        .get(app.url("/health/live"))
        .header("origin", "https://qualquer.exemplo.com")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers().get("access-control-allow-origin").unwrap(), "*");
    assert!(response.headers().get("access-control-allow-credentials").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_and_the_docs_page_are_served() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in ["/signin", "/refreshToken", "/me", "/health/ready"] {
        assert!(doc["paths"].get(path).is_some(), "{path} documented");
    }
    let page = app.get("/docs", None).await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("/signin") && !html.contains("<script src="));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_interactive_reference_is_served_from_the_binary_over_the_same_document() {
    let app = TestApp::spawn().await;
    let page = app.get("/docs/interativa/", None).await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    // Every asset is relative: served by the service itself, nothing from elsewhere.
    assert!(html.contains("swagger-ui-bundle.js") && !html.contains("http://") && !html.contains("https://"));
    let bundle = app.get("/docs/interativa/swagger-ui-bundle.js", None).await;
    assert_eq!(bundle.status(), StatusCode::OK);
    assert!(bundle.bytes().await.unwrap().len() > 100_000);
    let init = app
        .get("/docs/interativa/swagger-initializer.js", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(init.contains("\"url\": \"/openapi.json\""), "{init}");
    assert!(init.contains("\"tryItOutEnabled\": true"), "{init}");
    let readable = app.get("/docs", None).await.text().await.unwrap();
    assert!(readable.contains("href=\"/docs/interativa/\""));
    // Summaries in Portuguese, grouped by resource (tags).
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(
        doc["paths"]["/proposal/create"]["post"]["summary"],
        "Criar proposta (rota 5)"
    );
    assert_eq!(
        doc["paths"]["/proposal/create"]["post"]["tags"],
        serde_json::json!(["propostas"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_callback_routes_take_small_bodies_only() {
    let app = TestApp::spawn().await;
    let big = "x".repeat(api_actix::app::CALLBACK_MAX_BODY_BYTES + 1);
    for path in ["/callbacks/payment", "/callbacks/signature"] {
        let response = app
            .client
            .post(app.url(path))
            .header("content-type", "application/json")
            .body(big.clone())
            .send()
            .await
            .unwrap();
        assert_error(response, StatusCode::PAYLOAD_TOO_LARGE, "corpo_muito_grande").await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_describes_the_bodies_from_their_types() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let schema = |name: &str| doc["components"]["schemas"][name].clone();
    let enum_of = |name: &str| -> Vec<String> {
        let values = schema(name)["enum"].as_array().cloned().unwrap_or_default();
        values
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect()
    };
    // Route 5's body is the domain's ProposalBody, its closed lists enums, its formats patterns.
    let body = &doc["paths"]["/proposal/create"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(body["$ref"], "#/components/schemas/ProposalBody");
    let proposal = schema("ProposalBody");
    assert_eq!(
        proposal["properties"]["typeOfPayments"]["$ref"],
        "#/components/schemas/PaymentType"
    );
    assert_eq!(
        enum_of("PaymentType"),
        ["DÉBITO EM CONTA", "DESCONTO EM FOLHA", "PIX AUTOMÁTICO"]
    );
    assert_eq!(
        proposal["properties"]["shippingType"]["$ref"],
        "#/components/schemas/ShippingType"
    );
    assert_eq!(enum_of("ShippingType"), ["sms", "whatsapp"]);
    for member in [
        "billingCode",
        "productCode",
        "typeOfPayments",
        "shippingType",
        "customer",
        "address",
    ] {
        let required = proposal["required"].as_array().unwrap();
        assert!(required.iter().any(|r| r == member), "{member} required");
    }
    let customer = schema("ProposalCustomerBody");
    assert_eq!(customer["properties"]["gender"]["$ref"], "#/components/schemas/Gender");
    assert_eq!(enum_of("Gender"), ["Masculino", "Feminino"]);
    assert_eq!(
        customer["properties"]["maritalStatus"]["$ref"],
        "#/components/schemas/MaritalStatus"
    );
    assert!(enum_of("MaritalStatus").contains(&"Viúvo".to_owned()));
    let cpf = customer["properties"]["cpf"]["pattern"].as_str().unwrap();
    let cell = customer["properties"]["cellPhone"]["pattern"].as_str().unwrap();
    assert!(
        cpf.contains(r"\d{11}") && cpf.contains(r"\d{3}\.\d{3}\.\d{3}-\d{2}"),
        "{cpf}"
    );
    assert!(cell.contains(r"\(\d{2}\) \d{5}-\d{4}"), "{cell}");
    let zip = schema("ProposalAddressBody")["properties"]["zipCode"]["pattern"].clone();
    assert_eq!(zip, r"^(\d{8}|\d{5}-\d{3})$");
    let sheet = schema("DiscountOnSheetBody");
    assert_eq!(sheet["properties"]["type"]["$ref"], "#/components/schemas/SheetType");
    assert_eq!(enum_of("SheetType"), ["BENEFÍCIO", "MATRÍCULA"]);
    // Route 17's body: the status and the event kinds are enums.
    let hook = schema("HookBody");
    assert_eq!(hook["properties"]["status"]["$ref"], "#/components/schemas/HookStatus");
    assert_eq!(enum_of("HookStatus"), ["ATIVO", "INATIVO"]);
    assert_eq!(
        hook["properties"]["events"]["items"]["$ref"],
        "#/components/schemas/EventKind"
    );
    assert_eq!(
        enum_of("EventKind"),
        [
            "ALTERAÇÃO_STATUS",
            "PROPOSTA_CRIADA",
            "PROPOSTA_ENVIADA",
            "ASSINATURA_REGISTRADA",
            "PAGAMENTO_ALTERADO",
            "PENDENCIA_ABERTA",
            "PENDENCIA_RESPONDIDA",
            "COBRANCA_ALTERADA",
            "AVISO_REGISTRADO",
            "VIGENCIA_RENOVADA",
            "TESTE"
        ]
    );
    // An error answer is its status's named error body (decision 142), which enumerates the codes
    // that status carries, from the one table.
    let answer = &doc["paths"]["/proposal/create"]["post"]["responses"]["400"]["content"]["application/json"]["schema"];
    assert_eq!(answer["$ref"], "#/components/schemas/BadRequestError");
    let bad = schema("BadRequestError");
    let codes = bad["allOf"][1]["properties"]["code"]["enum"].as_array().unwrap();
    assert!(codes.iter().any(|c| c == "dados_invalidos"));
    assert!(
        !codes.iter().any(|c| c == "nao_autenticado"),
        "a 401 code is not a 400's"
    );
    // The events delivered to subscribers are under `webhooks`.
    let delivered =
        &doc["webhooks"]["ALTERAÇÃO_STATUS"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(delivered["$ref"], "#/components/schemas/StatusChangeEvent");
    let data = schema("StatusChangeData");
    for member in [
        "identificador",
        "statusAnterior",
        "statusAtual",
        "alteradoEm",
        "alteradoPor",
        "motivo",
        "sequence",
    ] {
        assert!(data["properties"].get(member).is_some(), "{member}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_listing_records_are_the_dto_schemas_with_every_member_optional() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["ProductListEnvelope"]["properties"]["document"]["items"]["$ref"],
        "#/components/schemas/ProductProjection"
    );
    let projection = &schemas["BillingGroupProjection"];
    assert!(projection.get("required").is_none());
    assert_eq!(projection["properties"], schemas["BillingGroupDto"]["properties"]);
    assert!(!schemas["BillingGroupDto"]["required"].as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_docs_page_lists_each_body_member_with_its_type_and_each_answer_with_its_codes() {
    let app = TestApp::spawn().await;
    let html = app.get("/docs", None).await.text().await.unwrap();
    // Route 5's members, their closed lists spelled out, no raw reference left for a reader.
    assert!(html.contains("Corpo: <code>ProposalBody</code>"), "{html}");
    assert!(html.contains(
        "<td><code>typeOfPayments</code></td><td>um de: DÉBITO EM CONTA, DESCONTO EM FOLHA, PIX AUTOMÁTICO</td><td>sim</td>"
    ));
    assert!(html.contains("<td><code>customer</code></td><td>objeto ProposalCustomerBody</td><td>sim</td>"));
    assert!(!html.contains("$ref"), "a reference shown raw");
    // Every answer's table has the codes its status may carry.
    assert!(html.contains("dados_invalidos"));
    assert!(html.contains("nao_autenticado"));
}

/// Error answers are named components, one per status (decision 142): no route repeats one inline,
/// so a generated client has one error model per status.
#[tokio::test(flavor = "multi_thread")]
async fn every_error_answer_refers_to_its_status_named_error_body() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let mut named = std::collections::BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, answer) in operation["responses"].as_object().unwrap() {
                if !(status.starts_with('4') || status.starts_with('5')) {
                    continue;
                }
                let schema = &answer["content"]["application/json"]["schema"];
                let reference = schema["$ref"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{method} {path} {status}: {schema}"));
                let name = reference.trim_start_matches("#/components/schemas/");
                let codes = &doc["components"]["schemas"][name]["allOf"][1]["properties"]["code"]["enum"];
                assert!(
                    codes.as_array().is_some_and(|c| !c.is_empty()),
                    "{name} enumerates no code"
                );
                named
                    .entry(status.clone())
                    .or_insert_with(Vec::new)
                    .push(name.to_owned());
            }
        }
    }
    for (status, names) in &named {
        assert!(
            names.iter().all(|n| n == &names[0]),
            "status {status} under several names: {names:?}"
        );
    }
    assert_eq!(named["404"][0], "NotFoundError");
    assert_eq!(named["429"][0], "TooManyRequestsError");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_answer_in_the_document_goes_without_a_description() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for (status, answer) in operation["responses"].as_object().unwrap() {
                let described = answer["description"].as_str().is_some_and(|d| !d.trim().is_empty());
                assert!(described, "{method} {path} {status} has no description");
            }
        }
    }
}

/// What client generators need of the document (issue 28): unique `resource.action` operation ids,
/// public operations saying so, a server, declared tags, the PDF as bytes, and no `null` schema.
#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_is_what_client_generators_accept() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let mut ids = Vec::new();
    for section in ["paths", "webhooks"] {
        for (path, item) in doc[section].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let id = operation["operationId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{method} {path}"));
                let (resource, action) = id.split_once('.').unwrap_or_else(|| panic!("{id}"));
                assert!(
                    !resource.is_empty() && !action.is_empty() && !action.contains('.'),
                    "{id}"
                );
                ids.push(id.to_owned());
                assert!(operation["security"].is_array(), "{method} {path}: security said");
            }
        }
    }
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "operation ids are unique");
    assert_eq!(doc["paths"]["/signin"]["post"]["security"], json!([]), "public");
    assert_eq!(
        doc["paths"]["/proposal/create"]["post"]["security"],
        json!([{"bearer": []}])
    );
    assert_eq!(doc["servers"][0]["url"], "/");
    let declared: Vec<&str> = doc["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for item in doc["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            for tag in operation["tags"].as_array().unwrap() {
                assert!(declared.contains(&tag.as_str().unwrap()), "{tag} declared");
            }
        }
    }
    let pdf = &doc["paths"]["/proposal/{identificador}/document"]["get"]["responses"]["200"]["content"];
    assert_eq!(pdf["application/pdf"]["schema"]["format"], "binary");
    assert!(pdf.get("application/json").is_none(), "the PDF answer has no JSON body");
    assert!(!doc.to_string().contains("\"schema\":null"), "no null schema anywhere");
}

/// The contract is committed (`docs/openapi.json`, printed by `sales-api openapi`): a change to
/// the served document is a change to that file, seen in review and listed in CHANGELOG.md.
#[tokio::test(flavor = "multi_thread")]
async fn the_served_openapi_document_is_the_committed_one() {
    let app = TestApp::spawn().await;
    let served: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json")).unwrap(),
    )
    .unwrap();
    assert!(
        served == committed,
        "o documento servido difere de docs/openapi.json: gere-o de novo com `sales-api openapi > docs/openapi.json` e registre a mudança em CHANGELOG.md"
    );
}
