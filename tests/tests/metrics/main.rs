//! What an operator sees at the metrics listener, scraped and parsed as Prometheus would.
//!
//! Its own test binary: the `metrics` facade takes one recorder per process, so every service
//! started in one process records into it, and a count asserted here would take in the requests
//! of the black-box tests running beside it (route 7 is everyone's). Here only these run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, cpf_from};
use prom_text_format_parser::{Metric, Scrape, Type, ValueType};

/// One scrape at a time in this process: its services share one recorder, and a scrape sets the
/// sampled gauges from its own database before it renders them, so two at once could each render
/// the other's figures.
static ONE_SCRAPE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn scrape(app: &TestApp) -> Scrape {
    let _alone = ONE_SCRAPE_AT_A_TIME.lock().await;
    let address = app.metrics_address.as_ref().expect("metrics listener on");
    let response = reqwest::get(format!("{address}/metrics")).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let text = response.text().await.unwrap();
    Scrape::parse(&text).unwrap()
}

/// A label's value in a sample.
fn label<'a>(labels: &'a prom_text_format_parser::Labels, key: &str) -> Option<&'a str> {
    labels.iter().find(|l| l.key == key).map(|l| l.value.as_str())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_listener_shows_routes_by_pattern_pools_webhooks_and_the_process() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let cpf = cpf_from(424_242);
    let identifier = app.create_proposal(&partner, &cpf).await;
    for _ in 0..3 {
        let found = app
            .get(&format!("/proposal/byIdentifier/{identifier}"), Some(&partner))
            .await;
        assert_eq!(found.status(), StatusCode::OK);
    }
    let missing = app.get("/proposal/byIdentifier/nao-existe-123", Some(&partner)).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        app.get(&format!("/customer/validCustomer/{cpf}"), Some(&partner))
            .await
            .status(),
        StatusCode::OK
    );

    let scraped = scrape(&app).await;
    let family = |name: &str| -> &Metric {
        scraped
            .metrics
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no {name} family"))
    };
    let requests = family("http_server_request_duration_seconds");
    assert_eq!(requests.kind, Type::Histogram);
    let route_7 = "/proposal/byIdentifier/{identificador}";
    let of_route_7 = |status: &'static str| {
        requests.samples.iter().filter(move |s| {
            label(&s.labels, "route") == Some(route_7)
                && label(&s.labels, "method") == Some("GET")
                && label(&s.labels, "status") == Some(status)
        })
    };
    let count = of_route_7("2xx")
        .find(|s| s.value.value_type == ValueType::Count)
        .expect("route 7's 2xx count");
    assert_eq!(count.value.value.as_f64(), 3.0, "route 7 answered 200 three times");
    let infinite = of_route_7("2xx")
        .find(|s| s.value.value_type == ValueType::Sample && label(&s.labels, "le") == Some("+Inf"))
        .expect("route 7's +Inf bucket");
    assert_eq!(infinite.value.value.as_f64(), 3.0);
    assert!(
        of_route_7("2xx")
            .filter(|s| s.value.value_type == ValueType::Sample)
            .count()
            > 5,
        "latency buckets"
    );
    assert!(of_route_7("4xx").count() > 0, "the 404 by its class");

    let has = |name: &str, key: &str, value: &str| {
        family(name)
            .samples
            .iter()
            .any(|s| label(&s.labels, key) == Some(value))
    };
    assert!(has("db_pool_connections", "pool", "api"), "the API pool's connections");
    assert!(
        has("db_pool_connections", "pool", "webhooks"),
        "the delivery engine's pool"
    );
    assert!(has("db_pool_connections", "state", "in_use"));
    assert!(has("db_pool_max_connections", "pool", "api"));
    assert!(has("db_pool_waiting", "pool", "api"));
    assert_eq!(family("db_pool_acquire_duration_seconds").kind, Type::Histogram);
    for gauge in ["webhook_deliveries_due", "webhook_oldest_due_age_seconds"] {
        assert_eq!(family(gauge).kind, Type::Gauge, "{gauge}");
        assert_eq!(
            family(gauge).samples[0].value.value.as_f64(),
            0.0,
            "{gauge}: nothing due"
        );
    }
    assert!(family("process_resident_memory_bytes").samples[0].value.value.as_f64() > 0.0);
    assert!(!family("process_cpu_seconds_total").samples.is_empty());

    // Never a raw identifier: no label holds the proposal's identifier, the CPF or a raw path.
    for metric in &scraped.metrics {
        for sample in &metric.samples {
            for l in sample.labels.iter() {
                assert!(
                    !l.value.contains(&identifier) && !l.value.contains(&cpf) && !l.value.contains("nao-existe"),
                    "{} has {}={}",
                    metric.name,
                    l.key,
                    l.value
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_metrics_show_each_partitioned_tables_months_made_ahead_and_rows_waiting_in_default() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    // A callback record dated a year ahead: no month is made for it yet.
    app.sql("INSERT INTO signature_callbacks (event_id, received_at) VALUES ('adiante', now() + interval '1 year')")
        .await;
    let scraped = scrape(&app).await;
    let per_table = |name: &str| -> Vec<(String, f64)> {
        let family = scraped
            .metrics
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no {name} family"));
        assert_eq!(family.kind, Type::Gauge, "{name}");
        let mut values: Vec<(String, f64)> = family
            .samples
            .iter()
            .map(|s| (label(&s.labels, "table").unwrap().to_owned(), s.value.value.as_f64()))
            .collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        values
    };
    let tables = [
        "ended_sessions",
        "hook_attempts",
        "hook_deliveries",
        "payment_events",
        "proposal_history",
        "signature_callbacks",
    ];
    assert_eq!(
        per_table("db_partition_months_ahead"),
        tables.map(|t| (t.to_owned(), 3.0)),
        "the migrations made three months ahead"
    );
    assert_eq!(
        per_table("db_partition_default_rows"),
        tables.map(|t| (t.to_owned(), if t == "signature_callbacks" { 1.0 } else { 0.0 }))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_retention_schedules_work_is_counted_by_kind_wherever_it_ran() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let cpf = cpf_from(515_151);
    // A registration with health answers and its proposal, cancelled: 31 days later the schedule
    // drops both sets of answers, by the command (another process, as an operator would run it).
    let registered = app
        .post_json_as("/customer/create", &partner, &black_box_tests::customer_body(&cpf))
        .await;
    assert_eq!(registered.status(), StatusCode::CREATED);
    let identifier = app.create_proposal(&partner, &cpf).await;
    let cancelled = app
        .post_json_as(
            &format!("/proposal/{identifier}/cancel"),
            &partner,
            &serde_json::json!({"reason": "Cliente desistiu"}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let moved = app
        .post_json("/sandbox/clock", &serde_json::json!({"daysAhead": 31}))
        .await;
    assert_eq!(moved.status(), StatusCode::OK);
    let report = api_actix::cli::privacy_retention(&TestApp::config(&app.db, &[]), false)
        .await
        .unwrap();
    assert_eq!(report.health_answers_dropped(), 2);

    let scraped = scrape(&app).await;
    let family = scraped
        .metrics
        .iter()
        .find(|m| m.name == "privacy_retention_applied_total")
        .expect("the retention family");
    assert_eq!(family.kind, Type::Counter);
    let mut by_kind: Vec<(String, f64)> = family
        .samples
        .iter()
        .map(|s| (label(&s.labels, "kind").unwrap().to_owned(), s.value.value.as_f64()))
        .collect();
    by_kind.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        by_kind,
        [
            ("proposta".to_owned(), 0.0),
            ("saude".to_owned(), 2.0),
            ("titular".to_owned(), 0.0)
        ]
    );
}

/// A gauge's one value in a scrape.
fn gauge(scraped: &Scrape, name: &str) -> f64 {
    let family = scraped
        .metrics
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("{name} in the scrape"));
    assert_eq!(family.kind, Type::Gauge, "{name}");
    family.samples[0].value.value.as_f64()
}

#[tokio::test(flavor = "multi_thread")]
async fn unanswered_data_subject_requests_and_the_overdue_among_them_are_on_the_listener() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let mut protocols = Vec::new();
    for kind in ["acesso", "eliminacao", "portabilidade"] {
        let filed = app
            .post_json_as(
                "/privacy/requests",
                &office,
                &serde_json::json!({"cpf": "52998224725", "kind": kind, "channel": "email"}),
            )
            .await;
        assert_eq!(filed.status(), StatusCode::CREATED);
        let filed: serde_json::Value = filed.json().await.unwrap();
        protocols.push(filed["data"]["protocolo"].as_str().unwrap().to_owned());
    }
    // One received sixteen days ago (past its deadline), one answered.
    app.sql(&format!(
        "UPDATE privacy_requests SET recebido_em = recebido_em - interval '16 days', prazo = prazo - interval '16 days'
         WHERE protocolo = '{}'",
        protocols[0]
    ))
    .await;
    let answered = app
        .client
        .post(app.url(&format!("/console/privacy/requests/{}/answer", protocols[1])))
        .bearer_auth(&office)
        .form(&[("resposta", "Dados eliminados, exceto o contrato.")])
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), StatusCode::OK);

    let scraped = scrape(&app).await;
    assert_eq!(gauge(&scraped, "privacy_requests_open"), 2.0);
    assert_eq!(gauge(&scraped, "privacy_requests_overdue"), 1.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn refunds_to_pay_past_their_due_date_and_unpaid_are_on_the_listener() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let identifier = app.create_proposal(&partner, &cpf_from(4_242)).await;
    // Due yesterday and unpaid (overdue), due yesterday and paid, due tomorrow (neither counts).
    app.sql(&format!(
        "INSERT INTO refunds (id, proposal_id, amount_cents, nominal_cents, status, motivo, meio, created_at, vence_em,
                              referencia, pago_em, pago_por)
         SELECT v.id, p.id, 1000, 1000, v.status, 'CANCELAMENTO', 'a_pagar', now() - interval '11 days', v.due,
                v.reference, v.paid_at, v.paid_by
         FROM proposals p, (VALUES
             ('ap_vencido', 'a_pagar', (now() AT TIME ZONE 'America/Sao_Paulo')::date - 1, NULL, NULL::timestamptz, NULL),
             ('ap_pago', 'pago', (now() AT TIME ZONE 'America/Sao_Paulo')::date - 1, 'TED 1', now(), 'financeiro'),
             ('ap_no_prazo', 'a_pagar', (now() AT TIME ZONE 'America/Sao_Paulo')::date + 1, NULL, NULL, NULL)
         ) AS v (id, status, due, reference, paid_at, paid_by)
         WHERE p.identificador = '{identifier}'"
    ))
    .await;
    assert_eq!(gauge(&scrape(&app).await, "refunds_to_pay_overdue"), 1.0);
    // Moving the development clock two days on makes the one due tomorrow late too.
    let moved = app
        .post_json("/sandbox/clock", &serde_json::json!({"daysAhead": 2}))
        .await;
    assert_eq!(moved.status(), StatusCode::OK);
    assert_eq!(gauge(&scrape(&app).await, "refunds_to_pay_overdue"), 2.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn open_notices_of_running_contracts_that_no_channel_delivered_are_on_the_listener() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    let running = app.create_proposal(&partner, &cpf_from(4_343)).await;
    let ended = app.create_proposal(&partner, &cpf_from(4_444)).await;
    // Two running billings and one ended; notices frustrated (open and closed) and delivered.
    app.sql(&format!(
        "INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
             retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por, encerrada_em)
         SELECT id, 'DESCONTO EM FOLHA', 1990, now(), current_date, current_date, '{{1}}', 5, 30, 'em_atraso', now(), 'x',
                CASE WHEN identificador = '{ended}' THEN now() END
         FROM proposals WHERE identificador IN ('{running}', '{ended}')"
    ))
    .await;
    app.sql(
        "INSERT INTO billing_notices (id_proposta, tipo, criado_em, recebido_em, frustrado_em, fechado_em)
         SELECT b.id_proposta, v.tipo, now(), v.recebido, v.frustrado, v.fechado
         FROM contract_billings b, (VALUES
             ('atraso', NULL::timestamptz, now(), NULL::timestamptz),
             ('aviso_encerramento', now(), NULL, NULL),
             ('encerramento', NULL, now(), now())
         ) AS v (tipo, recebido, frustrado, fechado)",
    )
    .await;
    assert_eq!(
        gauge(&scrape(&app).await, "billing_notices_undelivered"),
        1.0,
        "the running contract's open frustrated notice only"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn running_payroll_contracts_with_a_refused_or_overdue_averbacao_are_on_the_listener() {
    let app = TestApp::spawn_with(&[("METRICS_ADDR", "127.0.0.1:0")]).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", "11222333000181").await;
    // (the averbação's status, or none; days since the acceptance; the billing ended)
    let contracts = [
        (Some("recusada"), 1, false),
        (Some("recusada"), 1, true),
        (Some("ativa"), 30, false),
        (Some("pendente"), 6, false),
        (Some("pendente"), 2, false),
        (None, 10, false),
        (Some("cancelada"), 40, true),
    ];
    for (n, (status, days, ended)) in contracts.into_iter().enumerate() {
        let identifier = app.create_proposal(&partner, &cpf_from(5_100 + n as u32)).await;
        app.sql(&format!(
            "INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
                 retentativas_dias, carencia_dias, suspensao_dias, situacao, situacao_desde, situacao_por, encerrada_em)
             SELECT id, 'DESCONTO EM FOLHA', 1990, now() - interval '{days} days', current_date, current_date, '{{1}}',
                    5, 30, 'em_dia', now(), 'x', CASE WHEN {ended} THEN now() END
             FROM proposals WHERE identificador = '{identifier}'"
        ))
        .await;
        if let Some(status) = status {
            app.sql(&format!(
                "INSERT INTO averbacoes (id_proposta, id_externo, situacao, solicitada_em, situacao_em, alterada_por)
                 SELECT id, 'AV-{n}', '{status}', now(), now(), 'x' FROM proposals WHERE identificador = '{identifier}'"
            ))
            .await;
        }
    }
    let scraped = scrape(&app).await;
    assert_eq!(gauge(&scraped, "averbacoes_refused"), 1.0, "the running contract's");
    assert_eq!(
        gauge(&scraped, "averbacoes_overdue"),
        2.0,
        "pending six days and never asked in ten; not the one pending two days"
    );
    // Four days on by the development clock, the one pending two days is six days old too.
    let moved = app
        .post_json("/sandbox/clock", &serde_json::json!({"daysAhead": 4}))
        .await;
    assert_eq!(moved.status(), StatusCode::OK);
    assert_eq!(gauge(&scrape(&app).await, "averbacoes_overdue"), 3.0);
}
