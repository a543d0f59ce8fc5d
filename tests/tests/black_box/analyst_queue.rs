//! The analyst's queue in the console (issue 45), in headless Chromium: the proposals in analysis
//! with the overdue first in red, assignment to a back-office user, a request for documents, the
//! seller's answer with its file, and the decision (a refusal, whose refund the page then shows).
//! With `CONSOLE_SCREENSHOTS=<folder>` the pages are photographed there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::console::{
    OFFICE_EMAIL, PARTNER, click, decide, in_analysis, in_analysis_with, named, photograph, sign_in, type_into,
    wait_for_text,
};
use adapters_postgres::{PoolSettings, build_pool, seed};
use base64::Engine;
use black_box_tests::browser::start_browser;
use black_box_tests::{StatusCode, TestApp};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};

const ANALYST: &str = "ana@demo.com.br";

/// The queue's rows as shown: each row's proposal, in order.
async fn queue_order(browser: &Client) -> Vec<String> {
    let mut order = Vec::new();
    for row in browser.find_all(Locator::Css("#queue-list tbody tr")).await.unwrap() {
        order.push(row.attr("data-identifier").await.unwrap().unwrap_or_default());
    }
    order
}

/// Brings the element with this id into the window (for its photograph).
async fn scroll_to(browser: &Client, id: &str) {
    browser
        .execute(
            "document.getElementById(arguments[0]).scrollIntoView({block: 'center'})",
            vec![json!(id)],
        )
        .await
        .unwrap();
}

