//! Dated contract versions (issue 49): every answer names its version in `Sales-Version`, a
//! request may name one (an unknown one is refused naming the known ones), a credential may be
//! pinned to one, and the same proposal and the same event read in each version's shape.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::hooks::{receiver, requests};
use black_box_tests::{StatusCode, TestApp, assert_error, proposal_body};
use serde_json::{Value, json};
use std::time::Duration;

const PARTNER: &str = "11222333000181";
const VERSION: &str = "sales-version";

fn version_of(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(VERSION)
        .unwrap_or_else(|| panic!("no Sales-Version on {} {}", response.status(), response.url()))
        .to_str()
        .unwrap()
        .to_owned()
}

/// Route 7 as `token` reads it, in `version` (none: the caller's own).
async fn detail(app: &TestApp, identifier: &str, token: &str, version: Option<&str>) -> (String, Value) {
    let mut request = app
        .client
        .get(app.url(&format!("/proposal/byIdentifier/{identifier}")))
        .bearer_auth(token);
    if let Some(version) = version {
        request = request.header(VERSION, version);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let named = version_of(&response);
    (named, response.json::<Value>().await.unwrap()["data"].clone())
}

/// `GET path` naming `version`, as JSON.
async fn get_in(app: &TestApp, path: &str, token: Option<&str>, version: &str) -> Value {
    let mut request = app.client.get(app.url(path)).header(VERSION, version);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_answer_names_its_version_successes_errors_and_public_routes_alike() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let answers = [
        app.get("/health/live", None).await,
        app.get("/rota/que/nao/existe", None).await,
        app.get("/hooks", None).await,
        app.get("/hooks", Some(&partner)).await,
        app.post_json_as("/proposal/create", &partner, &json!({})).await,
        app.get("/docs", None).await,
    ];
    for answer in &answers {
        assert_eq!(version_of(answer), "2026-11-29", "{}", answer.url());
    }
    assert_eq!(answers[1].status(), StatusCode::NOT_FOUND);
    assert_eq!(answers[4].status(), StatusCode::BAD_REQUEST);
    for version in ["2026-11-21", "2026-11-29", "2026-12-01"] {
        let named = app
            .client
            .get(app.url("/hooks"))
            .bearer_auth(&partner)
            .header(VERSION, version)
            .send()
            .await
            .unwrap();
        assert_eq!(named.status(), StatusCode::OK);
        assert_eq!(version_of(&named), version);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_version_is_refused_naming_the_known_ones_and_nothing_is_written() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    for sent in ["2025-01-01", "latest", ""] {
        let response = app
            .client
            .post(app.url("/proposal/create"))
            .bearer_auth(&partner)
            .header(VERSION, sent)
            .json(&proposal_body("12345678909"))
            .send()
            .await
            .unwrap();
        assert_eq!(version_of(&response), "2026-11-29");
        let body = assert_error(response, StatusCode::BAD_REQUEST, "versao_desconhecida").await;
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("Sales-Version"), "{message}");
        assert!(message.contains("2026-11-21, 2026-11-29, 2026-12-01"), "{message}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM proposals").await, 0);
    let document = app.get("/openapi.json?version=2020-01-01", None).await;
    assert_error(document, StatusCode::BAD_REQUEST, "versao_desconhecida").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_proposal_reads_in_each_versions_shape_and_a_pinned_credential_reads_its_own() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let mut body = proposal_body("12345678909");
    body["address"]["number"] = json!("123A");
    let created = app.post_json_as("/proposal/create", &partner, &body).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let identifier = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();

    // Never pinned: the shapes the service always served.
    let (named, old) = detail(&app, &identifier, &partner, None).await;
    assert_eq!(named, "2026-11-29");
    assert_eq!(
        old["customer"]["birthday"],
        "Tue May 15 1990 00:00:00 GMT+0000 (Coordinated Universal Time)"
    );
    assert_eq!(old["customer"]["number"], Value::Null);
    // The newest, asked for: an ISO date and the number as sent.
    let (named, new) = detail(&app, &identifier, &partner, Some("2026-12-01")).await;
    assert_eq!(named, "2026-12-01");
    assert_eq!(new["customer"]["birthday"], "1990-05-15");
    assert_eq!(new["customer"]["number"], "123A");
    // Everything else reads alike.
    let (mut a, mut b) = (old.clone(), new.clone());
    for member in ["birthday", "number"] {
        a["customer"].as_object_mut().unwrap().remove(member);
        b["customer"].as_object_mut().unwrap().remove(member);
    }
    assert_eq!(a, b);

    // Pinned to the newest, the credential reads it without asking; a request still chooses.
    app.user_administration()
        .pin_version("rep@demo.com.br", Some("2026-12-01"))
        .await
        .unwrap();
    // Every instance hears of the pin through PostgreSQL: read until it arrives.
    let (named, pinned) = read_until(&app, &identifier, &partner, "2026-12-01").await;
    assert_eq!(
        (named.as_str(), &pinned["customer"]["number"]),
        ("2026-12-01", &json!("123A"))
    );
    let (named, asked) = detail(&app, &identifier, &partner, Some("2026-11-29")).await;
    assert_eq!(
        (named.as_str(), &asked["customer"]["number"]),
        ("2026-11-29", &Value::Null)
    );
    // Unpinned again, the session going on all along.
    app.user_administration()
        .pin_version("rep@demo.com.br", None)
        .await
        .unwrap();
    let (named, _) = read_until(&app, &identifier, &partner, "2026-11-29").await;
    assert_eq!(named, "2026-11-29");
}

/// Route 7 in the caller's own version, read until that version is `expected` (5 s at most).
async fn read_until(app: &TestApp, identifier: &str, token: &str, expected: &str) -> (String, Value) {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (named, data) = detail(app, identifier, token, None).await;
        if named == expected || std::time::Instant::now() > deadline {
            return (named, data);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_proposal_and_its_event_read_as_cancelled_in_the_first_released_version() {
    let app = TestApp::spawn_with(&[
        ("SIGNATURE_EXPIRY_INTERVAL_MS", "100"),
        ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8"),
        ("HOOKS_POLL_INTERVAL_MS", "200"),
    ])
    .await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    // One subscription made under release 0.1.0's version, one never naming any.
    let (first_released, unpinned) = (receiver(200).await, receiver(200).await);
    for (server, version) in [(&first_released, Some("2026-11-21")), (&unpinned, None)] {
        let mut request = app
            .client
            .post(app.url("/hooks"))
            .bearer_auth(&office)
            .json(&json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": server.uri(), "status": "ATIVO"}));
        if let Some(version) = version {
            request = request.header(VERSION, version);
        }
        assert_eq!(request.send().await.unwrap().status(), StatusCode::OK);
    }
    let identifier = app.sent_proposal(&partner, "12345678909").await;
    app.sql("UPDATE signatures SET prazo_em = now() - interval '1 minute'")
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while app
        .count("SELECT count(*) AS n FROM proposals WHERE status = 'EXPIRADO'")
        .await
        < 1
    {
        assert!(std::time::Instant::now() < deadline, "the proposal did not expire");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let (_, seen) = detail(&app, &identifier, &office, Some("2026-11-21")).await;
    assert_eq!(seen["proposal"]["status"], "CANCELADO");
    let (_, seen) = detail(&app, &identifier, &office, None).await;
    assert_eq!(seen["proposal"]["status"], "EXPIRADO");
    let listed = get_in(&app, "/proposal/list", Some(&office), "2026-11-21").await;
    assert_eq!(listed["document"][0]["status"], "CANCELADO");

    // The expiry's event (after the sending's), each subscription in its version.
    let last_change = |received: Vec<wiremock::Request>| {
        received
            .iter()
            .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap())
            .rfind(|event| event["type"] == "ALTERAÇÃO_STATUS")
            .unwrap()
    };
    let (old_requests, current_requests) = (requests(&first_released, 2).await, requests(&unpinned, 2).await);
    // Each delivery names the version its body is in.
    let named = |received: &[wiremock::Request]| {
        received[0]
            .headers
            .get("sales-version")
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(named(&old_requests), "2026-11-21");
    assert_eq!(named(&current_requests), "2026-11-29");
    let old = last_change(old_requests);
    let current = last_change(current_requests);
    assert_eq!(old["data"]["statusAnterior"], "AGUARDANDO ASSINATURA");
    assert_eq!(old["data"]["statusAtual"], "CANCELADO");
    assert_eq!(current["data"]["statusAtual"], "EXPIRADO");
    assert_eq!(old["data"]["sequence"], current["data"]["sequence"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn each_versions_document_is_served_as_committed_and_names_itself() {
    let app = TestApp::spawn().await;
    // The newest is docs/openapi.json; each older one docs/openapi/{version}.json.
    // Decision 273: 2026-12-06 is the newest; 2026-12-01 became an older one.
    let committed = |name: &str| -> Value {
        let file = if name == "2026-12-06" {
            "openapi.json".to_owned()
        } else {
            format!("openapi/{name}.json")
        };
        let path = format!("{}/../docs/{file}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    for version in ["2026-11-21", "2026-11-29", "2026-12-01", "2026-12-06"] {
        let response = app.get(&format!("/openapi.json?version={version}"), None).await;
        assert_eq!(version_of(&response), version);
        let served: Value = response.json().await.unwrap();
        assert_eq!(served["info"]["x-sales-version"], version);
        assert!(
            served == committed(version),
            "o documento servido de {version} difere de docs/openapi/{version}.json: gere-o de novo com `sales-api openapi --version {version}`"
        );
    }
    // Without a version, the newest; with Sales-Version and no query, that version's.
    let newest: Value = app.get("/openapi.json", None).await.json().await.unwrap();
    assert_eq!(newest["info"]["x-sales-version"], "2026-12-06");
    let asked = get_in(&app, "/openapi.json", None, "2026-11-21").await;
    assert_eq!(asked["info"]["x-sales-version"], "2026-11-21");
    let statuses = asked["components"]["schemas"]["ProposalStatus"]["enum"]
        .as_array()
        .unwrap();
    assert!(!statuses.contains(&json!("EXPIRADO")), "{statuses:?}");
}

/// `GET path` as `token` in `version`, answered in it: (status, body).
async fn listed(app: &TestApp, path: &str, token: &str, version: &str) -> (StatusCode, Value) {
    let response = app
        .client
        .get(app.url(path))
        .bearer_auth(token)
        .header(VERSION, version)
        .send()
        .await
        .unwrap();
    assert_eq!(version_of(&response), version);
    (response.status(), response.json().await.unwrap())
}

/// Follows `data.nextCursor` from `first` (a path with `limit`) to the last page, in `2026-12-01`:
/// the ids of every page, in order, and how many pages.
async fn every_page(app: &TestApp, first: &str, token: &str, items: &str) -> (Vec<Value>, usize) {
    let (mut ids, mut pages, mut path) = (Vec::new(), 0, first.to_owned());
    loop {
        let (status, body) = listed(app, &path, token, "2026-12-01").await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        pages += 1;
        let list = body.pointer(items).and_then(Value::as_array).unwrap();
        ids.extend(
            list.iter()
                .map(|item| item.get("id").or(item.get("uuid")).cloned().unwrap()),
        );
        let data = &body["data"];
        assert_eq!(data["has_more"], json!(!data["nextCursor"].is_null()), "{path}: {data}");
        match data["nextCursor"].as_str() {
            Some(cursor) => path = format!("{first}&cursor={cursor}"),
            None => return (ids, pages),
        }
        assert!(pages < 50, "the pages never end");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_list_pages_by_cursor_with_has_more_in_the_newest_and_as_before_in_the_older() {
    let app = TestApp::spawn_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    for _ in 0..3 {
        let body = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "http://127.0.0.1:9/hooks", "status": "INATIVO"});
        assert_eq!(
            app.post_json_as("/hooks", &partner, &body).await.status(),
            StatusCode::OK
        );
    }

    // The catalog: the pages by cursor hold, in order, what one page without a limit holds.
    for listing in ["/billingGroup/list", "/product/list"] {
        let (_, whole) = listed(&app, listing, &partner, "2026-12-01").await;
        let all: Vec<Value> = whole["document"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect();
        assert!(all.len() >= 2, "{listing}: {whole}");
        assert_eq!(
            whole["data"],
            json!({"nextCursor": null, "has_more": false}),
            "{listing}"
        );
        let (paged, pages) = every_page(&app, &format!("{listing}?limit=1"), &partner, "/document").await;
        assert_eq!((paged, pages), (all.clone(), all.len()), "{listing}");
        // `offset` is still honoured; with a cursor it is refused, naming the cursor.
        let (status, skipped) = listed(&app, &format!("{listing}?limit=1&offset=1"), &partner, "2026-12-01").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(skipped["document"][0]["id"], all[1]);
        let refused = app
            .client
            .get(app.url(&format!("{listing}?cursor=1&offset=1")))
            .bearer_auth(&partner)
            .send()
            .await
            .unwrap();
        let refused = assert_error(refused, StatusCode::BAD_REQUEST, "dados_invalidos").await;
        assert_eq!(refused["errors"][0]["field"], "cursor", "{refused}");
        // The older versions read the listing as before: no `data`.
        for version in ["2026-11-21", "2026-11-29"] {
            let (_, older) = listed(&app, &format!("{listing}?limit=1"), &partner, version).await;
            assert!(older.get("data").is_none(), "{listing} in {version}: {older}");
            assert_eq!(older["document"][0]["id"], all[0]);
        }
    }

    // Route 18: the subscriptions page oldest first, their items where the spec keeps them.
    let (subscriptions, pages) = every_page(&app, "/hooks?limit=2", &partner, "/data/subscriptions").await;
    assert_eq!((subscriptions.len(), pages), (3, 2));
    let (status, refused) = listed(&app, "/hooks?limit=0", &partner, "2026-12-01").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["errors"][0]["field"], "limit");
    for version in ["2026-11-21", "2026-11-29"] {
        let (_, older) = listed(&app, "/hooks", &partner, version).await;
        let keys: Vec<&String> = older["data"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["subscriptions"], "{version}");
        assert_eq!(older["data"]["subscriptions"].as_array().map(Vec::len), Some(3));
    }

    // The proposal list says whether another page follows from 2026-12-01 only.
    let (_, newest) = listed(&app, "/proposal/list", &partner, "2026-12-01").await;
    assert_eq!(newest["data"], json!({"nextCursor": null, "has_more": false}));
    let (_, older) = listed(&app, "/proposal/list", &partner, "2026-11-29").await;
    assert_eq!(older["data"], json!({"nextCursor": null}));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_back_office_pins_and_unpins_a_users_credential_and_no_one_else_may() {
    let app = TestApp::spawn().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let read_by_partner = || async {
        let answer = app.get("/hooks", Some(&partner)).await;
        assert_eq!(answer.status(), StatusCode::OK);
        let version = version_of(&answer);
        let data: Value = answer.json().await.unwrap();
        (version, data["data"].clone())
    };
    assert_eq!(read_by_partner().await.0, "2026-11-29");

    let pinned = app
        .put_json_as(
            "/users/rep@demo.com.br/version",
            &office,
            &json!({"version": "2026-12-01"}),
        )
        .await;
    assert_eq!(pinned.status(), StatusCode::OK);
    let body: Value = pinned.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("2026-12-01"), "{body}");
    // The partner's next request reads the pinned version, in its shape; its session goes on.
    let (version, data) = read_by_partner().await;
    assert_eq!(version, "2026-12-01");
    assert_eq!(data["has_more"], false, "{data}");

    let unpinned = app
        .client
        .delete(app.url("/users/rep@demo.com.br/version"))
        .bearer_auth(&office)
        .send()
        .await
        .unwrap();
    assert_eq!(unpinned.status(), StatusCode::OK);
    let (version, data) = read_by_partner().await;
    assert_eq!(version, "2026-11-29");
    assert!(data.get("has_more").is_none(), "{data}");

    // Refused, naming what is wrong, and nothing changes.
    let unknown = assert_error(
        app.put_json_as(
            "/users/rep@demo.com.br/version",
            &office,
            &json!({"version": "2027-01-01"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(unknown["errors"][0]["field"], "version");
    assert!(
        unknown["errors"][0]["message"].as_str().unwrap().contains("2026-11-21"),
        "{unknown}"
    );
    let missing = assert_error(
        app.put_json_as("/users/rep@demo.com.br/version", &office, &json!({}))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(missing["errors"][0]["field"], "version");
    let malformed = assert_error(
        app.put_json_as("/users/nao-e-email/version", &office, &json!({"version": "2026-12-01"}))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(malformed["errors"][0]["field"], "email");
    assert_error(
        app.put_json_as(
            "/users/ninguem@demo.com.br/version",
            &office,
            &json!({"version": "2026-12-01"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "usuario_nao_encontrado",
    )
    .await;
    assert_error(
        app.put_json_as(
            "/users/bo@demo.com.br/version",
            &partner,
            &json!({"version": "2026-12-01"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    assert_eq!(read_by_partner().await.0, "2026-11-29");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_released_version_reads_only_release_0_1_0s_error_codes_payment_types_and_event_kinds() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;

    // A code added since 0.1.0 reads as its status's code of 0.1.0, the message as it is.
    let (status, newest) = listed(&app, "/protocol/2026120299999999", &office, "2026-11-29").await;
    assert_eq!(
        (status, newest["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("protocolo_nao_encontrado"))
    );
    let (status, first) = listed(&app, "/protocol/2026120299999999", &office, "2026-11-21").await;
    assert_eq!(
        (status, first["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("nao_encontrado"))
    );
    assert_eq!(first["message"], newest["message"]);
    // A code 0.1.0 had reads as it is.
    let missing = "/proposal/byIdentifier/00000000-0000-0000-0000-000000000000";
    let (status, kept) = listed(&app, missing, &office, "2026-11-21").await;
    assert_eq!(
        (status, kept["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("proposta_nao_encontrada"))
    );

    // A conflict 0.1.0 did not name reads as its one conflict with the records' state.
    let identifier = super::console::in_analysis_with(&app, &partner, &office, proposal_body("52998224725")).await;
    let certificate = format!("/proposal/{identifier}/certificate");
    let (status, newest) = listed(&app, &certificate, &office, "2026-11-29").await;
    assert_eq!(
        (status, newest["code"].as_str()),
        (StatusCode::CONFLICT, Some("proposta_nao_aceita"))
    );
    let (status, first) = listed(&app, &certificate, &office, "2026-11-21").await;
    assert_eq!(
        (status, first["code"].as_str()),
        (StatusCode::CONFLICT, Some("anonimizacao_bloqueada"))
    );

    // A Pix Automático sale reads as the account debit 0.1.0 knew.
    let mut pix = proposal_body("11144477735");
    pix.as_object_mut().unwrap().remove("discountOnSheet");
    pix["typeOfPayments"] = json!("PIX AUTOMÁTICO");
    let created = app.post_json_as("/proposal/create", &partner, &pix).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let pix_sale = created.json::<Value>().await.unwrap()["document"][0]["identificador"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, newest) = detail(&app, &pix_sale, &partner, Some("2026-11-29")).await;
    assert_eq!(newest["payment"]["type"], "PIX AUTOMÁTICO");
    let (_, first) = detail(&app, &pix_sale, &partner, Some("2026-11-21")).await;
    assert_eq!(first["payment"]["type"], "DÉBITO EM CONTA");

    // That version's document closes its lists to 0.1.0's values.
    let document = get_in(&app, "/openapi.json?version=2026-11-21", None, "2026-11-21").await;
    let schemas = &document["components"]["schemas"];
    assert_eq!(
        schemas["EventKind"]["enum"].as_array().unwrap().len(),
        6,
        "{}",
        schemas["EventKind"]
    );
    assert!(document["webhooks"].get("PENDENCIA_ABERTA").is_none());
    assert_eq!(
        schemas["PaymentType"]["enum"],
        json!(["DÉBITO EM CONTA", "DESCONTO EM FOLHA"])
    );
    let not_found = schemas["NotFoundError"]["allOf"][1]["properties"]["code"]["enum"]
        .as_array()
        .unwrap();
    assert!(not_found.contains(&json!("nao_encontrado")));
    assert!(!not_found.contains(&json!("protocolo_nao_encontrado")));
}
