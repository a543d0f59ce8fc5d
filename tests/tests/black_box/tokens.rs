//! Token renewal with rotation and reuse detection, and the access-token checks of protected routes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use black_box_tests::{StatusCode, TestApp, assert_error, foreign_token_service, token_service};
use domain::auth::model::Principal;
use domain::auth::ports::TokenService;
use domain::values::Application;
use serde_json::{Value, json};

const PASSWORD: &str = "Vendas#2026";

async fn signed_in(app: &TestApp) -> (i64, Value) {
    let id = app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    (id, app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_token_works_once_and_its_reuse_ends_the_whole_family() {
    let app = TestApp::spawn().await;
    let (_, first) = signed_in(&app).await;
    let renewed = app
        .post_json("/refreshToken", &json!({"refreshToken": first["currentRefreshToken"]}))
        .await;
    assert_eq!(renewed.status(), StatusCode::OK);
    let renewed: Value = renewed.json().await.unwrap();
    assert_eq!(renewed["status"], "success");
    assert_eq!(renewed["user"], "ana@exemplo.com.br");
    assert_ne!(renewed["currentRefreshToken"], first["currentRefreshToken"]);
    assert_eq!(app.get("/me", renewed["token"].as_str()).await.status(), StatusCode::OK);

    // The first refresh token again: refused, and the one issued from it dies too.
    let reused = app
        .post_json("/refreshToken", &json!({"refreshToken": first["currentRefreshToken"]}))
        .await;
    assert_error(reused, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;
    let descendant = app
        .post_json(
            "/refreshToken",
            &json!({"refreshToken": renewed["currentRefreshToken"]}),
        )
        .await;
    assert_error(descendant, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn two_concurrent_refreshes_with_one_token_give_exactly_one_200() {
    let app = TestApp::spawn().await;
    let (_, first) = signed_in(&app).await;
    let body = json!({"refreshToken": first["currentRefreshToken"]});
    let (a, b) = tokio::join!(
        app.post_json("/refreshToken", &body),
        app.post_json("/refreshToken", &body)
    );
    let mut statuses = [a.status(), b.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::UNAUTHORIZED]);
}

#[tokio::test(flavor = "multi_thread")]
async fn refresh_checks_the_application_permission_again() {
    let app = TestApp::spawn().await;
    let (id, first) = signed_in(&app).await;
    app.sql(&format!("DELETE FROM user_applications WHERE user_id = {id}"))
        .await;
    let response = app
        .post_json("/refreshToken", &json!({"refreshToken": first["currentRefreshToken"]}))
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "aplicacao_nao_permitida").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_access_token_or_garbage_is_not_a_refresh_token() {
    let app = TestApp::spawn().await;
    let (_, first) = signed_in(&app).await;
    let with_access = app
        .post_json("/refreshToken", &json!({"refreshToken": first["token"]}))
        .await;
    assert_error(with_access, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;
    let garbage = app
        .post_json("/refreshToken", &json!({"refreshToken": "abc.def.ghi"}))
        .await;
    assert_error(garbage, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;
    let missing = app.post_json("/refreshToken", &json!({})).await;
    assert_error(missing, StatusCode::BAD_REQUEST, "dados_invalidos").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn protected_routes_refuse_missing_malformed_expired_foreign_and_unsigned_tokens() {
    let app = TestApp::spawn().await;
    let (id, first) = signed_in(&app).await;
    let principal = Principal {
        user_id: id,
        email: "ana@exemplo.com.br".into(),
        application: Application::Partner,
        session_id: uuid::Uuid::new_v4(),
    };
    let access = first["token"].as_str().unwrap();

    assert_error(app.get("/me", None).await, StatusCode::UNAUTHORIZED, "nao_autenticado").await;
    assert_error(
        app.get("/me", Some("not-a-jwt")).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
    let basic = app
        .client
        .get(app.url("/me"))
        .header("authorization", format!("Basic {access}"))
        .send()
        .await
        .unwrap();
    assert_error(basic, StatusCode::UNAUTHORIZED, "nao_autenticado").await;

    let expired = token_service()
        .issue(principal.clone(), chrono::Utc::now() - chrono::Duration::hours(2))
        .unwrap();
    assert_error(
        app.get("/me", Some(&expired.access_token)).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;

    let foreign = foreign_token_service().issue(principal, chrono::Utc::now()).unwrap();
    assert_error(
        app.get("/me", Some(&foreign.access_token)).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;

    let payload = access.split('.').nth(1).unwrap();
    let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let unsigned = format!("{none_header}.{payload}.");
    assert_error(
        app.get("/me", Some(&unsigned)).await,
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;

    assert_eq!(app.get("/me", Some(access)).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_published_keys_verify_the_tokens_kid() {
    let app = TestApp::spawn().await;
    let (_, first) = signed_in(&app).await;
    let jwks: Value = app.get("/.well-known/jwks.json", None).await.json().await.unwrap();
    let header: Value = serde_json::from_slice(
        &URL_SAFE_NO_PAD
            .decode(first["token"].as_str().unwrap().split('.').next().unwrap())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "EdDSA");
    let key = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .expect("kid published");
    assert_eq!(key["kty"], "OKP");
    assert_eq!(key["crv"], "Ed25519");
    assert_eq!(URL_SAFE_NO_PAD.decode(key["x"].as_str().unwrap()).unwrap().len(), 32);
}
