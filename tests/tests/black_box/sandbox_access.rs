//! The sandbox platform's money and clock (`/sandbox/clock`, `/sandbox/payments`) answer a tester
//! on the service's own machine, and anyone else only with a back office token; the sandbox
//! signing page stays open (it plays the customer's link).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error};
use serde_json::json;

/// A client elsewhere, as a trusted proxy on this machine reports it.
const ELSEWHERE: (&str, &str) = ("x-forwarded-for", "203.0.113.9");

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_clock_and_payments_need_the_back_office_from_elsewhere() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1/32")]).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let clock = || {
        app.client
            .post(app.url("/sandbox/clock"))
            .header(ELSEWHERE.0, ELSEWHERE.1)
            .json(&json!({"daysAhead": 3}))
    };
    assert_error(
        clock().send().await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "nao_autenticado",
    )
    .await;
    assert_error(
        clock().bearer_auth(&partner).send().await.unwrap(),
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    let moved = clock().bearer_auth(&office).send().await.unwrap();
    assert_eq!(moved.status(), StatusCode::OK);
    // Only the back office's call moved it.
    let now = app
        .client
        .get(app.url("/sandbox/clock"))
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    assert_eq!(now["data"]["daysAhead"], 3, "read from this machine, no token needed");

    for request in [
        app.client.get(app.url("/sandbox/payments")),
        app.client.post(app.url("/sandbox/payments/sub_qualquer/fail")),
    ] {
        let refused = request.header(ELSEWHERE.0, ELSEWHERE.1).send().await.unwrap();
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    }
    let page = app
        .client
        .get(app.url("/sandbox/payments"))
        .header(ELSEWHERE.0, ELSEWHERE.1)
        .bearer_auth(&office)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    // The signing page is the customer's: open from anywhere (an unknown key is its own 404).
    let signing = app
        .client
        .get(app.url("/sandbox/sign/chave-desconhecida"))
        .header(ELSEWHERE.0, ELSEWHERE.1)
        .send()
        .await
        .unwrap();
    assert_ne!(signing.status(), StatusCode::UNAUTHORIZED);
    assert_ne!(signing.status(), StatusCode::FORBIDDEN);
}
