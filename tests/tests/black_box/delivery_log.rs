//! The delivery log a subscription's owner reads a page at a time, and the replay of a window of
//! it with the original message ids.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::hooks::{Setup, cancel, deliveries, delivery_in_state, requests, setup, subscribe};
use black_box_tests::{StatusCode, assert_error, cpf_from, error_fields};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// A receiver that accepts the first `accepted` requests and answers 503 to the rest.
async fn receiver_accepting(accepted: u64) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .up_to_n_times(accepted)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .with_priority(2)
        .mount(&server)
        .await;
    server
}

/// `n` proposals of the partner, each cancelled: one status change each for the back office.
async fn cancelled_proposals(s: &Setup, n: u8) {
    for i in 0..n {
        let identifier = s.app.create_proposal(&s.partner, &cpf_from(u32::from(i) + 20)).await;
        cancel(s, &identifier).await;
    }
}

/// Waits until the subscription's log holds `n` deliveries, all delivered.
async fn all_delivered(s: &Setup, uuid: &str, n: usize) {
    let started = std::time::Instant::now();
    loop {
        let log = deliveries(&s.app, &s.office, uuid).await;
        if log.len() == n && log.iter().all(|d| d["status"] == "ENTREGUE") {
            return;
        }
        assert!(started.elapsed().as_secs() < 20, "{log:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

fn message_ids(requests: &[Request]) -> BTreeSet<String> {
    requests
        .iter()
        .map(|r| r.headers["webhook-id"].to_str().unwrap().to_owned())
        .collect()
}

async fn replay(s: &Setup, token: &str, uuid: &str, body: Value) -> reqwest::Response {
    s.app.post_json_as(&format!("/hooks/{uuid}/replay"), token, &body).await
}

fn an_hour_ago() -> String {
    (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_is_read_newest_first_a_page_at_a_time_by_its_owner_only() {
    let s = setup(&[]).await;
    let server = receiver_accepting(100).await;
    let subscription = subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    cancelled_proposals(&s, 3).await;
    all_delivered(&s, uuid, 3).await;
    let all = deliveries(&s.app, &s.office, uuid).await;
    assert_eq!(all.len(), 3);

    let page = |query: String| {
        let s = &s;
        async move {
            let response = s
                .app
                .get(&format!("/hooks/{uuid}/deliveries{query}"), Some(&s.office))
                .await;
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.unwrap()
        }
    };
    let first = page("?limit=2".into()).await;
    assert_eq!(first["document"].as_array().unwrap()[..], all[..2]);
    let cursor = first["data"]["nextCursor"].as_str().unwrap().to_owned();
    let second = page(format!("?limit=2&cursor={cursor}")).await;
    assert_eq!(second["document"].as_array().unwrap()[..], all[2..]);
    assert_eq!(second["data"]["nextCursor"], Value::Null);
    for delivery in &all {
        assert_eq!(delivery["type"], "ALTERAÇÃO_STATUS");
        assert!(delivery["webhookId"].as_str().unwrap().starts_with("msg_"));
        assert_eq!(delivery["attempts"][0]["responseStatus"], 200);
    }

    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=101", "limit"),
        ("?cursor=xyz", "cursor"),
        ("?pagina=2", "pagina"),
    ] {
        let answer = assert_error(
            s.app
                .get(&format!("/hooks/{uuid}/deliveries{query}"), Some(&s.office))
                .await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&answer), [field], "{query}");
    }
    // Another owner's log, and its replay, are not found.
    assert_error(
        s.app.get(&format!("/hooks/{uuid}/deliveries"), Some(&s.partner)).await,
        StatusCode::NOT_FOUND,
        "webhook_nao_encontrado",
    )
    .await;
    assert_error(
        replay(&s, &s.partner, uuid, json!({"since": an_hour_ago()})).await,
        StatusCode::NOT_FOUND,
        "webhook_nao_encontrado",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_sends_the_window_again_with_the_same_ids_and_bodies_one_replay_at_a_time() {
    let s = setup(&[("HOOKS_RETRY_SCHEDULE_SECS", "30,30,30")]).await;
    // The first three deliveries are accepted; the receiver fails from then on.
    let server = receiver_accepting(3).await;
    let subscription = subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    cancelled_proposals(&s, 3).await;
    let first = requests(&server, 3).await;
    all_delivered(&s, uuid, 3).await;
    let before_window = replay(
        &s,
        &s.office,
        uuid,
        json!({"since": an_hour_ago(), "until": (chrono::Utc::now() - chrono::Duration::minutes(30)).to_rfc3339()}),
    )
    .await;
    assert_eq!(before_window.status(), StatusCode::OK);
    assert_eq!(before_window.json::<Value>().await.unwrap()["data"]["deliveries"], 0);

    let replayed = replay(&s, &s.office, uuid, json!({"since": an_hour_ago()})).await;
    assert_eq!(replayed.status(), StatusCode::OK);
    let replayed: Value = replayed.json().await.unwrap();
    assert_eq!(replayed["data"]["deliveries"], 3);
    assert!(replayed["message"].as_str().unwrap().contains("3 entrega"));

    let all = requests(&server, 6).await;
    assert_eq!(message_ids(&all[3..]), message_ids(&first), "the original message ids");
    let bodies = |requests: &[Request]| -> BTreeSet<Vec<u8>> { requests.iter().map(|r| r.body.clone()).collect() };
    assert_eq!(bodies(&all[3..]), bodies(&first), "the original bytes");

    // The receiver failed them: they wait for their next attempt, so the replay still runs.
    delivery_in_state(&s.app, &s.office, uuid, "PENDENTE").await;
    let refused = assert_error(
        replay(&s, &s.office, uuid, json!({"since": an_hour_ago()})).await,
        StatusCode::CONFLICT,
        "reenvio_em_andamento",
    )
    .await;
    assert!(refused["message"].as_str().unwrap().contains("aguarde"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_names_what_is_wrong_with_its_window_and_an_inactive_subscription_is_refused() {
    let s = setup(&[]).await;
    let subscription = subscribe(&s.app, &s.office, "http://127.0.0.1:9/hooks", "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    let now = chrono::Utc::now();
    let at = |hours: i64| (now + chrono::Duration::hours(hours)).to_rfc3339();
    for (body, field) in [
        (json!({}), "since"),
        (json!({"since": "2026-11-25"}), "since"),
        (json!({"since": at(-2), "until": "depois"}), "until"),
        (json!({"since": at(1)}), "since"),
        (json!({"since": at(-2), "until": at(-3)}), "until"),
        (json!({"since": at(-24 * 8)}), "since"),
    ] {
        let answer = assert_error(
            replay(&s, &s.office, uuid, body.clone()).await,
            StatusCode::BAD_REQUEST,
            "dados_invalidos",
        )
        .await;
        assert_eq!(error_fields(&answer), [field], "{body}");
    }
    // The test event's one parameter is named too, and nothing is queued.
    let answer = assert_error(
        s.app
            .post_json_as(&format!("/hooks/{uuid}/test?wait=sim"), &s.office, &json!({}))
            .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&answer), ["wait"]);
    assert!(deliveries(&s.app, &s.office, uuid).await.is_empty());
    let inactive = subscribe(&s.app, &s.office, "http://127.0.0.1:9/hooks", "INATIVO").await;
    assert_error(
        replay(
            &s,
            &s.office,
            inactive["uuid"].as_str().unwrap(),
            json!({"since": at(-2)}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "webhook_inativo",
    )
    .await;
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM hook_replays").await,
        0,
        "nothing was recorded"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_test_event_asked_to_wait_is_answered_with_what_the_receiver_answered() {
    let s = setup(&[]).await;
    // The first request is accepted, the next refused.
    let server = receiver_accepting(1).await;
    let subscription = subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    let test = || async {
        let response = s
            .app
            .post_json_as(&format!("/hooks/{uuid}/test?wait=true"), &s.office, &json!({}))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json::<Value>().await.unwrap()["document"][0].clone()
    };
    let delivered = test().await;
    assert_eq!(delivered["type"], "TESTE");
    assert_eq!(delivered["status"], "ENTREGUE", "{delivered}");
    assert_eq!(delivered["attempts"][0]["responseStatus"], 200);

    let refused = test().await;
    assert_eq!(refused["status"], "PENDENTE");
    assert_eq!(refused["attempts"][0]["responseStatus"], 503);
    assert!(refused["nextAttemptAt"].is_string(), "{refused}");
    assert_ne!(refused["webhookId"], delivered["webhookId"]);
}

/// A replay queues at most `HOOKS_REPLAY_MAX_DELIVERIES`: a window holding more is refused whole
/// with a 400 naming it (nothing queued), and a narrower one goes through.
#[tokio::test(flavor = "multi_thread")]
async fn a_replay_wider_than_its_bound_is_refused_naming_the_window_and_queues_nothing() {
    let s = setup(&[("HOOKS_REPLAY_MAX_DELIVERIES", "2")]).await;
    let server = receiver_accepting(100).await;
    let subscription = subscribe(&s.app, &s.office, &server.uri(), "ATIVO").await;
    let uuid = subscription["uuid"].as_str().unwrap();
    cancelled_proposals(&s, 3).await;
    all_delivered(&s, uuid, 3).await;

    let refused = assert_error(
        replay(&s, &s.office, uuid, json!({"since": an_hour_ago()})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["since"]);
    let message = refused["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("3 entregas") && message.contains("no máximo 2"),
        "{message}"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM hook_deliveries WHERE replay_id IS NOT NULL")
            .await,
        0,
        "nothing queued"
    );
    // The oldest delivery moved half an hour back: the window of the last twenty minutes holds the
    // two others, which fit.
    s.app
        .sql("UPDATE hook_deliveries SET created_at = created_at - interval '30 minutes' WHERE id = (SELECT min(id) FROM hook_deliveries)")
        .await;
    let since = (chrono::Utc::now() - chrono::Duration::minutes(20)).to_rfc3339();
    let replayed = replay(&s, &s.office, uuid, json!({"since": since})).await;
    assert_eq!(replayed.status(), StatusCode::OK);
    let replayed: Value = replayed.json().await.unwrap();
    assert_eq!(replayed["data"]["deliveries"], 2, "{replayed}");
}
