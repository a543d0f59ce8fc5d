//! `Sales-Read-After`, the position a write answers when reads may go to replicas: a value that is
//! not a position is refused with 400 naming the header, whatever the route and whether or not
//! replicas are configured; without replicas no position is answered; with them, a write answers
//! one and a read that sends it back is served (here by the primary: the one "replica" given is
//! the primary itself, which the service finds is not in recovery and never reads from).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};

const HEADER: &str = "Sales-Read-After";

async fn partner_token(app: &TestApp) -> String {
    app.seed_catalog().await;
    app.token_for("ana@exemplo.com.br", "PARCEIRO", "11222333000181").await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_header_that_is_not_a_position_is_refused_naming_it_on_reads_and_writes() {
    let app = TestApp::spawn().await;
    let token = partner_token(&app).await;
    for bad in ["nao-e-posicao", "16", "G/1", "1/2/3", "123456789/0", " "] {
        let read = app
            .client
            .get(app.url("/proposal/list"))
            .bearer_auth(&token)
            .header(HEADER, bad)
            .send()
            .await
            .unwrap();
        let body = assert_error(read, StatusCode::BAD_REQUEST, "requisicao_invalida").await;
        assert!(body["message"].as_str().unwrap().contains(HEADER), "{bad:?}: {body}");
        let write = app
            .client
            .post(app.url("/proposal/create"))
            .bearer_auth(&token)
            .header(HEADER, bad)
            .json(&proposal_body("52998224725"))
            .send()
            .await
            .unwrap();
        assert_error(write, StatusCode::BAD_REQUEST, "requisicao_invalida").await;
    }
    // Nothing was written by the refused writes.
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_replicas_no_position_is_answered_and_one_sent_is_accepted() {
    let app = TestApp::spawn().await;
    let token = partner_token(&app).await;
    let created = app
        .post_json_as("/proposal/create", &token, &proposal_body("52998224725"))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert!(created.headers().get(HEADER).is_none());
    let read = app
        .client
        .get(app.url("/proposal/list"))
        .bearer_auth(&token)
        .header(HEADER, "0/16B3748")
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn with_replicas_a_write_answers_its_position_and_the_read_that_sends_it_back_sees_the_write() {
    let app = TestApp::spawn().await;
    let url = app.db.url.clone();
    let app = app.restart_with(&[("DATABASE_READ_URLS", &url)]).await;
    let token = partner_token(&app).await;
    let created = app
        .post_json_as("/proposal/create", &token, &proposal_body("52998224725"))
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let position = created
        .headers()
        .get(HEADER)
        .expect("a write answers its position when reads may go to replicas")
        .to_str()
        .unwrap()
        .to_owned();
    let (high, low) = position.split_once('/').unwrap();
    assert!(
        u32::from_str_radix(high, 16).is_ok() && u32::from_str_radix(low, 16).is_ok(),
        "{position}"
    );
    let body: serde_json::Value = created.json().await.unwrap();
    let identifier = body["document"][0]["identificador"].as_str().unwrap().to_owned();
    let read = app
        .client
        .get(app.url(&format!("/proposal/byIdentifier/{identifier}")))
        .bearer_auth(&token)
        .header(HEADER, &position)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), StatusCode::OK);
    // A failed write answers no position.
    let refused = app
        .post_json_as("/proposal/create", &token, &proposal_body("52998224725"))
        .await;
    assert!(refused.status().is_client_error());
    assert!(refused.headers().get(HEADER).is_none());
}
