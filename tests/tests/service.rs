//! What every route shares: unknown routes and methods, request ids, CORS, health (with the
//! database going away and coming back), and the contract documents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::Value;
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
