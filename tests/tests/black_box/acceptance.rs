//! The acceptance clock (issue 45): a proposal's time to be accepted or refused starts when it
//! enters `EM ANÁLISE`, with its product's policy (Circular SUSEP 642/2021). At the deadline a
//! product that accepts by silence makes it `APROVADO` (`ACEITE_TACITO`); any other leaves it
//! overdue for the analysts. The days are lived through with the sandbox's clock, which every
//! instance, the worker and the command line read from the database.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::{PoolSettings, build_pool, seed};
use base64::Engine;
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
    sale_with(&[]).await
}

async fn sale_with(settings: &[(&str, &str)]) -> Sale {
    let app = TestApp::spawn_with(settings).await;
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

    /// The back office's decision (`PATCH /proposal/{identificador}/status`).
    async fn decide(&self, identifier: &str, status: &str, reason: &str) -> reqwest::Response {
        self.app
            .client
            .patch(self.app.url(&format!("/proposal/{identifier}/status")))
            .bearer_auth(&self.office)
            .json(&json!({"status": status, "reason": reason}))
            .send()
            .await
            .unwrap()
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

/// Lei 15.040/2024, art. 49 (decision 278): the insurer's silence accepts the proposal at 25 days
/// at most, whatever the product; a product decided by a person gives its analysts a shorter
/// target, past which the proposal is overdue for them, and silence still accepts it at the law's
/// deadline. (Before the law's bounds this product was not accepted by silence: its proposals
/// stayed in analysis, overdue, for as long as nobody decided.)
#[tokio::test(flavor = "multi_thread")]
async fn past_the_analysts_target_the_proposal_is_overdue_for_a_person_and_silence_accepts_it_at_the_laws_deadline() {
    let s = sale().await;
    // The demo's product decided by a person: its analysts' target is 10 days, the law's 25.
    let decided = s
        .in_analysis("52998224725", i64::from(seed::DEMO_DECIDED_PRODUCT))
        .await;
    let silent = s
        .in_analysis("12345678909", i64::from(seed::DEMO_DECIDED_PRODUCT))
        .await;
    let acceptance = s.data(&decided).await["acceptance"].clone();
    assert_eq!(acceptance["tacit"], true, "silence always accepts");
    let received = instant(&acceptance["receivedAt"]);
    assert_eq!(instant(&acceptance["deadline"]) - received, chrono::Duration::days(25));
    assert_eq!(instant(&acceptance["reviewBy"]) - received, chrono::Duration::days(10));
    s.days_later(10).await;
    let report = s.sweep().await;
    assert!(report.accepted.is_empty());
    let mut both = vec![decided.clone(), silent.clone()];
    both.sort();
    let mut overdue = report.overdue.clone();
    overdue.sort();
    assert_eq!(overdue, both);
    let data = s.data(&decided).await;
    assert_eq!(data["proposal"]["status"], "EM ANÁLISE", "the target does not decide");
    assert_eq!(data["acceptance"]["overdue"], true);
    // Found once: the next pass does not report them again.
    assert_eq!(s.sweep().await, Default::default());
    // The analysts' list of the overdue: they alone, and they are out of the others.
    let mut listed = s.listed("overdue=true").await;
    listed.sort();
    assert_eq!(listed, both);
    assert!(s.listed("overdue=false").await.is_empty());
    let refused = s.app.get("/proposal/list?overdue=sim", Some(&s.office)).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(refused.json::<Value>().await.unwrap()["errors"][0]["field"], "overdue");

    // The analyst decides one late: its clock closes and it is no longer overdue.
    let answered = s.decide(&decided, "APROVADO", "Vistoria concluída").await;
    assert_eq!(answered.status(), StatusCode::OK, "{}", answered.text().await.unwrap());
    let data = s.data(&decided).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    assert_eq!(data["acceptance"]["overdue"], false);
    assert_eq!(s.listed("overdue=true").await, std::slice::from_ref(&silent));

    // Nobody decides the other: silence accepts it at the law's deadline, not a day before.
    s.days_later(24).await;
    assert_eq!(s.sweep().await, Default::default());
    s.days_later(25).await;
    let report = s.sweep().await;
    assert_eq!(report.accepted, std::slice::from_ref(&silent));
    let data = s.data(&silent).await;
    assert_eq!(data["proposal"]["status"], "APROVADO");
    assert_eq!(data["acceptance"]["overdue"], false);
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM proposal_events e JOIN proposals p ON p.id = e.proposal_id
                 WHERE p.identificador = '{silent}' AND e.to_status = 'APROVADO' AND e.reason = 'ACEITE_TACITO'"
            ))
            .await,
        1
    );
    assert!(s.listed("overdue=true").await.is_empty());
    s.days_later(0).await;
}

