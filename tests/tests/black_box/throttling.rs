//! Sign-in throttling: counters in PostgreSQL per (account, address), per account across
//! addresses and per address across accounts, each attempt admitted before its password is
//! checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::json;
use std::time::Duration;

const PASSWORD: &str = "Vendas#2026";
const WRONG: &str = "Errada#2026";

fn attempt(email: &str, password: &str) -> serde_json::Value {
    json!({"email": email, "password": password, "aplicacao": "PARCEIRO"})
}

/// A sign-in attempt from `client`, as the trusted proxy in front of the service reports it.
async fn sign_in_from(app: &TestApp, client: &str, email: &str, password: &str) -> reqwest::Response {
    app.client
        .post(app.url("/signin"))
        .header("x-forwarded-for", client)
        .json(&attempt(email, password))
        .send()
        .await
        .unwrap()
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fifth_failure_for_an_account_from_an_address_refuses_it_with_retry_after_even_for_the_right_password() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for _ in 0..5 {
        let r = app.post_json("/signin", &attempt("ana@exemplo.com.br", WRONG)).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    let blocked = app.post_json("/signin", &attempt("ana@exemplo.com.br", PASSWORD)).await;
    let seconds = retry_after(&blocked);
    assert!((1..=30).contains(&seconds), "{seconds}");
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn thirty_concurrent_wrong_guesses_check_at_most_five_and_the_owner_signs_in_from_elsewhere() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1/32")]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    let guesses = (0..30).map(|_| sign_in_from(&app, "203.0.113.66", "ana@exemplo.com.br", WRONG));
    let statuses: Vec<StatusCode> = futures_util::future::join_all(guesses)
        .await
        .iter()
        .map(|r| r.status())
        .collect();
    // 401: the password was checked; 429: refused before any check.
    let checked = statuses.iter().filter(|s| **s == StatusCode::UNAUTHORIZED).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert!(checked <= 5, "{checked} guesses checked: {statuses:?}");
    assert_eq!(checked + refused, 30, "{statuses:?}");
    // The owner, from the partner office's other address, is not locked out.
    let owner = sign_in_from(&app, "198.51.100.20", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(owner.status(), StatusCode::OK);
    // The attacker's address, for this account, still is.
    let again = sign_in_from(&app, "203.0.113.66", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);
}

/// The statuses of `n` sign-ins in a row.
async fn statuses(app: &TestApp, n: usize, email: &str, password: &str) -> Vec<u16> {
    let mut seen = Vec::new();
    for _ in 0..n {
        seen.push(
            app.post_json("/signin", &attempt(email, password))
                .await
                .status()
                .as_u16(),
        );
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_email_is_throttled_exactly_like_a_known_one_and_a_success_clears_the_pair() {
    let app = TestApp::spawn().await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    // A 404 and a 401 are the spec's; the throttle treats both alike.
    assert_eq!(
        statuses(&app, 6, "ninguem@exemplo.com.br", PASSWORD).await,
        [404, 404, 404, 404, 404, 429]
    );
    assert_eq!(
        statuses(&app, 6, "ana@exemplo.com.br", WRONG).await,
        [401, 401, 401, 401, 401, 429]
    );

    // Four failures and a success: the next four failures do not refuse.
    app.create_user("bia@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    assert_eq!(statuses(&app, 4, "bia@exemplo.com.br", WRONG).await, [401; 4]);
    assert_eq!(statuses(&app, 1, "bia@exemplo.com.br", PASSWORD).await, [200]);
    assert_eq!(statuses(&app, 4, "bia@exemplo.com.br", WRONG).await, [401; 4]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_address_failing_across_many_accounts_is_refused_and_a_forged_forwarded_for_moves_nothing() {
    let app = TestApp::spawn_with(&[("SIGNIN_MAX_FAILURES_PER_ADDRESS", "5")]).await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for i in 0..5 {
        // Each attempt claims another address: with no trusted proxy, the header is ignored.
        let r = sign_in_from(
            &app,
            &format!("198.51.100.{i}"),
            &format!("outro{i}@exemplo.com.br"),
            PASSWORD,
        )
        .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let blocked = sign_in_from(&app, "198.51.100.99", "ana@exemplo.com.br", PASSWORD).await;
    assert_error(blocked, StatusCode::TOO_MANY_REQUESTS, "muitas_tentativas").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn behind_a_trusted_proxy_the_forwarded_client_is_counted_and_ipv6_by_its_64() {
    let app = TestApp::spawn_with(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("SIGNIN_MAX_FAILURES_PER_ADDRESS", "5"),
    ])
    .await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for i in 0..5 {
        let r = sign_in_from(&app, "203.0.113.7", &format!("outro{i}@exemplo.com.br"), PASSWORD).await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let same_client = sign_in_from(&app, "203.0.113.7", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(same_client.status(), StatusCode::TOO_MANY_REQUESTS);
    let other_client = sign_in_from(&app, "203.0.113.8", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(other_client.status(), StatusCode::OK);

    // Five addresses of one IPv6 /64 are one client; the next /64 is another.
    for i in 1..=5 {
        let r = sign_in_from(
            &app,
            &format!("2001:db8:aa:bb::{i}"),
            &format!("v6-{i}@exemplo.com.br"),
            PASSWORD,
        )
        .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    let same_64 = sign_in_from(&app, "2001:db8:aa:bb:ffff::1", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(same_64.status(), StatusCode::TOO_MANY_REQUESTS);
    let next_64 = sign_in_from(&app, "2001:db8:aa:bc::1", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(next_64.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread")]
async fn guesses_at_one_account_from_many_addresses_meet_short_growing_delays_not_a_lock() {
    let app = TestApp::spawn_with(&[
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("SIGNIN_MAX_FAILURES_PER_ACCOUNT", "3"),
    ])
    .await;
    app.create_user("ana@exemplo.com.br", PASSWORD, &["PARCEIRO"]).await;
    for i in 1..=3 {
        let r = sign_in_from(&app, &format!("198.51.100.{i}"), "ana@exemplo.com.br", WRONG).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    // The account's third failure delays it, from any address, by a second.
    let delayed = sign_in_from(&app, "192.0.2.50", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(delayed.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(retry_after(&delayed), 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // One more wrong guess once the delay is over doubles it.
    let fourth = sign_in_from(&app, "198.51.100.4", "ana@exemplo.com.br", WRONG).await;
    assert_eq!(fourth.status(), StatusCode::UNAUTHORIZED);
    let delayed = sign_in_from(&app, "192.0.2.50", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(delayed.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(retry_after(&delayed), 2);
    // And when it is over, the owner signs in.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let owner = sign_in_from(&app, "192.0.2.50", "ana@exemplo.com.br", PASSWORD).await;
    assert_eq!(owner.status(), StatusCode::OK);
}
