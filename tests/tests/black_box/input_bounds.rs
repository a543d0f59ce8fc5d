//! Every cost a caller controls is bounded: a body must arrive in time, free text has a maximum
//! length named per field, and a query string with too many parameters is refused at once with a
//! short answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, error_fields, proposal_body};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends the request head announcing a body of `length` bytes, then the body one byte at a
/// time with `pause` between bytes, until the server answers. Answers the status line and how
/// many body bytes had been sent when the answer came.
async fn trickle(app: &TestApp, path: &str, length: usize, pause: Duration) -> (String, usize) {
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let answer = tokio::spawn(async move {
        let mut buffer = vec![0u8; 4096];
        let n = reader.read(&mut buffer).await.unwrap();
        String::from_utf8_lossy(&buffer[..n]).into_owned()
    });
    let mut sent = 0;
    while sent < length && !answer.is_finished() {
        if writer.write_all(b" ").await.is_err() {
            break;
        }
        sent += 1;
        tokio::time::sleep(pause).await;
    }
    let answer = answer.await.unwrap();
    (answer, sent)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_trickled_past_the_read_timeout_is_a_408() {
    let app = TestApp::spawn_with(&[("BODY_READ_TIMEOUT_MS", "1000")]).await;
    // 200 bytes at one every 100 ms would take 20 s: the answer comes once a second has passed.
    for path in ["/signin", "/callbacks/payment"] {
        let (answer, sent) = trickle(&app, path, 200, Duration::from_millis(100)).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{path}: {answer}");
        assert!(answer.contains("corpo_atrasado"), "{path}: {answer}");
        assert!(
            sent < 200,
            "{path}: answered before the body was complete ({sent} bytes sent)"
        );
    }
    // A body sent whole is read as always.
    let answer = app
        .post_json(
            "/signin",
            &json!({"email": "ninguem@exemplo.com.br", "password": "x", "aplicacao": "PARCEIRO"}),
        )
        .await;
    assert_ne!(answer.status(), StatusCode::REQUEST_TIMEOUT);
}

#[tokio::test(flavor = "multi_thread")]
async fn free_text_longer_than_its_field_allows_is_named_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let long = |n: usize| "a".repeat(n);
    let mut body = proposal_body("52998224725");
    body["customer"]["profession"] = json!(long(81));
    body["customer"]["nationality"] = json!(long(61));
    body["customer"]["medication"] = json!(true);
    body["customer"]["medicationDescription"] = json!(long(501));
    body["customer"]["fullName"] = json!(format!("Maria {}", long(120)));
    body["customer"]["email"] = json!(format!("{}@exemplo.com.br", long(250)));
    body["address"]["address"] = json!(long(121));
    body["address"]["complement"] = json!(long(61));
    body["address"]["neighborhood"] = json!(long(61));
    body["address"]["city"] = json!(long(61));
    body["address"]["number"] = json!(long(21));
    let answer = assert_error(
        app.post_json_as("/proposal/create", &partner, &body).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    let mut fields = error_fields(&answer);
    fields.sort();
    let mut expected = vec![
        "address.address",
        "address.city",
        "address.complement",
        "address.neighborhood",
        "address.number",
        "customer.email",
        "customer.fullName",
        "customer.medicationDescription",
        "customer.nationality",
        "customer.profession",
    ];
    expected.sort();
    assert_eq!(fields, expected, "{answer}");
    let too_long: Vec<&Value> = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["code"] == "texto_longo")
        .collect();
    assert_eq!(too_long.len(), 8, "{answer}");
    assert!(
        too_long
            .iter()
            .any(|e| e["message"].as_str().unwrap().contains("no máximo 80 caracteres"))
    );
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 0);
    assert_eq!(app.count("SELECT count(*) AS n FROM customers").await, 0);

    // Exactly at each maximum is taken.
    let mut body = proposal_body("52998224725");
    body["customer"]["profession"] = json!(long(80));
    body["address"]["address"] = json!(long(120));
    body["address"]["city"] = json!(long(60));
    let created = app.post_json_as("/proposal/create", &partner, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);

    // A status change's reason: 500 characters at most.
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let created: Value = created.json().await.unwrap();
    let identifier = created["document"][0]["identificador"].as_str().unwrap();
    let refused = app
        .client
        .patch(app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&office)
        .json(&json!({"status": "CANCELADO", "reason": long(501)}))
        .send()
        .await
        .unwrap();
    let refused = assert_error(refused, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    assert_eq!(error_fields(&refused), ["reason"]);
    assert_eq!(refused["errors"][0]["code"], "texto_longo");
}

#[tokio::test(flavor = "multi_thread")]
async fn thousands_of_repeated_query_parameters_get_one_short_answer() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let repeated = vec!["limit=10"; 7_000].join("&");
    for path in ["/proposal/list", "/product/list", "/billingGroup/list"] {
        let response = app.get(&format!("{path}?{repeated}"), Some(&office)).await;
        let answer = response.text().await.unwrap();
        assert!(answer.len() < 1_024, "{path}: {} bytes", answer.len());
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["code"], "dados_invalidos", "{path}: {answer}");
        assert_eq!(error_fields(&answer), ["query"], "{path}");
        assert_eq!(answer["errors"][0]["code"], "parametros_demais");
        assert!(
            answer["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("7000 parâmetros")
        );
    }
    // One `fields` listing thousands of unknown names is named once.
    let names: Vec<String> = (0..3_000).map(|i| format!("x{i}")).collect();
    let response = app
        .get(&format!("/product/list?fields={}", names.join(",")), Some(&office))
        .await;
    let answer = response.text().await.unwrap();
    assert!(answer.len() < 1_024, "{} bytes", answer.len());
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(error_fields(&answer), ["fields"]);
    // Thirty-two parameters are still read one by one (here: each a repeat, named once).
    let some = vec!["limit=10"; 32].join("&");
    let answer = assert_error(
        app.get(&format!("/proposal/list?{some}"), Some(&office)).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["limit"]);
}
