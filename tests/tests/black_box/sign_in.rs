//! Route 1 `POST /signin`: the answer's shape, and every refusal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, error_fields};
use serde_json::json;

const PASSWORD: &str = "Vendas#2026";

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_answers_the_spec_members_with_both_tokens() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let body = app.sign_in("Ana@Exemplo.com.br", PASSWORD, "PARCEIRO").await;
    assert_eq!(body["status"], "success");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(body["user"], "ana@exemplo.com.br");
    let members: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(members.len(), 5, "{members:?}");
    for token in ["token", "currentRefreshToken"] {
        assert_eq!(body[token].as_str().unwrap().split('.').count(), 3, "{token} is a JWT");
    }
    // The access token opens a protected route; the refresh token does not.
    let me = app.get("/me", body["token"].as_str()).await;
    assert_eq!(me.status(), StatusCode::OK);
    let me: serde_json::Value = me.json().await.unwrap();
    assert_eq!(me["data"]["aplicacao"], "PARCEIRO");
    assert_error(
        app.get("/me", body["currentRefreshToken"].as_str()).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_and_invalid_fields_are_400_naming_each_field() {
    let app = TestApp::spawn().await;
    let body = assert_error(
        app.post_json("/signin", &json!({})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&body), ["email", "password", "aplicacao"]);
    let body = assert_error(
        app.post_json(
            "/signin",
            &json!({"email": "not-an-email", "password": PASSWORD, "aplicacao": "LOJA"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&body), ["email", "aplicacao"]);
    assert_eq!(body["errors"][1]["code"], "aplicacao_invalida");
    let body = assert_error(
        app.post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": 123456, "aplicacao": "PARCEIRO"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(body["errors"][0]["code"], "tipo_invalido");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_over_72_bytes_is_refused_not_cut() {
    let app = TestApp::spawn().await;
    let long = format!("{PASSWORD}{}", "x".repeat(70));
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let body = assert_error(
        app.post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": long, "aplicacao": "PARCEIRO"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(body["errors"][0]["code"], "senha_longa");
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_password_is_401_unknown_user_404_and_missing_application_403() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let wrong = json!({"email": "ana@exemplo.com.br", "password": "Errada#2026", "aplicacao": "PARCEIRO"});
    assert_error(
        app.post_json("/signin", &wrong).await,
        StatusCode::UNAUTHORIZED,
        "credenciais_invalidas",
    )
    .await;
    let unknown = json!({"email": "ninguem@exemplo.com.br", "password": PASSWORD, "aplicacao": "PARCEIRO"});
    assert_error(
        app.post_json("/signin", &unknown).await,
        StatusCode::NOT_FOUND,
        "usuario_nao_encontrado",
    )
    .await;
    let other_app = json!({"email": "ana@exemplo.com.br", "password": PASSWORD, "aplicacao": "BACKOFFICE"});
    assert_error(
        app.post_json("/signin", &other_app).await,
        StatusCode::FORBIDDEN,
        "aplicacao_nao_permitida",
    )
    .await;
    // The application is judged only after the password: a wrong one says 401, not 403.
    let wrong_and_other = json!({"email": "ana@exemplo.com.br", "password": "Errada#2026", "aplicacao": "BACKOFFICE"});
    assert_error(
        app.post_json("/signin", &wrong_and_other).await,
        StatusCode::UNAUTHORIZED,
        "credenciais_invalidas",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn malformed_json_is_422_and_a_wrong_content_type_415_both_in_the_envelope() {
    let app = TestApp::spawn().await;
    let malformed = app
        .client
        .post(app.url("/signin"))
        .header("content-type", "application/json")
        .body("{\"email\": ")
        .send()
        .await
        .unwrap();
    assert_error(malformed, StatusCode::UNPROCESSABLE_ENTITY, "corpo_malformado").await;
    let not_object = app
        .client
        .post(app.url("/signin"))
        .header("content-type", "application/json")
        .body("[1,2]")
        .send()
        .await
        .unwrap();
    assert_error(not_object, StatusCode::UNPROCESSABLE_ENTITY, "corpo_malformado").await;
    let text = app
        .client
        .post(app.url("/signin"))
        .header("content-type", "text/plain")
        .body("email=a")
        .send()
        .await
        .unwrap();
    assert_error(text, StatusCode::UNSUPPORTED_MEDIA_TYPE, "tipo_conteudo_invalido").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_over_the_limit_is_413_in_the_envelope() {
    let app = TestApp::spawn_with(&[("MAX_BODY_BYTES", "2048")]).await;
    let big = json!({"email": "a@exemplo.com.br", "password": "x".repeat(4096), "aplicacao": "PARCEIRO"});
    assert_error(
        app.post_json("/signin", &big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "corpo_muito_grande",
    )
    .await;
}
