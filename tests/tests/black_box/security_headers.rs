//! The headers every answer carries: nothing stored by browsers or proxies unless the answer is
//! public, no content type guessed, pages loaded only from here and never framed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp};
use serde_json::json;

const POLICY: &str = "default-src 'self'; frame-ancestors 'none'";

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("{name} missing on {}", response.url()))
        .to_str()
        .unwrap()
}

fn assert_private(response: &reqwest::Response) {
    assert_eq!(header(response, "cache-control"), "no-store", "{}", response.url());
    assert_eq!(header(response, "x-content-type-options"), "nosniff");
    assert_eq!(header(response, "content-security-policy"), POLICY);
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_with_tokens_personal_data_or_errors_are_never_stored() {
    // Webhooks may reach loopback, where nothing listens: the subscription is only stored.
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    app.create_user("ana@exemplo.com.br", "Vendas#2026", &["PARCEIRO"])
        .await;
    let signed_in = app
        .post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": "Vendas#2026", "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_eq!(signed_in.status(), StatusCode::OK);
    assert_private(&signed_in);
    let session: serde_json::Value = signed_in.json().await.unwrap();
    let token = session["token"].as_str().unwrap();

    let renewed = app
        .post_json(
            "/refreshToken",
            &json!({"refreshToken": session["currentRefreshToken"]}),
        )
        .await;
    assert_eq!(renewed.status(), StatusCode::OK);
    assert_private(&renewed);

    let proposal = app
        .post_json_as(
            "/proposal/create",
            token,
            &black_box_tests::proposal_body("52998224725"),
        )
        .await;
    assert_eq!(proposal.status(), StatusCode::CREATED);
    assert_private(&proposal);
    let customer = app.get("/customer/validCustomer/52998224725", Some(token)).await;
    assert_eq!(customer.status(), StatusCode::OK);
    assert_private(&customer);
    let hook = app
        .post_json_as(
            "/hooks",
            token,
            &json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "http://127.0.0.1:9/eventos", "status": "ATIVO"}),
        )
        .await;
    assert!(hook.status().is_success(), "{}", hook.status());
    assert_private(&hook);

    for (path, status) in [("/me", StatusCode::UNAUTHORIZED), ("/nada", StatusCode::NOT_FOUND)] {
        let response = app.get(path, None).await;
        assert_eq!(response.status(), status);
        assert_private(&response);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn public_answers_say_so_and_pages_carry_the_content_security_policy() {
    let app = TestApp::spawn().await;
    let keys = app.get("/.well-known/jwks.json", None).await;
    assert_eq!(header(&keys, "cache-control"), "public, max-age=300");
    assert_eq!(header(&keys, "x-content-type-options"), "nosniff");

    let page = app.get("/docs", None).await;
    assert!(header(&page, "content-type").starts_with("text/html"));
    assert_eq!(header(&page, "content-security-policy"), POLICY);
    let html = page.text().await.unwrap();
    assert!(!html.contains("<style") && !html.contains("style=\"") && !html.contains("<script"));
    assert!(html.contains("href=\"/assets/pages.css\""));

    let stylesheet = app.get("/assets/pages.css", None).await;
    assert_eq!(stylesheet.status(), StatusCode::OK);
    assert!(header(&stylesheet, "content-type").starts_with("text/css"));
    assert_eq!(header(&stylesheet, "cache-control"), "public, max-age=3600");
    assert_eq!(header(&stylesheet, "x-content-type-options"), "nosniff");

    let interactive = app.get("/docs/interativa/", None).await;
    assert_eq!(interactive.status(), StatusCode::OK);
    assert_eq!(header(&interactive, "content-security-policy"), POLICY);
}
