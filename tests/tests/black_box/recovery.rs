//! Password recovery: `POST /sendRecovery` and route 2 `PUT /passwordReset`, through a real SMTP
//! server on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::smtp::SmtpSink;
use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const OLD: &str = "Vendas#2026";
const NEW: &str = "Nova#Senha2026";
const RESET_PAGE: &str = "https://vendas.exemplo.com.br/redefinir-senha";

async fn app_with_smtp(sink: &SmtpSink, extra: &[(&str, &str)]) -> TestApp {
    let url = sink.url();
    let mut pairs = vec![("SMTP_URL", url.as_str()), ("PASSWORD_RESET_URL", RESET_PAGE)];
    pairs.extend_from_slice(extra);
    TestApp::spawn_with(&pairs).await
}

/// The token in the link of a recovery message.
fn token_in(text: &str) -> String {
    let start =
        text.find(&format!("{RESET_PAGE}?token=")).expect("the reset link") + RESET_PAGE.len() + "?token=".len();
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

async fn request(app: &TestApp, email: &str) -> reqwest::Response {
    app.post_json("/sendRecovery", &json!({"email": email})).await
}

async fn reset(app: &TestApp, token: &str, password: &str) -> reqwest::Response {
    app.client
        .put(app.url("/passwordReset"))
        .json(&json!({"token": token, "password": password}))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_whole_flow_through_smtp_ends_old_password_and_old_sessions() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    let before = app.sign_in("ana@exemplo.com.br", OLD, "PARCEIRO").await;

    assert_eq!(request(&app, "ana@exemplo.com.br").await.status(), StatusCode::OK);
    let mail = sink.wait_for(1).await;
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].to, ["ana@exemplo.com.br"]);
    assert_eq!(mail[0].subject(), "Redefinição de senha");
    let token = token_in(&mail[0].text());
    assert_eq!(token.len(), 43);

    // A weak password is refused and the token is not spent.
    let weak = reset(&app, &token, "fraca").await;
    assert_eq!(weak.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let weak: Value = weak.json().await.unwrap();
    assert_eq!(weak["success"], false);
    assert_eq!(weak["errors"][0]["field"], "password");

    let done = reset(&app, &token, NEW).await;
    assert_eq!(done.status(), StatusCode::OK);
    let done: Value = done.json().await.unwrap();
    assert_eq!(
        done,
        json!({"success": true, "message": "Senha redefinida com sucesso."})
    );

    let old = app
        .post_json(
            "/signin",
            &json!({"email": "ana@exemplo.com.br", "password": OLD, "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_error(old, StatusCode::UNAUTHORIZED, "credenciais_invalidas").await;
    app.sign_in("ana@exemplo.com.br", NEW, "PARCEIRO").await;
    let stale = app
        .post_json("/refreshToken", &json!({"refreshToken": before["currentRefreshToken"]}))
        .await;
    assert_error(stale, StatusCode::UNAUTHORIZED, "refresh_token_invalido").await;

    let notice = sink.wait_for(2).await;
    assert_eq!(notice[1].subject(), "Sua senha foi alterada");

    // Used once: never again.
    let again = reset(&app, &token, "Outra#Senha2026").await;
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["success"], false);
    assert_eq!(again["code"], "token_recuperacao_invalido");
}

#[tokio::test(flavor = "multi_thread")]
async fn known_and_unknown_emails_get_byte_identical_answers() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    let known = request(&app, "ana@exemplo.com.br").await;
    let unknown = request(&app, "ninguem@exemplo.com.br").await;
    assert_eq!(known.status(), unknown.status());
    assert_eq!(known.bytes().await.unwrap(), unknown.bytes().await.unwrap());
    assert_eq!(sink.wait_for(1).await.len(), 1);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.received().len(), 1, "nothing is sent for an unknown e-mail");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_token_revokes_nothing_but_a_reset_revokes_the_others() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    request(&app, "ana@exemplo.com.br").await;
    request(&app, "ana@exemplo.com.br").await;
    let mail = sink.wait_for(2).await;
    let first = token_in(&mail[0].text());
    let second = token_in(&mail[1].text());
    assert_ne!(first, second);
    assert_eq!(reset(&app, &second, NEW).await.status(), StatusCode::OK);
    let revoked = reset(&app, &first, "Outra#Senha2026").await;
    assert_eq!(revoked.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tokens_are_404_and_expired_ones_401() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    let unknown = reset(&app, "nao-existe", NEW).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let unknown: Value = unknown.json().await.unwrap();
    assert_eq!(unknown["success"], false);
    assert_eq!(unknown["code"], "token_recuperacao_nao_encontrado");

    request(&app, "ana@exemplo.com.br").await;
    let token = token_in(&sink.wait_for(1).await[0].text());
    app.sql("UPDATE password_recovery_tokens SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'").await;
    assert_eq!(reset(&app, &token, NEW).await.status(), StatusCode::UNAUTHORIZED);

    let missing = app
        .client
        .put(app.url("/passwordReset"))
        .json(&json!({"password": NEW}))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    let malformed = app
        .client
        .put(app.url("/passwordReset"))
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let malformed: Value = malformed.json().await.unwrap();
    assert_eq!(malformed["success"], false, "payload refusals keep the route's shape");
    let text = app
        .client
        .put(app.url("/passwordReset"))
        .header("content-type", "text/plain")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(text.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(text.json::<Value>().await.unwrap()["success"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_database_never_holds_a_raw_recovery_token() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    request(&app, "ana@exemplo.com.br").await;
    let token = token_in(&sink.wait_for(1).await[0].text());
    let hash: String = Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) AS n FROM password_recovery_tokens WHERE token_hash = '{hash}'"
        ))
        .await,
        1
    );
    let raw_anywhere = format!("SELECT count(*) AS n FROM password_recovery_tokens t WHERE t::text LIKE '%{token}%'");
    assert_eq!(app.count(&raw_anywhere).await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn at_most_three_emails_per_account_per_hour_and_ten_requests_per_address() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    for _ in 0..4 {
        assert_eq!(request(&app, "ana@exemplo.com.br").await.status(), StatusCode::OK);
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM password_recovery_tokens").await, 3);
    for i in 0..6 {
        assert_eq!(
            request(&app, &format!("outro{i}@exemplo.com.br")).await.status(),
            StatusCode::OK
        );
    }
    let blocked = request(&app, "ana@exemplo.com.br").await;
    assert!(blocked.headers().get("retry-after").is_some());
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;
    assert_eq!(sink.wait_for(3).await.len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_link_comes_from_configuration_never_from_the_host_header() {
    let sink = SmtpSink::start();
    let app = app_with_smtp(&sink, &[]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    let response = app
        .client
        .post(app.url("/sendRecovery"))
        .header("host", "malicioso.exemplo.com")
        .header("x-forwarded-host", "malicioso.exemplo.com")
        .json(&json!({"email": "ana@exemplo.com.br"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let text = sink.wait_for(1).await[0].text();
    assert!(text.contains(RESET_PAGE) && !text.contains("malicioso"));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_smtp_the_message_is_written_as_an_eml_file() {
    let dir = std::env::temp_dir().join(format!("sales-api-eml-{}", std::process::id()));
    let dir_text = dir.to_string_lossy().into_owned();
    let app = TestApp::spawn_with(&[("MAIL_DIR", &dir_text)]).await;
    app.create_user("ana@exemplo.com.br", OLD, &["PARCEIRO"]).await;
    request(&app, "ana@exemplo.com.br").await;
    // The file appears before it is fully written: wait for the whole message.
    let mut messages: Vec<String> = Vec::new();
    for _ in 0..100 {
        messages = std::fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                    .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap_or_default()).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if messages.len() == 1 && messages[0].contains("ana@exemplo.com.br") && messages[0].trim_end().ends_with("--") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(messages.len(), 1);
    assert!(messages[0].contains("To: ana@exemplo.com.br"), "{}", messages[0]);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_recovery_bodies_are_400_and_422() {
    let app = TestApp::spawn().await;
    let answer = assert_error(
        app.post_json("/sendRecovery", &json!({"email": "nope"})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(answer["errors"][0]["field"], "email");
    let malformed = app
        .client
        .post(app.url("/sendRecovery"))
        .header("content-type", "application/json")
        .body("[")
        .send()
        .await
        .unwrap();
    assert_error(malformed, StatusCode::UNPROCESSABLE_ENTITY, "corpo_malformado").await;
}
