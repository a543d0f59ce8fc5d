//! `Idempotency-Key` on the creating `POST`s: a retry with the same key and body answers the first
//! answer again and creates nothing; another body with the key is a 422 naming it; concurrent
//! requests with one key run once; keys are per user; a refused request releases its key.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";

async fn setup() -> (TestApp, String, String) {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    (app, partner, office)
}

async fn post_with_key(app: &TestApp, path: &str, token: &str, key: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .bearer_auth(token)
        .header("idempotency-key", key)
        .json(body)
        .send()
        .await
        .unwrap()
}

fn replayed(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_key_and_body_answer_the_first_answer_and_create_nothing() {
    let (app, partner, _) = setup().await;
    let body = proposal_body("12345678909");
    let first = post_with_key(&app, "/proposal/create", &partner, "chave-1", &body).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    assert!(!replayed(&first));
    let first_body = first.text().await.unwrap();

    let again = post_with_key(&app, "/proposal/create", &partner, "chave-1", &body).await;
    assert_eq!(again.status(), StatusCode::CREATED);
    assert!(replayed(&again));
    assert_eq!(again.headers()["content-type"], "application/json");
    assert_eq!(
        again.text().await.unwrap(),
        first_body,
        "the same answer, byte for byte"
    );
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 1);

    // The key with another body is refused, naming the key; nothing is created.
    let other = proposal_body("52998224725");
    let refused = assert_error(
        post_with_key(&app, "/proposal/create", &partner, "chave-1", &other).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotencia_outra_requisicao",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "Idempotency-Key");
    assert_eq!(refused["errors"][0]["code"], "chave_idempotencia_reutilizada");
    // The same body on another route is another request too.
    assert_error(
        post_with_key(&app, "/customer/create", &partner, "chave-1", &body).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotencia_outra_requisicao",
    )
    .await;
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_belong_to_their_user() {
    let (app, partner, office) = setup().await;
    let colleague = app.token_for("rep2@demo.com.br", "PARCEIRO", PARTNER).await;
    let first = post_with_key(
        &app,
        "/proposal/create",
        &partner,
        "comum",
        &proposal_body("12345678909"),
    )
    .await;
    assert_eq!(first.status(), StatusCode::CREATED);
    // Another user's same key is another key: it runs (and here meets the open proposal).
    let theirs = post_with_key(
        &app,
        "/proposal/create",
        &colleague,
        "comum",
        &proposal_body("12345678909"),
    )
    .await;
    assert!(!replayed(&theirs));
    assert_ne!(theirs.status(), StatusCode::CREATED);
    // The back office's product with the same key is created, not refused.
    let product = json!({"codigo_produto": 777, "nome": "Produto Idempotente", "codigo_integracao": 9777,
        "bank": [{"codigoBanco": "001", "nome": "Banco do Brasil"}]});
    let created = post_with_key(&app, "/product", &office, "comum", &product).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let replay = post_with_key(&app, "/product", &office, "comum", &product).await;
    assert!(replayed(&replay));
    assert_eq!(
        app.count("SELECT count(*) AS n FROM products WHERE codigo_produto = 777")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_requests_with_one_key_run_once() {
    let (app, partner, _) = setup().await;
    let body = proposal_body("12345678909");
    let answers = futures_util::future::join_all(
        (0..8).map(|_| post_with_key(&app, "/proposal/create", &partner, "corrida", &body)),
    )
    .await;
    let mut ran = 0;
    for answer in answers {
        match answer.status() {
            StatusCode::CREATED if replayed(&answer) => {}
            StatusCode::CREATED => ran += 1,
            StatusCode::CONFLICT => {
                assert_eq!(answer.headers()["retry-after"], "1");
                let body: Value = answer.json().await.unwrap();
                assert_eq!(body["code"], "requisicao_em_andamento");
            }
            other => panic!("unexpected {other}: {}", answer.text().await.unwrap()),
        }
    }
    assert_eq!(ran, 1, "exactly one of them ran");
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 1);
    // After it finished, a retry is the replay.
    let retry = post_with_key(&app, "/proposal/create", &partner, "corrida", &body).await;
    assert!(replayed(&retry));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_request_releases_its_key_and_a_bad_key_is_named() {
    let (app, partner, _) = setup().await;
    let mut bad = proposal_body("12345678909");
    bad["customer"]["cpf"] = json!("123.456.789-00");
    let refused = post_with_key(&app, "/proposal/create", &partner, "corrigir", &bad).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(!replayed(&refused));
    let corrected = post_with_key(
        &app,
        "/proposal/create",
        &partner,
        "corrigir",
        &proposal_body("12345678909"),
    )
    .await;
    assert_eq!(
        corrected.status(),
        StatusCode::CREATED,
        "the corrected request runs under the same key"
    );

    for key in ["", "com espaço", &"k".repeat(256)] {
        let answer = assert_error(
            post_with_key(&app, "/proposal/create", &partner, key, &proposal_body("52998224725")).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(answer["errors"][0]["field"], "Idempotency-Key", "{key:?}");
        assert_eq!(answer["errors"][0]["code"], "chave_idempotencia_invalida");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 1);

    // Without a token the key changes nothing: the route answers 401 itself.
    let anonymous = app
        .client
        .post(app.url("/proposal/create"))
        .header("idempotency-key", "anonima")
        .json(&proposal_body("52998224725"))
        .send()
        .await
        .unwrap();
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "nao_autenticado").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_creating_post_takes_the_key_and_the_contract_says_so() {
    let app = TestApp::spawn().await;
    let doc: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    for path in api_actix::routes::docs::IDEMPOTENT_POSTS {
        let operation = &doc["paths"][path]["post"];
        let parameters = operation["parameters"].as_array().unwrap();
        assert!(
            parameters
                .iter()
                .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header"),
            "{path}"
        );
        assert!(
            operation["responses"]["409"].is_object() && operation["responses"]["422"].is_object(),
            "{path}"
        );
        // The route is wrapped: a malformed key is refused before anything else.
        let answer = assert_error(
            app.client
                .post(app.url(path))
                .header("idempotency-key", "com espaço")
                .json(&json!({}))
                .send()
                .await
                .unwrap(),
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(answer["errors"][0]["field"], "Idempotency-Key", "{path}");
    }
}

/// Bytes of every kept answer and fingerprint (as stored, whatever their column) that contain
/// `text`.
async fn kept_rows_containing(app: &TestApp, text: &str) -> i64 {
    app.count(&format!(
        "SELECT count(*) AS n FROM idempotency_keys
         WHERE position(convert_to('{text}', 'UTF8') IN coalesce(body, ''::bytea) || coalesce(answer_sealed, ''::bytea)
                                                         || convert_to(fingerprint, 'UTF8')) > 0"
    ))
    .await
}

fn customer_body() -> Value {
    black_box_tests::customer_body("529.982.247-25")
}

#[tokio::test(flavor = "multi_thread")]
async fn kept_answers_hold_no_secret_or_personal_data_in_clear_and_still_replay() {
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let created = post_with_key(&app, "/customer/create", &partner, "cadastro-1", &customer_body()).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let first = created.text().await.unwrap();
    assert!(first.contains("Losartana") && first.contains("52998224725"));
    let hook = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "http://127.0.0.1:9/hooks", "status": "INATIVO"});
    let subscribed = post_with_key(&app, "/hooks", &office, "webhook-1", &hook).await;
    assert_eq!(subscribed.status(), StatusCode::OK);
    let subscribed: Value = subscribed.json().await.unwrap();
    let secret = subscribed["data"]["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));

    for text in [
        "Maria",
        "Losartana",
        "52998224725",
        "maria@exemplo",
        "whsec_",
        &secret[6..],
    ] {
        assert_eq!(kept_rows_containing(&app, text).await, 0, "{text} is kept in clear");
    }
    assert_eq!(
        app.count("SELECT count(*) AS n FROM idempotency_keys WHERE answer_sealed IS NOT NULL")
            .await,
        2
    );

    let again = post_with_key(&app, "/customer/create", &partner, "cadastro-1", &customer_body()).await;
    assert!(replayed(&again));
    assert_eq!(again.text().await.unwrap(), first, "the same answer, byte for byte");
    let again = post_with_key(&app, "/hooks", &office, "webhook-1", &hook).await;
    assert!(replayed(&again));
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["data"]["secret"], secret.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn anonymisation_erases_the_kept_answers_about_the_person_and_the_export_lists_them() {
    let (app, partner, office) = setup().await;
    let created = post_with_key(&app, "/customer/create", &partner, "cadastro-1", &customer_body()).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    // Another person's answer is left alone.
    let mut other = customer_body();
    other["cliente"]["cpf"] = json!("123.456.789-09");
    other["cliente"]["nome_completo"] = json!("João Souza");
    let other_created = post_with_key(&app, "/customer/create", &partner, "cadastro-2", &other).await;
    assert_eq!(other_created.status(), StatusCode::CREATED);

    let export: Value = app
        .get("/privacy/customers/52998224725", Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let kept = export["data"]["respostas_idempotentes"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{export}");
    assert_eq!(kept[0]["chave"], "cadastro-1");
    assert_eq!(kept[0]["usuario"], "rep@demo.com.br");
    assert!(
        !kept[0].to_string().contains("Losartana"),
        "the export says an answer exists, not what it held"
    );

    let anonymized = app
        .client
        .post(app.url("/privacy/customers/52998224725/anonymize"))
        .bearer_auth(&office)
        .send()
        .await
        .unwrap();
    assert_eq!(anonymized.status(), StatusCode::OK);
    let anonymized: Value = anonymized.json().await.unwrap();
    assert_eq!(anonymized["data"]["respostasIdempotentesApagadas"], 1);

    let replay = assert_error(
        post_with_key(&app, "/customer/create", &partner, "cadastro-1", &customer_body()).await,
        StatusCode::CONFLICT,
        "idempotencia_esquecida",
    )
    .await;
    assert_eq!(replay["errors"][0]["field"], "Idempotency-Key");
    assert_eq!(replay["errors"][0]["code"], "chave_idempotencia_esquecida");
    assert!(!replay.to_string().contains("Maria"));
    assert_eq!(
        app.count("SELECT count(*) AS n FROM customers WHERE cpf = '52998224725'")
            .await,
        0,
        "the refused replay created nothing"
    );
    // The other person's answer still replays.
    let other_again = post_with_key(&app, "/customer/create", &partner, "cadastro-2", &other).await;
    assert!(replayed(&other_again));
    assert_eq!(
        app.count("SELECT count(*) AS n FROM idempotency_keys WHERE forgotten_at IS NOT NULL")
            .await,
        1
    );
}
