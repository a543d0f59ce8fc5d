//! The acceptance clock (issue 45): a proposal's time to be accepted or refused starts when it
//! enters `EM ANÁLISE`, with its product's policy (Circular SUSEP 642/2021). At the deadline a
//! product that accepts by silence makes it `APROVADO` (`ACEITE_TACITO`); any other leaves it
//! overdue for the analysts. The days are lived through with the sandbox's clock, which every
//! instance, the worker and the command line read from the database.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::{PoolSettings, build_pool, seed};
use black_box_tests::{StatusCode, TestApp, assert_timestamp, proposal_body};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";

struct Sale {
    app: TestApp,
    partner: String,
    office: String,
}

async fn sale() -> Sale {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let pool = build_pool(&PoolSettings::new(&app.db.url)).unwrap();
    seed::seed_demo_decided_product(&pool).await.unwrap();
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    Sale { app, partner, office }
}

impl Sale {
    /// A proposal of the product, sent and signed by every party: in analysis.
    async fn in_analysis(&self, cpf: &str, product_code: i64) -> String {
        let mut body = proposal_body(cpf);
        body["productCode"] = json!(product_code);
        if product_code == i64::from(seed::DEMO_DECIDED_PRODUCT) {
            body["billingCode"] = json!(seed::DEMO_DECIDED_BILLING_GROUP);
        }
        let created = self.app.post_json_as("/proposal/create", &self.partner, &body).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let record = created.json::<Value>().await.unwrap()["document"][0].clone();
        let identifier = record["identificador"].as_str().unwrap().to_owned();
        let acceptance = self.app.proposal_data(&identifier, &self.office).await["acceptance"].clone();
        assert_eq!(acceptance, Value::Null, "no clock before the analysis");
        let sent = self
            .app
            .post_json_as(
                "/signer",
                &self.partner,
                &json!({"customerId": record["id_cliente"], "identifier": identifier}),
            )
            .await;
        assert_eq!(sent.status(), StatusCode::OK);
        self.app.sign_as_every_party(&self.office, &identifier).await;
        identifier
    }

    async fn data(&self, identifier: &str) -> Value {
        self.app.proposal_data(identifier, &self.office).await
    }

