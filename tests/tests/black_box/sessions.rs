//! Sessions that end in seconds on every instance: a sign-out, a password reset, a disable and a
//! change of applications, each seen from a second instance on the same database; refresh
//! rotation raced against reuse and sign-out.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::smtp::SmtpSink;
use black_box_tests::{Instance, StatusCode, TestApp, assert_error};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const PASSWORD: &str = "Vendas#2026";

fn access(session: &Value) -> String {
    session["token"].as_str().unwrap().to_owned()
}

fn refresh_token(session: &Value) -> String {
    session["currentRefreshToken"].as_str().unwrap().to_owned()
}

/// Polls `GET /me` on `instance` with `token` until it answers 401 `sessao_encerrada`; fails after
/// 5 seconds. Answers how long it took.
async fn ended_within_five_seconds(instance: &Instance, token: &str) -> Duration {
    let started = Instant::now();
    loop {
        let response = instance.get("/me", Some(token)).await;
        if response.status() == StatusCode::UNAUTHORIZED {
            assert_error(response, StatusCode::UNAUTHORIZED, "sessao_encerrada").await;
            return started.elapsed();
        }
        assert_eq!(response.status(), StatusCode::OK);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the token still works 5 s after its session ended"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn sign_out(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .post(app.url("/signout"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

/// The service, and a second instance of it on the same database.
async fn two_instances(extra: &[(&str, &str)]) -> (TestApp, Instance) {
    let app = TestApp::spawn_with(extra).await;
    let other = app.another_instance(extra).await;
    (app, other)
}

/// Both instances have answered for the token (each keeps that answer in memory).
async fn used_on_both(app: &TestApp, other: &Instance, token: &str) {
    assert_eq!(app.get("/me", Some(token)).await.status(), StatusCode::OK);
    assert_eq!(other.get("/me", Some(token)).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_out_ends_the_session_on_every_instance_and_its_refresh_tokens() {
    let (app, other) = two_instances(&[]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let session = app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await;
    let elsewhere = app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await;
    let token = access(&session);
    used_on_both(&app, &other, &token).await;

    let out = sign_out(&app, &token).await;
    assert_eq!(out.status(), StatusCode::OK);
    let body: Value = out.json().await.unwrap();
    assert_eq!(body["status"], "success");
    assert_eq!(body["message"], "Sessão encerrada com sucesso.");

    ended_within_five_seconds(&other, &token).await;
    ended_within_five_seconds(&app.another_instance(&[]).await, &token).await;
    let stale = app
        .post_json("/refreshToken", &json!({"refreshToken": refresh_token(&session)}))
        .await;
    assert_error(stale, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;
    // Only that session: the user's other sign-in goes on.
    assert_eq!(
        other.get("/me", Some(&access(&elsewhere))).await.status(),
        StatusCode::OK
    );
    // Signing out needs a live session.
    let again = sign_out(&app, &token).await;
    assert_error(again, StatusCode::UNAUTHORIZED, "sessao_encerrada").await;
    let anonymous = app.client.post(app.url("/signout")).send().await.unwrap();
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "nao_autenticado").await;
}

/// The token in the link of a recovery message.
fn recovery_token_in(text: &str) -> String {
    let marker = "?token=";
    let start = text.find(marker).expect("the reset link") + marker.len();
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_reset_ends_every_session_of_the_user_on_every_instance() {
    let sink = SmtpSink::start();
    let smtp = sink.url();
    let (app, other) = two_instances(&[("SMTP_URL", smtp.as_str())]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO", "BACKOFFICE"])
        .await;
    let partner = access(&app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await);
    let back_office = access(&app.sign_in("ana@exemplo.com.br", PASSWORD, "BACKOFFICE").await);
    used_on_both(&app, &other, &partner).await;
    used_on_both(&app, &other, &back_office).await;

    let sent = app
        .post_json("/sendRecovery", &json!({"email": "ana@exemplo.com.br"}))
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let token = recovery_token_in(&sink.wait_for(1).await[0].text());
    let reset = app
        .client
        .put(app.url("/passwordReset"))
        .json(&json!({"token": token, "password": "Nova#Senha2026"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reset.status(), StatusCode::OK);

    ended_within_five_seconds(&other, &partner).await;
    ended_within_five_seconds(&other, &back_office).await;
    ended_within_five_seconds(&app.another_instance(&[]).await, &partner).await;
    // The new password opens a new session.
    let fresh = access(&app.sign_in("ana@exemplo.com.br", "Nova#Senha2026", "PARCEIRO").await);
    assert_eq!(other.get("/me", Some(&fresh)).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn disabling_a_user_ends_its_sessions_on_every_instance_and_refuses_its_sign_in() {
    let (app, other) = two_instances(&[]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    app.create_user("bia@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let ana = app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await;
    let bia = access(&app.sign_in("bia@exemplo.com.br", PASSWORD, "PARCEIRO").await);
    used_on_both(&app, &other, &access(&ana)).await;

    app.user_administration().disable("ana@exemplo.com.br").await.unwrap();
    ended_within_five_seconds(&other, &access(&ana)).await;
    ended_within_five_seconds(&app.another_instance(&[]).await, &access(&ana)).await;
    let refresh = app
        .post_json("/refreshToken", &json!({"refreshToken": refresh_token(&ana)}))
        .await;
    assert_eq!(refresh.status(), StatusCode::UNAUTHORIZED);
    let refused = app
        .post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": PASSWORD, "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_error(refused, StatusCode::FORBIDDEN, "usuario_desativado").await;
    // Says nothing before the password is right.
    let guess = app
        .post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": "Errada#2026", "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_error(guess, StatusCode::UNAUTHORIZED, "credenciais_invalidas").await;
    // Another user's session is untouched.
    assert_eq!(other.get("/me", Some(&bia)).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn changing_a_users_applications_ends_its_sessions_on_every_instance() {
    let (app, other) = two_instances(&[]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO", "BACKOFFICE"])
        .await;
    let partner = access(&app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await);
    used_on_both(&app, &other, &partner).await;

    app.user_administration()
        .set_applications("ana@exemplo.com.br", &["BACKOFFICE".to_owned()])
        .await
        .unwrap();
    ended_within_five_seconds(&other, &partner).await;
    let refused = app
        .post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": PASSWORD, "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_error(refused, StatusCode::FORBIDDEN, "aplicacao_nao_permitida").await;
    let back_office = access(&app.sign_in("ana@exemplo.com.br", PASSWORD, "BACKOFFICE").await);
    assert_eq!(other.get("/me", Some(&back_office)).await.status(), StatusCode::OK);
}

async fn refresh(app: &TestApp, token: &str) -> reqwest::Response {
    app.post_json("/refreshToken", &json!({"refreshToken": token})).await
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_concurrent_refreshes_of_one_token_give_one_pair_and_end_the_session() {
    let (app, other) = two_instances(&[]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let session = app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await;
    let presented = refresh_token(&session);
    let answers = futures_util::future::join_all((0..10).map(|_| refresh(&app, &presented))).await;
    let mut pairs = Vec::new();
    for answer in answers {
        match answer.status() {
            StatusCode::OK => pairs.push(answer.json::<Value>().await.unwrap()),
            status => assert_eq!(status, StatusCode::UNAUTHORIZED),
        }
    }
    assert_eq!(pairs.len(), 1, "exactly one refresh wins");
    // The others were reuses of a spent token: the whole session ended, the winner's pair with it.
    ended_within_five_seconds(&other, &access(&pairs[0])).await;
    ended_within_five_seconds(&other, &access(&session)).await;
    assert_eq!(
        refresh(&app, &refresh_token(&pairs[0])).await.status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refresh_racing_a_sign_out_never_leaves_a_working_token() {
    let (app, other) = two_instances(&[]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for _ in 0..5 {
        let session = app.sign_in("ana@exemplo.com.br", PASSWORD, "PARCEIRO").await;
        let (presented, token) = (refresh_token(&session), access(&session));
        let (renewed, out) = tokio::join!(refresh(&app, &presented), sign_out(&app, &token));
        assert_eq!(out.status(), StatusCode::OK);
        if renewed.status() == StatusCode::OK {
            let pair: Value = renewed.json().await.unwrap();
            ended_within_five_seconds(&other, &access(&pair)).await;
            assert_eq!(
                refresh(&app, &refresh_token(&pair)).await.status(),
                StatusCode::UNAUTHORIZED
            );
        } else {
            assert_eq!(renewed.status(), StatusCode::UNAUTHORIZED);
        }
        ended_within_five_seconds(&other, &access(&session)).await;
    }
}
