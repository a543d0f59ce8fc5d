//! Rate limits a client can see: every answer tells the policy and what is left, and a caller over
//! its limit is refused with 429, `Retry-After` and the error envelope, whichever instance it
//! reaches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use chrono::Timelike;
use std::time::Duration;

const LIMITED: [(&str, &str); 2] = [("RATE_LIMIT_REQUESTS_PER_MINUTE", "10"), ("RATE_LIMIT_SYNC_MS", "50")];

/// Starts at the beginning of a minute's window when too little of this one is left for the test.
async fn a_fresh_window() {
    let second = chrono::Utc::now().second();
    if second > 40 {
        tokio::time::sleep(Duration::from_secs(u64::from(61 - second))).await;
    }
}

/// Waits until the caller's shared row holds `hits` requests (what every instance flushed).
async fn shared_count_reaches(app: &TestApp, hits: i64) {
    let started = std::time::Instant::now();
    while app
        .count("SELECT coalesce(max(hits), 0) AS n FROM rate_limit_counters")
        .await
        < hits
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the shared count never reached {hits}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn field(response: &reqwest::Response, name: &str) -> String {
    response.headers()[name].to_str().unwrap().to_owned()
}

/// `r` of `RateLimit: "default";r=…;t=…`.
fn remaining(response: &reqwest::Response) -> u64 {
    let value = field(response, "ratelimit");
    let r = value.split(';').find_map(|p| p.strip_prefix("r=")).unwrap();
    r.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_callers_limit_is_shared_by_every_instance_and_told_on_every_answer() {
    let app = TestApp::spawn_with(&LIMITED).await;
    let other = app.another_instance(&LIMITED).await;
    app.seed_catalog().await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    a_fresh_window().await;

    let mut left = Vec::new();
    for _ in 0..6 {
        let response = app.get("/billingGroup/list", Some(&office)).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(field(&response, "ratelimit-policy"), "\"default\";q=10;w=60");
        left.push(remaining(&response));
    }
    assert_eq!(left, [9, 8, 7, 6, 5, 4]);
    // The other instance learns the count from the shared one: its first request of the window
    // reads the row, once this instance's flush has written the six.
    shared_count_reaches(&app, 6).await;
    for expected in [3, 2, 1, 0] {
        let response = reqwest::Client::new()
            .get(other.url("/billingGroup/list"))
            .bearer_auth(&office)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(remaining(&response), expected);
    }
    let refused = reqwest::Client::new()
        .get(other.url("/billingGroup/list"))
        .bearer_auth(&office)
        .send()
        .await
        .unwrap();
    let wait: u64 = field(&refused, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(remaining(&refused), 0);
    let body = assert_error(refused, StatusCode::TOO_MANY_REQUESTS, "limite_requisicoes").await;
    assert!(
        body["message"].as_str().unwrap().contains("10 requisições por minuto"),
        "{body}"
    );
    // Refused on the first instance too, once it has heard: the other's five are in the row, and
    // the first reads the row back at its next flush (every 50 ms; eight of them allowed).
    shared_count_reaches(&app, 11).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_error(
        app.get("/billingGroup/list", Some(&office)).await,
        StatusCode::TOO_MANY_REQUESTS,
        "limite_requisicoes",
    )
    .await;

    // Another user has a limit of its own; the health checks are never counted.
    let response = app.get("/billingGroup/list", Some(&shop)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(remaining(&response), 9);
    for _ in 0..12 {
        assert_eq!(app.get("/health/live", None).await.status(), StatusCode::OK);
    }
    other.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn callers_without_a_token_are_counted_by_address_and_off_turns_the_limit_off() {
    let app = TestApp::spawn_with(&LIMITED).await;
    a_fresh_window().await;
    for expected in (0..10).rev() {
        let response = app.get("/openapi.json", None).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(remaining(&response), expected);
    }
    assert_error(
        app.get("/openapi.json", None).await,
        StatusCode::TOO_MANY_REQUESTS,
        "limite_requisicoes",
    )
    .await;

    let unlimited = TestApp::spawn_with(&[("RATE_LIMIT_REQUESTS_PER_MINUTE", "off")]).await;
    for _ in 0..15 {
        let response = unlimited.get("/openapi.json", None).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().get("ratelimit").is_none());
    }
}