/// `sales-api catalog acceptance` (issue 68): a policy out of Lei 15.040/2024, art. 49 is refused
/// naming each option and the rule; one within it is kept, with the analysts' target.
#[tokio::test(flavor = "multi_thread")]
async fn a_products_acceptance_policy_out_of_the_law_is_refused_naming_the_rule() {
    use api_actix::cli::{AcceptanceArgs, set_product_acceptance};
    let s = sale().await;
    let config = TestApp::config(&s.app.db, &[]);
    let refused = set_product_acceptance(
        &config,
        102,
        AcceptanceArgs {
            days: Some(90),
            tacit: Some("no".into()),
            suspensions: Some(10),
            review_days: None,
        },
    )
    .await
    .unwrap_err()
    .to_string();
    for said in [
        "days deve estar entre 1 e 25",
        "tacit deve ser yes",
        "suspensions deve ser 0 ou 1",
        "Lei 15.040/2024, art. 49",
    ] {
        assert!(refused.contains(said), "{said} missing from: {refused}");
    }
    let late_target = set_product_acceptance(
        &config,
        102,
        AcceptanceArgs {
            days: Some(12),
            review_days: Some(12),
            ..AcceptanceArgs::default()
        },
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(late_target.contains("review-days"), "{late_target}");
    let unknown = set_product_acceptance(&config, 999, AcceptanceArgs::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("produto 999 não encontrado"), "{unknown}");
    let kept_before = s
        .app
        .text("SELECT aceite_dias || '/' || aceite_suspensoes AS line FROM products WHERE codigo_produto = 102")
        .await;
    let policy = set_product_acceptance(
        &config,
        102,
        AcceptanceArgs {
            days: Some(20),
            review_days: Some(7),
            ..AcceptanceArgs::default()
        },
    )
    .await
    .unwrap();
    assert_eq!((policy.days, policy.review_days, policy.tacit), (20, Some(7), true));
    let kept = s
        .app
        .text(
            "SELECT aceite_dias || '/' || aceite_tacito || '/' || aceite_suspensoes || '/' || aceite_revisao_dias \
             AS line FROM products WHERE codigo_produto = 102",
        )
        .await;
    assert_eq!(
        kept,
        format!("20/true/{}/7", kept_before.split('/').nth(1).unwrap()),
        "what was refused changed nothing; what was not given is kept"
    );
    // The database holds the law too, for what does not come through the command.
    let outside = s
        .app
        .count(
            "SELECT count(*) AS n FROM products WHERE NOT aceite_tacito OR aceite_dias > 25 OR aceite_suspensoes > 1",
        )
        .await;
    assert_eq!(outside, 0);
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

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Sale {
    async fn open_pending(&self, token: &str, identifier: &str, body: Value) -> reqwest::Response {
        self.app
            .post_json_as(&format!("/proposal/{identifier}/pending"), token, &body)
            .await
    }

    async fn answer(&self, token: &str, identifier: &str, id: &Value, body: Value) -> reqwest::Response {
        self.app
            .post_json_as(&format!("/proposal/{identifier}/pending/{id}/answer"), token, &body)
            .await
    }

    async fn error_code(response: reqwest::Response) -> (StatusCode, String) {
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        (status, body["code"].as_str().unwrap_or_default().to_owned())
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_for_documents_suspends_the_clock_and_the_sellers_answer_resumes_it_moved() {
    let s = sale_with(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    let _receiver = s
        .app
        .subscribed_receiver(&s.partner, &["PENDENCIA_ABERTA", "PENDENCIA_RESPONDIDA"])
        .await;
    // The demo's product decided by a person: 25 days, one request for documents (art. 49).
    let identifier = s
        .in_analysis("52998224725", i64::from(seed::DEMO_DECIDED_PRODUCT))
        .await;
    let before = s.data(&identifier).await["acceptance"].clone();
    let request = json!({"items": ["Comprovante de residência", "RG (frente e verso)"], "note": "Legíveis, por favor"});

    // Only the back office asks.
    assert_eq!(
        Sale::error_code(s.open_pending(&s.partner, &identifier, request.clone()).await).await,
        (StatusCode::FORBIDDEN, "sem_permissao".to_owned())
    );
    let bad = s.open_pending(&s.office, &identifier, json!({"items": []})).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert_eq!(bad.json::<Value>().await.unwrap()["errors"][0]["field"], "items");
    let opened = s.open_pending(&s.office, &identifier, request.clone()).await;
    assert_eq!(opened.status(), StatusCode::CREATED);
    let opened: Value = opened.json().await.unwrap();
    let id = opened["data"]["id"].clone();
    let acceptance = s.data(&identifier).await["acceptance"].clone();
    assert_eq!(acceptance["suspendedSince"], opened["data"]["suspendedSince"]);
    assert_eq!(acceptance["pending"][0]["items"], request["items"]);
    assert_eq!(acceptance["pending"][0]["note"], "Legíveis, por favor");
    assert_eq!(acceptance["pending"][0]["requestedBy"], "bo@demo.com.br");
    assert_eq!(acceptance["pending"][0]["answer"], Value::Null);
    // One request at a time.
    assert_eq!(
        Sale::error_code(s.open_pending(&s.office, &identifier, request.clone()).await).await,
        (StatusCode::CONFLICT, "pendencia_em_aberto".to_owned())
    );

    // Three days go by: a suspended clock is never due.
    s.days_later(3).await;
    assert_eq!(s.sweep().await, Default::default());
    let refused = s
        .answer(
            &s.partner,
            &identifier,
            &id,
            json!({"note": "Segue", "files": [{"name": "rg.pdf", "content": b64(b"MZ\x90\x00 not a pdf")}]}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["errors"][0]["field"],
        "files[0].content"
    );
    assert_eq!(
        Sale::error_code(s.answer(&s.office, &identifier, &id, json!({"note": "Segue"})).await).await,
        (StatusCode::FORBIDDEN, "sem_permissao".to_owned()),
        "the back office does not answer for the seller"
    );
    let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n".to_vec();
    let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
    let answered = s
        .answer(
            &s.partner,
            &identifier,
            &id,
            json!({"note": "Seguem os documentos", "files": [
                {"name": "comprovante.pdf", "content": b64(&pdf)},
                {"name": "rg.png", "content": b64(&png)},
            ]}),
        )
        .await;
    assert_eq!(answered.status(), StatusCode::OK, "{}", answered.text().await.unwrap());
    let acceptance = s.data(&identifier).await["acceptance"].clone();
    assert_eq!(acceptance["suspendedSince"], Value::Null);
    let moved = instant(&acceptance["deadline"]) - instant(&before["deadline"]);
    assert!(
        (moved - chrono::Duration::days(3)).num_seconds().abs() < 60,
        "moved by the three days it stood: {moved}"
    );
    let answer = &acceptance["pending"][0]["answer"];
    assert_eq!(answer["note"], "Seguem os documentos");
    assert_eq!(answer["answeredBy"], "rep@demo.com.br");
    assert_eq!(answer["files"][0]["name"], "comprovante.pdf");
    assert_eq!(answer["files"][0]["contentType"], "application/pdf");
    assert_eq!(answer["files"][0]["size"], pdf.len());
    assert_eq!(answer["files"][1]["contentType"], "image/png");
    // Stored whole, under the hash route 7 lists.
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM proposal_pending_files
                 WHERE conteudo = decode('{}', 'base64') AND encode(sha256(conteudo), 'hex') = '{}'",
                b64(&pdf),
                answer["files"][0]["sha256"].as_str().unwrap()
            ))
            .await,
        1,
        "the file is stored whole"
    );
    assert_eq!(
        Sale::error_code(s.answer(&s.partner, &identifier, &id, json!({"note": "De novo"})).await).await,
        (StatusCode::CONFLICT, "pendencia_respondida".to_owned())
    );

    // Documents are asked once (Lei 15.040/2024, art. 49): a second request is refused.
    assert_eq!(
        Sale::error_code(s.open_pending(&s.office, &identifier, request).await).await,
        (StatusCode::CONFLICT, "suspensoes_esgotadas".to_owned())
    );

    // The seller was told: the request and its answer, numbered.
    assert_eq!(
        s.app
            .count(
                "SELECT count(*) AS n FROM hook_deliveries
                 WHERE event_type IN ('PENDENCIA_ABERTA', 'PENDENCIA_RESPONDIDA')
                   AND (body::jsonb -> 'data' ->> 'sequence')::int = 1"
            )
            .await,
        2
    );
    s.days_later(0).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_needs_a_proposal_in_analysis_and_an_answer_its_own_seller() {
    let s = sale().await;
    let other = s.app.token_for("rep@outro.com.br", "PARCEIRO", "11444777000161").await;
    let new = s.app.create_proposal(&s.partner, "52998224725").await;
    assert_eq!(
        Sale::error_code(s.open_pending(&s.office, &new, json!({"items": ["RG"]})).await).await,
        (StatusCode::CONFLICT, "proposta_fora_de_analise".to_owned())
    );
    assert_eq!(
        Sale::error_code(s.open_pending(&s.office, "nao-existe", json!({"items": ["RG"]})).await).await,
        (StatusCode::NOT_FOUND, "proposta_nao_encontrada".to_owned())
    );
    let identifier = s.in_analysis("39053344705", 101).await;
    let opened: Value = s
        .open_pending(&s.office, &identifier, json!({"items": ["RG"]}))
        .await
        .json()
        .await
        .unwrap();
    let id = opened["data"]["id"].clone();
    assert_eq!(
        Sale::error_code(s.answer(&other, &identifier, &id, json!({"note": "Segue"})).await).await,
        (StatusCode::NOT_FOUND, "proposta_nao_encontrada".to_owned()),
        "another partner's seller does not see it"
    );
    assert_eq!(
        Sale::error_code(
            s.answer(&s.partner, &identifier, &json!(999_999), json!({"note": "Segue"}))
                .await
        )
        .await,
        (StatusCode::NOT_FOUND, "pendencia_nao_encontrada".to_owned())
    );
    let not_a_number = s
        .app
        .post_json_as(
            &format!("/proposal/{identifier}/pending/um/answer"),
            &s.partner,
            &json!({"note": "Segue"}),
        )
        .await;
    assert_eq!(not_a_number.status(), StatusCode::BAD_REQUEST);
    // A file of 5 MiB and one byte is refused, naming it; nothing is recorded.
    let big = vec![b'%'; 5 * 1024 * 1024 + 1];
    let refused = s
        .answer(
            &s.partner,
            &identifier,
            &id,
            json!({"note": "Segue", "files": [{"name": "grande.pdf", "content": b64(&big)}]}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["errors"][0]["field"],
        "files[0].content"
    );
    assert_eq!(
        s.data(&identifier).await["acceptance"]["pending"][0]["answer"],
        Value::Null
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answers_files_go_with_the_person_anonymised() {
    let s = sale().await;
    let identifier = s.in_analysis("52998224725", 101).await;
    let opened: Value = s
        .open_pending(&s.office, &identifier, json!({"items": ["RG"]}))
        .await
        .json()
        .await
        .unwrap();
    let id = opened["data"]["id"].clone();
    let answered = s
        .answer(
            &s.partner,
            &identifier,
            &id,
            json!({"note": "RG de Maria da Silva", "files": [{"name": "rg-maria.pdf", "content": b64(b"%PDF-1.4 rg")}]}),
        )
        .await;
    assert_eq!(answered.status(), StatusCode::OK);
    let decided = s.decide(&identifier, "APROVADO", "Documentos conferidos").await;
    assert_eq!(decided.status(), StatusCode::OK);
    s.app.outlive_the_contract(&s.partner, &identifier).await;
    let anonymized = s
        .app
        .client
        .post(s.app.url("/privacy/customers/529.982.247-25/anonymize"))
        .bearer_auth(&s.office)
        .send()
        .await
        .unwrap();
    assert_eq!(
        anonymized.status(),
        StatusCode::OK,
        "{}",
        anonymized.text().await.unwrap()
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposal_pending_files").await, 0);
    let answer = s.data(&identifier).await["acceptance"]["pending"][0]["answer"].clone();
    assert_eq!(answer["files"], json!([]));
    assert_eq!(answer["note"], "[removido na anonimização]");
}
