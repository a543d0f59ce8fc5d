//! Documents straight from the proponent (issue 69, decision 289; LGPD arts. 6, III and 11): a
//! request for documents that is not documentation the product leaves to its sellers is mailed to
//! the proponent with a one-time link; they read it and upload the files on `/documentos/{token}`;
//! the seller reads only that documents were asked and answered (route 7, history, webhooks,
//! files), while the back office reads everything. The browser test photographs the page with
//! `CONSOLE_SCREENSHOTS=<folder>`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::console::photograph;
use super::hooks::requests;
use super::settlements::signed_partner_sale;
use black_box_tests::browser::{click, start_browser, wait_for_text};
use black_box_tests::{StatusCode, TestApp, assert_error};
use fantoccini::Locator;
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";
const CPF: &str = "52998224725";
/// The e-mail route 5's body gives the customer.
const PROPONENT: &str = "maria@exemplo.com.br";
const SUBJECT: &str = "Sua proposta: a seguradora pede documentos";
const ITEM: &str = "Laudo cardiológico recente";
const NOTE: &str = "Declarou uso contínuo de Losartana";
pub(super) const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";

struct Sale {
    app: TestApp,
    partner: String,
    office: String,
    identifier: String,
}

async fn sale(settings: &[(&str, &str)]) -> Sale {
    let app = TestApp::spawn_with(settings).await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = signed_partner_sale(&app, &partner, &office, CPF).await;
    Sale {
        app,
        partner,
        office,
        identifier,
    }
}

impl Sale {
    async fn ask(&self, body: Value) -> reqwest::Response {
        self.app
            .post_json_as(&format!("/proposal/{}/pending", self.identifier), &self.office, &body)
            .await
    }

    async fn read(&self, path: &str, token: &str) -> Value {
        let response = self.app.get(path, Some(token)).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.json().await.unwrap()
    }

    async fn route_7(&self, token: &str) -> Value {
        self.read(&format!("/proposal/byIdentifier/{}", self.identifier), token)
            .await["data"]
            .clone()
    }
}

