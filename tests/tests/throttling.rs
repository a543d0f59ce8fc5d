//! Sign-in throttling: counters in PostgreSQL per e-mail and per client address.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::json;

const PASSWORD: &str = "Vendas#2026";

fn attempt(email: &str, password: &str) -> serde_json::Value {
    json!({"email": email, "password": password, "aplicacao": "PARCEIRO"})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fifth_failure_for_an_email_blocks_it_with_retry_after_even_for_the_right_password() {
    // A large per-address limit, so that only the e-mail counter is at play.
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for _ in 0..5 {
        let r = app
            .post_json("/signin", &attempt("ana@exemplo.com.br", "Errada#2026"))
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    let blocked = app.post_json("/signin", &attempt("ana@exemplo.com.br", PASSWORD)).await;
    let retry_after: u64 = blocked
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after), "{retry_after}");
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_emails_count_alike_and_a_success_clears_the_email_counter() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for _ in 0..4 {
        assert_eq!(
            app.post_json("/signin", &attempt("ninguem@exemplo.com.br", PASSWORD))
                .await
                .status(),
            StatusCode::NOT_FOUND
        );
    }
    assert_eq!(
        app.post_json("/signin", &attempt("ninguem@exemplo.com.br", PASSWORD))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let blocked = app
        .post_json("/signin", &attempt("ninguem@exemplo.com.br", PASSWORD))
        .await;
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;

    // Four failures and a success: the next four failures do not block. (The address counter is
    // cleared first: the failures above blocked this client's address too.)
    app.sql("DELETE FROM signin_throttle WHERE scope = 'signin_ip'").await;
    for _ in 0..4 {
        assert_eq!(
            app.post_json("/signin", &attempt("ana@exemplo.com.br", "Errada#2026"))
                .await
                .status(),
            StatusCode::UNAUTHORIZED
        );
    }
    app.sql("DELETE FROM signin_throttle WHERE scope = 'signin_ip'").await;
    assert_eq!(
        app.post_json("/signin", &attempt("ana@exemplo.com.br", PASSWORD))
            .await
            .status(),
        StatusCode::OK
    );
    for _ in 0..4 {
        assert_eq!(
            app.post_json("/signin", &attempt("ana@exemplo.com.br", "Errada#2026"))
                .await
                .status(),
            StatusCode::UNAUTHORIZED
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_address_is_blocked_across_emails_and_a_forged_forwarded_for_moves_nothing() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for i in 0..5 {
        // Each attempt claims another address: with no trusted proxy, the header is ignored.
        let r = app
            .client
            .post(app.url("/signin"))
            .header("x-forwarded-for", format!("198.51.100.{i}"))
            .json(&attempt(&format!("outro{i}@exemplo.com.br"), PASSWORD))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let blocked = app
        .client
        .post(app.url("/signin"))
        .header("x-forwarded-for", "198.51.100.99")
        .json(&attempt("ana@exemplo.com.br", PASSWORD))
        .send()
        .await
        .unwrap();
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn behind_a_trusted_proxy_the_forwarded_client_is_counted() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1/32")]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for i in 0..5 {
        let r = app
            .client
            .post(app.url("/signin"))
            .header("x-forwarded-for", "203.0.113.7")
            .json(&attempt(&format!("outro{i}@exemplo.com.br"), PASSWORD))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let same_client = app
        .client
        .post(app.url("/signin"))
        .header("x-forwarded-for", "203.0.113.7")
        .json(&attempt("ana@exemplo.com.br", PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(same_client.status(), StatusCode::TOO_MANY_REQUESTS);
    let other_client = app
        .client
        .post(app.url("/signin"))
        .header("x-forwarded-for", "203.0.113.8")
        .json(&attempt("ana@exemplo.com.br", PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(other_client.status(), StatusCode::OK);
}