async fn open_from_queue(browser: &Client, identifier: &str) {
    click(browser, "nav-queue").await;
    wait_for_text(browser, "#queue-list", |t| !t.is_empty()).await;
    // The queue is drawn again when its reading arrives: the click waits for the page to be
    // quiet and finds the row again if the list was drawn since.
    black_box_tests::browser::click(
        browser,
        Locator::Css(&format!("#queue-list button.open[data-identifier='{identifier}']")),
    )
    .await;
    wait_for_text(browser, "#acceptance", |t| !t.is_empty()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_analyst_takes_an_overdue_proposal_asks_for_documents_reads_the_answer_and_decides() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let pool = build_pool(&PoolSettings::new(&app.db.url)).unwrap();
    seed::seed_demo_decided_product(&pool).await.unwrap();
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    app.token_for(ANALYST, "BACKOFFICE", "").await;

    // One proposal accepted by silence in 15 days, one that needs a person within 10.
    let tacit = in_analysis(&app, &partner, &office, "12345678909", "Carlos Eduardo Souza").await;
    let mut decided = named("52998224725", "Beatriz Ramos Teixeira");
    decided["productCode"] = json!(seed::DEMO_DECIDED_PRODUCT);
    decided["billingCode"] = json!(seed::DEMO_DECIDED_BILLING_GROUP);
    let overdue = in_analysis_with(&app, &partner, &office, decided).await;
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": 10})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    let report = api_actix::cli::sweep_acceptance(&TestApp::config(&app.db, &[]))
        .await
        .unwrap();
    assert_eq!(report.overdue, std::slice::from_ref(&overdue));

    let (_driver, browser) = start_browser().await;
    sign_in(&browser, &app).await;
    wait_for_text(&browser, "#proposal-list", |t| !t.is_empty()).await;
    click(&browser, "nav-queue").await;
    let queue = wait_for_text(&browser, "#queue-list tbody", |t| t.contains("Carlos Eduardo Souza")).await;
    assert!(
        queue.contains("Beatriz Ramos Teixeira") && queue.contains("vencida"),
        "{queue}"
    );
    // The overdue first, in red, although its deadline is not the nearest by much.
    assert_eq!(queue_order(&browser).await, [overdue.clone(), tacit.clone()]);
    let first = browser.find(Locator::Css("#queue-list tbody tr")).await.unwrap();
    assert_eq!(first.attr("class").await.unwrap().as_deref(), Some("q-bad"));
    photograph(&browser, "fila-de-analise").await;

    // Assigned to another analyst from the queue: "sem analista" then lists only the other one.
    black_box_tests::browser::click(
        &browser,
        Locator::Css(&format!("select[data-identifier='{tacit}'] option[value='{ANALYST}']")),
    )
    .await;
    wait_for_text(&browser, "#queue-list", |_| true).await;
    let started = std::time::Instant::now();
    while app
        .count(&format!(
            "SELECT count(*) AS n FROM proposal_acceptances a JOIN proposals p ON p.id = a.id_proposta
             WHERE p.identificador = '{tacit}' AND a.analista = '{ANALYST}' AND a.atribuida_por = '{OFFICE_EMAIL}'"
        ))
        .await
        == 0
    {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "never assigned");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    black_box_tests::browser::click(&browser, Locator::Css("#queue-assigned option[value='sem_analista']")).await;
    click(&browser, "queue-apply").await;
    wait_for_text(&browser, "#queue-list tbody", |t| !t.contains("Carlos Eduardo Souza")).await;
    assert_eq!(queue_order(&browser).await, std::slice::from_ref(&overdue));

    // The analyst takes the overdue one and asks for documents: the clock stops.
    open_from_queue(&browser, &overdue).await;
    let deadline = wait_for_text(&browser, "#acceptance-deadline", |t| !t.is_empty()).await;
    assert!(deadline.starts_with("vencido"), "{deadline}");
    click(&browser, "assign-me").await;
    wait_for_text(&browser, "#analyst", |t| t == OFFICE_EMAIL).await;
    type_into(
        &browser,
        "documents-items",
        "Comprovante de residência\nDeclaração de saúde assinada",
    )
    .await;
    type_into(&browser, "documents-note", "Frente e verso, legíveis").await;
    click(&browser, "documents-apply").await;
    let requests = wait_for_text(&browser, "#pending-requests", |t| t.contains("aguardando o vendedor")).await;
    assert!(requests.contains("Declaração de saúde assinada") && requests.contains("Frente e verso"));
    assert!(
        wait_for_text(&browser, "#acceptance-suspended", |t| !t.is_empty())
            .await
            .contains("aguardando documentos")
    );
    // One request at a time: the form is gone while it is open.
    assert!(browser.find(Locator::Id("documents")).await.is_err());
    scroll_to(&browser, "pending-requests").await;
    photograph(&browser, "fila-pedido-de-documentos").await;

    // The seller answers with a PDF.
    let data = app.proposal_data(&overdue, &office).await;
    let request_id = data["acceptance"]["pending"][0]["id"].clone();
    let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n".to_vec();
    let answered = app
        .post_json_as(
            &format!("/proposal/{overdue}/pending/{request_id}/answer"),
            &partner,
            &json!({"note": "Seguem os documentos pedidos", "files": [
                {"name": "comprovante.pdf", "content": base64::engine::general_purpose::STANDARD.encode(&pdf)}
            ]}),
        )
        .await;
    assert_eq!(answered.status(), StatusCode::OK, "{}", answered.text().await.unwrap());

    // The analyst sees the answer and its file.
    open_from_queue(&browser, &overdue).await;
    let requests = wait_for_text(&browser, "#pending-requests", |t| t.contains("Resposta")).await;
    assert!(
        requests.contains("Seguem os documentos pedidos") && requests.contains("comprovante.pdf"),
        "{requests}"
    );
    let link = browser
        .find(Locator::Css("#pending-requests a[data-file]"))
        .await
        .unwrap();
    let href = link.attr("href").await.unwrap().unwrap();
    scroll_to(&browser, "pending-requests").await;
    photograph(&browser, "fila-resposta").await;
    // The link serves the file as sent, to the back office only.
    let file = app.get(&href, Some(&office)).await;
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(file.headers()["content-type"], "application/pdf");
    assert!(
        file.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("comprovante.pdf")
    );
    assert_eq!(file.bytes().await.unwrap().as_ref(), pdf.as_slice());
    assert_eq!(app.get(&href, Some(&partner)).await.status(), StatusCode::FORBIDDEN);

    // The decision: refused with its reason; a partner's sale is billed from its acceptance, so
    // nothing was received and nothing goes back (decision 242), which the page says.
    decide(
        &browser,
        "REPROVADO",
        "Declaração de saúde incompatível com a cobertura",
    )
    .await;
    wait_for_text(&browser, "#proposal-status", |t| t == "REPROVADO").await;
    wait_for_text(&browser, "#refunds", |t| t.contains("Nada a devolver")).await;
    assert_eq!(app.count("SELECT count(*) AS n FROM refunds").await, 0);
    let timeline = wait_for_text(&browser, "#timeline", |t| {
        t.contains("Declaração de saúde incompatível")
    })
    .await;
    for label in [
        "Análise atribuída",
        "Documentos pedidos ao vendedor",
        "Documentos enviados pelo vendedor",
    ] {
        assert!(timeline.contains(label), "{label} missing: {timeline}");
    }
    scroll_to(&browser, "refunds").await;
    photograph(&browser, "fila-decisao").await;
    assert_eq!(
        app.proposal_data(&overdue, &office).await["proposal"]["status"],
        "REPROVADO"
    );

    // Decided, it leaves the queue.
    click(&browser, "nav-queue").await;
    wait_for_text(&browser, "#queue-list tbody", |t| !t.contains("Beatriz")).await;
    assert_eq!(queue_order(&browser).await, std::slice::from_ref(&tacit));
    browser.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_queue_refuses_bad_filters_and_assignment_to_anyone_but_an_active_back_office_user() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let identifier = in_analysis(&app, &partner, &office, "12345678909", "Carlos Eduardo Souza").await;

    let bad = app
        .get("/console/queue?assigned=outras&limit=0&cursor=x", Some(&office))
        .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let fields: Vec<String> = bad.json::<Value>().await.unwrap()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fields, ["assigned", "cursor", "limit"]);
    assert_eq!(
        app.get("/console/queue", Some(&partner)).await.status(),
        StatusCode::FORBIDDEN
    );

    let assign = |analyst: &'static str| {
        app.client
            .post(app.url(&format!("/console/proposals/{identifier}/assign")))
            .bearer_auth(&office)
            .form(&[("analyst", analyst)])
            .send()
    };
    // A partner's representative is not an analyst; nor is someone unknown.
    for who in ["rep@demo.com.br", "ninguem@demo.com.br"] {
        let refused = assign(who).await.unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["errors"][0]["field"], "analyst", "{body}");
    }
    assert_eq!(assign(OFFICE_EMAIL).await.unwrap().status(), StatusCode::OK);
    let page = app.get("/console/queue?assigned=minhas", Some(&office)).await;
    assert!(page.text().await.unwrap().contains("Carlos Eduardo Souza"));
    // Back to no one: the history says who took it from whom.
    assert_eq!(assign("").await.unwrap().status(), StatusCode::OK);
    let history: Value = app
        .get(&format!("/proposal/{identifier}/history"), Some(&office))
        .await
        .json()
        .await
        .unwrap();
    let assignments: Vec<Value> = history["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "atribuicao")
        .map(|e| e["changes"]["analista"].clone())
        .collect();
    assert_eq!(
        assignments,
        [
            json!({"from": null, "to": OFFICE_EMAIL}),
            json!({"from": OFFICE_EMAIL, "to": null})
        ]
    );

    // Decided, it can no longer be assigned: the proposal is out of analysis.
    let approved = app
        .change_status(&office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    let late = assign(OFFICE_EMAIL).await.unwrap();
    assert_eq!(late.status(), StatusCode::CONFLICT);
    assert_eq!(late.json::<Value>().await.unwrap()["code"], "proposta_fora_de_analise");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_queue_pages_by_deadline_with_its_cursor() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for(OFFICE_EMAIL, "BACKOFFICE", "").await;
    let mut made = Vec::new();
    for (cpf, name) in [
        ("12345678909", "Carlos Eduardo Souza"),
        ("52998224725", "Beatriz Ramos Teixeira"),
        ("11144477735", "Ana Beatriz Lima"),
    ] {
        made.push(in_analysis(&app, &partner, &office, cpf, name).await);
    }
    // Page by page, one each, in the order of their deadlines (the order they entered analysis).
    let mut seen = Vec::new();
    let mut query = "/console/queue?limit=1".to_owned();
    loop {
        let page = app.get(&query, Some(&office)).await;
        assert_eq!(page.status(), StatusCode::OK);
        let html = page.text().await.unwrap();
        let rows: Vec<&str> = html
            .split("<tr class=\"q-")
            .skip(1)
            .filter_map(|row| row.split("data-identifier=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(rows.len(), 1, "{html}");
        seen.push(rows[0].to_owned());
        match html
            .split("\"cursor\": \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
        {
            Some(cursor) => query = format!("/console/queue?limit=1&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(seen, made);
}