/// The token of the documents link mailed to the proponent.
pub(super) async fn mailed_token(app: &TestApp) -> String {
    for _ in 0..100 {
        if let Some(mail) = app.mails_to(PROPONENT, SUBJECT).await.first() {
            let text = mail.text();
            let start = text.find("/documentos/").expect("the link") + "/documentos/".len();
            return text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no documents link mailed to {PROPONENT}")
}

/// A `multipart/form-data` body as a browser posts the page's form: the files under `arquivos`
/// and the note under `nota`.
fn form(files: &[(&str, &[u8])], note: Option<&str>) -> (String, Vec<u8>) {
    let boundary = "----limite-do-formulario-7d3";
    let mut body = Vec::new();
    for (name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"arquivos\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    if let Some(note) = note {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"nota\"\r\n\r\n{note}\r\n").as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

pub(super) async fn upload(
    app: &TestApp,
    token: &str,
    files: &[(&str, &[u8])],
    note: Option<&str>,
) -> reqwest::Response {
    let (content_type, body) = form(files, note);
    app.client
        .post(app.url(&format!("/documentos/{token}")))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_health_request_reaches_the_proponent_by_link_and_the_seller_reads_only_that_it_was_asked_and_answered() {
    let s = sale(&[("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8")]).await;
    let receiver = s
        .app
        .subscribed_receiver(&s.partner, &["PENDENCIA_ABERTA", "PENDENCIA_RESPONDIDA"])
        .await;

    // An unknown category is refused, naming the member.
    let refused = assert_error(
        s.ask(json!({"items": [ITEM], "reasonCategory": "doenca"})).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "reasonCategory");

    let opened = s
        .ask(json!({"items": [ITEM], "note": NOTE, "reasonCategory": "saude"}))
        .await;
    assert_eq!(opened.status(), StatusCode::CREATED);
    let opened: Value = opened.json().await.unwrap();
    assert_eq!(opened["data"]["recipient"], "proponente");
    assert_eq!(opened["data"]["reasonCategory"], "saude");
    let id = opened["data"]["id"].clone();

    // The proponent is mailed what is asked and the link.
    let token = mailed_token(&s.app).await;
    let mail = s.app.mails_to(PROPONENT, SUBJECT).await[0].text();
    assert!(mail.contains(ITEM) && mail.contains(NOTE), "{mail}");

    // The seller reads that documents were asked, not what: route 7, the history, the webhook.
    let seller = s.route_7(&s.partner).await;
    let asked = &seller["acceptance"]["pending"][0];
    assert_eq!(asked["items"], json!([]));
    assert_eq!(asked["note"], Value::Null);
    assert_eq!(asked["reasonCategory"], "saude");
    assert_eq!(asked["recipient"], "proponente");
    assert_ne!(seller["acceptance"]["suspendedSince"], Value::Null);
    let history = s.read(&format!("/proposal/{}/history", s.identifier), &s.partner).await;
    for read in [&seller, &history] {
        assert!(!read.to_string().contains("cardiológico"), "{read}");
        assert!(!read.to_string().contains("Losartana"), "{read}");
    }
    let opened_body: Value = serde_json::from_slice(&requests(&receiver, 1).await[0].body).unwrap();
    assert_eq!(opened_body["type"], "PENDENCIA_ABERTA");
    assert_eq!(opened_body["data"]["itens"], json!([]));
    assert_eq!(opened_body["data"]["nota"], Value::Null);
    assert_eq!(opened_body["data"]["destinatario"], "proponente");
    assert_eq!(opened_body["data"]["categoriaMotivo"], "saude");

    // Nor may the seller answer it.
    let answered = s
        .app
        .post_json_as(
            &format!("/proposal/{}/pending/{id}/answer", s.identifier),
            &s.partner,
            &json!({"note": "Segue o laudo"}),
        )
        .await;
    let refused = assert_error(answered, StatusCode::FORBIDDEN, "sem_permissao").await;
    assert!(refused["message"].as_str().unwrap().contains("proponente"), "{refused}");

    // The link's page shows the request; opening it changes nothing.
    let page = s
        .app
        .client
        .get(s.app.url(&format!("/documentos/{token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");
    let page = page.text().await.unwrap();
    assert!(
        page.contains(ITEM) && page.contains(NOTE) && page.contains(&s.identifier),
        "{page}"
    );

    // A file that is not a PDF, JPEG or PNG is refused on the page, and the link still serves.
    let bad = upload(&s.app, &token, &[("laudo.exe", b"MZ\x90\x00")], None).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert!(bad.text().await.unwrap().contains("arquivos[0]"));
    let none = upload(&s.app, &token, &[], Some("sem arquivo")).await;
    assert_eq!(none.status(), StatusCode::BAD_REQUEST);

    let sent = upload(
        &s.app,
        &token,
        &[("laudo.pdf", PDF)],
        Some("Segue o laudo do cardiologista"),
    )
    .await;
    assert_eq!(sent.status(), StatusCode::CREATED);
    assert!(sent.text().await.unwrap().contains("laudo.pdf"));
    // Once: the link is spent.
    let again = upload(&s.app, &token, &[("laudo.pdf", PDF)], None).await;
    assert_eq!(again.status(), StatusCode::GONE);
    let reopened = s
        .app
        .client
        .get(s.app.url(&format!("/documentos/{token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(reopened.status(), StatusCode::GONE);
    assert!(reopened.text().await.unwrap().contains("já foi usado"));
    let unknown = s
        .app
        .client
        .get(s.app.url("/documentos/nao-existe"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_error(unknown, StatusCode::NOT_FOUND, "link_documentos_nao_encontrado").await;

    // The back office reads the answer and its file; the clock runs again.
    let office = s.route_7(&s.office).await;
    assert_eq!(office["acceptance"]["suspendedSince"], Value::Null);
    let answer = &office["acceptance"]["pending"][0]["answer"];
    assert_eq!(answer["answeredBy"], "proponente");
    assert_eq!(answer["note"], "Segue o laudo do cardiologista");
    assert_eq!(answer["files"][0]["name"], "laudo.pdf");
    assert_eq!(office["acceptance"]["pending"][0]["items"], json!([ITEM]));
    let file = answer["files"][0]["id"].clone();
    // The console serves it to the back office (no route serves an answer's files to a seller).
    let file_path = format!("/console/proposals/{}/pending/files/{file}", s.identifier);
    let read = s.app.get(&file_path, Some(&s.office)).await;
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(read.bytes().await.unwrap().as_ref(), PDF);

    // The seller reads that it was answered: when, with nothing of it.
    let seller = s.route_7(&s.partner).await;
    let answer = &seller["acceptance"]["pending"][0]["answer"];
    assert_ne!(answer["answeredAt"], Value::Null);
    assert_eq!(answer["note"], "");
    assert_eq!(answer["files"], json!([]));
    assert!(!seller.to_string().contains("laudo"), "{seller}");
    assert_eq!(
        s.app.get(&file_path, Some(&s.partner)).await.status(),
        StatusCode::FORBIDDEN
    );
    let answered_body: Value = serde_json::from_slice(&requests(&receiver, 2).await[1].body).unwrap();
    assert_eq!(answered_body["type"], "PENDENCIA_RESPONDIDA");
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM hook_deliveries WHERE body LIKE '%Losartana%' OR body LIKE '%cardiol%'")
            .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn documentation_goes_to_the_seller_unless_the_product_keeps_it_from_its_sellers() {
    use api_actix::cli::set_product_seller_documents;
    let s = sale(&[]).await;
    // The seed's product leaves documentation to its sellers: the seller reads and answers it.
    let opened: Value = s
        .ask(json!({"items": ["Comprovante de residência"], "note": "Frente e verso"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(opened["data"]["recipient"], "vendedor");
    assert_eq!(opened["data"]["reasonCategory"], "documentacao");
    let asked = s.route_7(&s.partner).await["acceptance"]["pending"][0].clone();
    assert_eq!(asked["items"], json!(["Comprovante de residência"]));
    assert_eq!(asked["note"], "Frente e verso");
    assert!(s.app.mails_to(PROPONENT, SUBJECT).await.is_empty());

    // A product that keeps documentation from its sellers sends it to the proponent.
    let other = signed_partner_sale(&s.app, &s.partner, &s.office, "11144477735").await;
    let product: i32 = s
        .app
        .count(&format!(
            "SELECT pr.codigo_produto::bigint AS n FROM proposals p JOIN products pr ON pr.id = p.id_produto
             WHERE p.identificador = '{other}'"
        ))
        .await
        .try_into()
        .unwrap();
    let policy = set_product_seller_documents(&TestApp::config(&s.app.db, &[]), product, false)
        .await
        .unwrap();
    assert!(!policy.seller_documents);
    let opened: Value = s
        .app
        .post_json_as(
            &format!("/proposal/{other}/pending"),
            &s.office,
            &json!({"items": ["Comprovante de residência"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(opened["data"]["recipient"], "proponente", "{opened}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_stops_serving_when_its_proposal_is_decided() {
    let s = sale(&[]).await;
    let opened = s.ask(json!({"items": [ITEM], "reasonCategory": "saude"})).await;
    assert_eq!(opened.status(), StatusCode::CREATED);
    let token = mailed_token(&s.app).await;
    let refused = super::settlements::decide(
        &s.app,
        &s.office,
        &s.identifier,
        json!({"status": "REPROVADO", "reason": "Risco cardíaco acima do aceito", "reasonCategory": "saude"}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::OK);
    let late = upload(&s.app, &token, &[("laudo.pdf", PDF)], None).await;
    assert_eq!(late.status(), StatusCode::GONE);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposal_pending_files").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proponent_sends_the_documents_from_the_page_in_a_browser() {
    let s = sale(&[]).await;
    let opened = s
        .ask(json!({"items": [ITEM, "Exames de sangue dos últimos 6 meses"], "note": NOTE, "reasonCategory": "saude"}))
        .await;
    assert_eq!(opened.status(), StatusCode::CREATED);
    let token = mailed_token(&s.app).await;
    let file = std::env::temp_dir().join(format!("laudo-{}.pdf", std::process::id()));
    std::fs::write(&file, PDF).unwrap();

    let (_driver, browser) = start_browser().await;
    browser.goto(&s.app.url(&format!("/documentos/{token}"))).await.unwrap();
    let items = wait_for_text(&browser, "#itens", |t| t.contains("Exames")).await;
    assert!(items.contains(ITEM));
    photograph(&browser, "documentos-pedido").await;
    browser
        .find(Locator::Id("arquivo-0"))
        .await
        .unwrap()
        .send_keys(file.to_str().unwrap())
        .await
        .unwrap();
    click(&browser, Locator::Id("enviar")).await;
    let received = wait_for_text(&browser, "#recebido", |t| t.contains("Recebemos")).await;
    assert!(
        received.contains(&format!("laudo-{}.pdf", std::process::id())),
        "{received}"
    );
    photograph(&browser, "documentos-recebidos").await;
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM proposal_pending_requests WHERE respondida_por = 'proponente'")
            .await,
        1
    );
    std::fs::remove_file(&file).ok();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_names_a_fourth_file_and_one_past_five_mebibytes_and_the_link_still_serves() {
    let s = sale(&[]).await;
    let opened = s.ask(json!({"items": [ITEM], "reasonCategory": "saude"})).await;
    assert_eq!(opened.status(), StatusCode::CREATED);
    let token = mailed_token(&s.app).await;
    let post_for_json = |files: Vec<(&'static str, Vec<u8>)>| {
        let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
        let (content_type, body) = form(&borrowed, None);
        s.app
            .client
            .post(s.app.url(&format!("/documentos/{token}")))
            .header("content-type", content_type)
            .header("accept", "application/json")
            .body(body)
            .send()
    };

    let four = vec![
        ("a.pdf", PDF.to_vec()),
        ("b.pdf", PDF.to_vec()),
        ("c.pdf", PDF.to_vec()),
        ("d.pdf", PDF.to_vec()),
    ];
    let refused = assert_error(
        post_for_json(four).await.unwrap(),
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "arquivos", "{refused}");
    assert_eq!(refused["errors"][0]["code"], "parametros_demais", "{refused}");

    let mut large = PDF.to_vec();
    large.resize(5 * 1024 * 1024 + 1, b' ');
    let refused = assert_error(
        post_for_json(vec![("laudo.pdf", PDF.to_vec()), ("exame.pdf", large)])
            .await
            .unwrap(),
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(refused["errors"][0]["field"], "arquivos[1]", "{refused}");
    assert!(
        refused["errors"][0]["message"].as_str().unwrap().contains("exame.pdf"),
        "{refused}"
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM proposal_pending_files").await, 0);

    // Nothing was recorded, and the link takes the right form.
    let sent = upload(&s.app, &token, &[("laudo.pdf", PDF)], None).await;
    assert_eq!(sent.status(), StatusCode::CREATED);
}