    /// The identifiers the back office's list finds with this query.
    async fn listed(&self, query: &str) -> Vec<String> {
        let page: Value = self
            .app
            .get(&format!("/proposal/list?{query}"), Some(&self.office))
            .await
            .json()
            .await
            .unwrap();
        page["document"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["identificador"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Moves the shared clock `days` ahead of today.
    async fn days_later(&self, days: i64) {
        let moved = self.app.post_json("/sandbox/clock", &json!({"daysAhead": days})).await;
        assert_eq!(moved.status(), StatusCode::OK);
    }

    /// `sales-api acceptance sweep`: one pass now.
    async fn sweep(&self) -> domain::acceptance::SweepReport {
        api_actix::cli::sweep_acceptance(&TestApp::config(&self.app.db, &[]))
            .await
            .unwrap()
    }
}

fn instant(value: &Value) -> DateTime<Utc> {
    assert_timestamp(value);
    value.as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_clock_starts_in_analysis_and_silence_accepts_the_proposal_at_its_deadline() {
    let s = sale().await;
    let identifier = s.in_analysis("52998224725", 101).await;
    let data = s.data(&identifier).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE");
    let acceptance = &data["acceptance"];
    let received = instant(&acceptance["receivedAt"]);
    assert_eq!(
        instant(&acceptance["deadline"]) - received,
        chrono::Duration::days(15),
        "the demo product's default: 15 days"
    );
    assert!((Utc::now() - received).num_seconds().abs() < 60);
    assert_eq!(acceptance["tacit"], true);
    assert_eq!(acceptance["suspendedSince"], Value::Null);
    assert_eq!(acceptance["overdue"], false);
    assert_eq!(acceptance["pending"], json!([]));

    // On day 14 nothing is due; on day 15 the sweep accepts it by silence.
    s.days_later(14).await;
    assert_eq!(s.sweep().await, Default::default());
    assert_eq!(s.data(&identifier).await["proposal"]["status"], "EM ANÁLISE");
    s.days_later(15).await;
    let report = s.sweep().await;
    assert_eq!(report.accepted, std::slice::from_ref(&identifier));
    assert!(report.overdue.is_empty());
    let data = s.data(&identifier).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    assert_eq!(data["proposal"]["modifiedBy"], "sistema:aceite");
    assert_eq!(data["acceptance"]["overdue"], false);

    // The history and the event say why; a second pass finds nothing more to do.
    let history: Value = s
        .app
        .get(&format!("/proposal/{identifier}/history"), Some(&s.office))
        .await
        .json()
        .await
        .unwrap();
    let last = history["data"]["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["changes"]["motivo"]["to"], "ACEITE_TACITO", "{last}");
    assert_eq!(last["by"], "sistema:aceite");
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM proposal_events e JOIN proposals p ON p.id = e.proposal_id
                 WHERE p.identificador = '{identifier}' AND e.to_status = 'APROVADO' AND e.reason = 'ACEITE_TACITO'
                   AND e.changed_by = 'sistema:aceite'"
            ))
            .await,
        1
    );
    assert_eq!(s.sweep().await, Default::default());
}

#[tokio::test(flavor = "multi_thread")]
async fn without_tacit_acceptance_the_deadline_leaves_the_proposal_overdue_for_a_person() {
    let s = sale().await;
    // The demo's product decided by a person: 10 days, no tacit acceptance.
    let identifier = s
        .in_analysis("52998224725", i64::from(seed::DEMO_DECIDED_PRODUCT))
        .await;
    let acceptance = s.data(&identifier).await["acceptance"].clone();
    assert_eq!(acceptance["tacit"], false);
    assert_eq!(
        instant(&acceptance["deadline"]) - instant(&acceptance["receivedAt"]),
        chrono::Duration::days(10)
    );
    s.days_later(10).await;
    let report = s.sweep().await;
    assert!(report.accepted.is_empty());
    assert_eq!(report.overdue, std::slice::from_ref(&identifier));
    let data = s.data(&identifier).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE", "silence does not decide");
    assert_eq!(data["acceptance"]["overdue"], true);
    // Found once: the next pass does not report it again.
    assert_eq!(s.sweep().await, Default::default());
    // The analysts' list of the overdue: it alone, and it is out of the others.
    assert_eq!(s.listed("overdue=true").await, std::slice::from_ref(&identifier));
    assert!(s.listed("overdue=false").await.is_empty());
    let refused = s.app.get("/proposal/list?overdue=sim", Some(&s.office)).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(refused.json::<Value>().await.unwrap()["errors"][0]["field"], "overdue");

    // The analyst decides late: the clock closes and the proposal is no longer overdue.
    let decided = s
        .app
        .client
        .patch(s.app.url(&format!("/proposal/{identifier}/status")))
        .bearer_auth(&s.office)
        .json(&json!({"status": "APROVADO", "reason": "Vistoria concluída"}))
        .send()
        .await
        .unwrap();
    assert_eq!(decided.status(), StatusCode::OK, "{}", decided.text().await.unwrap());
    let data = s.data(&identifier).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    assert_eq!(data["acceptance"]["overdue"], false);
    assert!(s.listed("overdue=true").await.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_development_clock_is_one_for_every_instance() {
    let s = sale().await;
    let other = s.app.another_instance(&[]).await;
    s.days_later(9).await;
    let seen: Value = other
        .client
        .get(other.url("/sandbox/clock"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["data"]["daysAhead"], 9);
    let now = instant(&seen["data"]["now"]);
    assert!((now - Utc::now() - chrono::Duration::days(9)).num_seconds().abs() < 60);
    s.days_later(0).await;
}
