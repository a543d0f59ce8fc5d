//! Signing deadlines: a proposal sent for signature carries its deadline
//! (`SIGNATURE_DEADLINE_DAYS`), and once it passes with signatures missing the proposal moves to
//! `EXPIRADO` exactly once, whichever instances look; a late signature changes nothing, and the
//! customer may open another proposal for the product.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, cpf_from, proposal_body};
use serde_json::Value;
use std::time::Duration;

const PARTNER: &str = "11222333000181";
/// Each instance looks for overdue proposals this often.
const EXPIRY_EVERY: (&str, &str) = ("SIGNATURE_EXPIRY_INTERVAL_MS", "100");

async fn status(app: &TestApp, office: &str, identifier: &str) -> String {
    app.proposal_data(identifier, office).await["proposal"]["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sent_proposal_carries_its_deadline_from_the_setting() {
    let app = TestApp::spawn_with(&[("SIGNATURE_DEADLINE_DAYS", "7")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    app.sent_proposal(&partner, "12345678909").await;
    assert_eq!(
        app.count(
            "SELECT count(*) AS n FROM signatures
             WHERE prazo_em BETWEEN now() + interval '7 days' - interval '5 minutes' AND now() + interval '7 days'"
        )
        .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn past_its_deadline_a_proposal_expires_once_whichever_instances_look() {
    let app = TestApp::spawn_with(&[EXPIRY_EVERY]).await;
    let second = app.another_instance(&[EXPIRY_EVERY]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let cpfs: Vec<String> = (1..=6).map(|n| cpf_from(100_000_000 + n)).collect();
    let mut overdue = Vec::new();
    for cpf in &cpfs[..5] {
        overdue.push(app.sent_proposal(&partner, cpf).await);
    }
    let on_time = app.sent_proposal(&partner, &cpfs[5]).await;
    let client_key = app.proposal_data(&overdue[0], &office).await["sign"]["clientKey"]
        .as_str()
        .unwrap()
        .to_owned();

    // The five deadlines pass at once; both instances look every 100 ms.
    app.sql(&format!(
        "UPDATE signatures s SET prazo_em = now() - interval '1 minute' FROM proposals p
         WHERE p.id = s.proposal_id AND p.identificador <> '{on_time}'"
    ))
    .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while app
        .count("SELECT count(*) AS n FROM proposals WHERE status = 'EXPIRADO'")
        .await
        < 5
    {
        assert!(std::time::Instant::now() < deadline, "the proposals did not expire");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Give both instances more passes: nothing moves twice.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        app.count("SELECT count(*) AS n FROM proposal_events WHERE to_status = 'EXPIRADO'")
            .await,
        5,
        "one event per proposal"
    );
    for identifier in &overdue {
        assert_eq!(status(&app, &office, identifier).await, "EXPIRADO");
    }
    assert_eq!(status(&app, &office, &on_time).await, "AGUARDANDO ASSINATURA");
    let events: Value = app
        .get(&format!("/proposal/{}/events", overdue[0]), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let last = events["document"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["previousStatus"], "AGUARDANDO ASSINATURA");
    assert_eq!(last["status"], "EXPIRADO");
    assert_eq!(last["changedBy"], "prazo-de-assinatura");
    assert!(
        last["reason"]
            .as_str()
            .unwrap()
            .starts_with("Prazo de assinatura vencido em "),
        "{last}"
    );

    // A signature after the deadline changes nothing; the customer may start over.
    let pressed = app
        .client
        .post(app.url(&format!("/sandbox/sign/{client_key}")))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_error(pressed, StatusCode::CONFLICT, "proposta_expirada").await;
    assert_eq!(status(&app, &office, &overdue[0]).await, "EXPIRADO");
    assert_error(
        app.get(&format!("/signer/signLink?identifier={}", overdue[0]), Some(&partner))
            .await,
        StatusCode::CONFLICT,
        "proposta_expirada",
    )
    .await;
    let again = app
        .post_json_as("/proposal/create", &partner, &proposal_body(&cpfs[0]))
        .await;
    assert_eq!(again.status(), StatusCode::CREATED, "an expired proposal is finished");
    second.stop().await;
}
