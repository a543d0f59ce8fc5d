//! The person's own channel (issue 69; decisions 287 and 288; LGPD art. 8, § 2, arts. 18 and 19):
//! the public page answers the same whoever asks; a link goes only to an e-mail held for the CPF;
//! the page it opens files the request once (channel `email`, protocol, 15 days) or records the
//! person's consents with their proof (the link, the client, the text's version and digest). The
//! browser test photographs its pages with `CONSOLE_SCREENSHOTS=<folder>`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::console::photograph;
use super::legal_hold::{days_later, export, setup};
use black_box_tests::browser::{click, start_browser, type_into, wait_for_text};
use black_box_tests::{StatusCode, TestApp, assert_error, error_fields};
use fantoccini::Locator;
use serde_json::{Value, json};

const CPF: &str = "52998224725";
/// The e-mail route 5's body gives the customer.
const HELD: &str = "maria@exemplo.com.br";
const LINK_SUBJECT: &str = "Seu pedido de privacidade: confirme pelo link";
/// The user agent the HTTP tests act from.
pub(super) const BROWSER: &str = "Navegador de Teste/1.0";
const ASKED: &str = "Se o CPF e o e-mail conferirem com os nossos registros";

pub(super) async fn ask(app: &TestApp, cpf: &str, purpose: &str, email: &str) -> reqwest::Response {
    app.client
        .post(app.url("/privacidade"))
        .form(&[("cpf", cpf), ("pedido", purpose), ("email", email)])
        .send()
        .await
        .unwrap()
}

/// The token of the link mailed to `to` for what `purpose` names (as the mail reads it).
pub(super) async fn mailed_token(app: &TestApp, to: &str, purpose: &str) -> String {
    for _ in 0..100 {
        let texts: Vec<String> = app.mails_to(to, LINK_SUBJECT).await.iter().map(|m| m.text()).collect();
        if let Some(text) = texts.iter().find(|t| t.contains(purpose)) {
            let start = text.find("/privacidade/link?token=").expect("the link") + "/privacidade/link?token=".len();
            return text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no link for {purpose} mailed to {to}")
}

pub(super) async fn confirm(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .post(app.url("/privacidade/link/pedido"))
        .form(&[("token", token)])
        .send()
        .await
        .unwrap()
}

pub(super) async fn consent_by_link(app: &TestApp, token: &str, purpose: &str, granted: &str) -> reqwest::Response {
    app.client
        .post(app.url("/privacidade/link/consentimento"))
        .header("user-agent", BROWSER)
        .form(&[("token", token), ("finalidade", purpose), ("concedido", granted)])
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_answers_the_same_whoever_asks_and_mails_only_an_address_held_for_the_cpf() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    for (cpf, email) in [
        ("111.444.777-35", HELD),
        (CPF, "outra@exemplo.com.br"),
        ("529.982.247-25", "MARIA@exemplo.com.br"),
    ] {
        let answer = ask(&s.app, cpf, "acesso", email).await;
        assert_eq!(answer.status(), StatusCode::OK);
        assert!(answer.text().await.unwrap().contains(ASKED));
    }
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM privacy_person_links").await,
        1,
        "one link: the held address, whatever its case"
    );
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_person_links WHERE finalidade = 'acesso' AND expira_em = emitido_em + interval '30 minutes' AND token_sha256 ~ '^[0-9a-f]{64}$'")
            .await,
        1
    );
    assert!(s.app.mails_to("outra@exemplo.com.br", LINK_SUBJECT).await.is_empty());
    assert_eq!(s.app.mails_to(HELD, LINK_SUBJECT).await.len(), 1);
    // A fourth link within the hour for the CPF is not sent; the answer does not say so.
    for _ in 0..3 {
        assert_eq!(ask(&s.app, CPF, "consentimentos", HELD).await.status(), StatusCode::OK);
    }
    assert_eq!(s.app.count("SELECT count(*) AS n FROM privacy_person_links").await, 3);
    // A malformed field is named (as the API's envelope for a caller that asks for JSON).
    let refused = s
        .app
        .client
        .post(s.app.url("/privacidade"))
        .header("accept", "application/json")
        .form(&[("cpf", "123"), ("pedido", "apagar")])
        .send()
        .await
        .unwrap();
    let refused = assert_error(refused, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    assert_eq!(error_fields(&refused), ["cpf", "pedido", "email"]);
    let page = ask(&s.app, "123", "acesso", HELD).await;
    assert_eq!(page.status(), StatusCode::BAD_REQUEST);
    let page = page.text().await.unwrap();
    assert!(page.contains("<strong>cpf</strong>"), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_address_that_asks_too_often_waits() {
    let s = setup().await;
    for _ in 0..10 {
        assert_eq!(ask(&s.app, CPF, "acesso", HELD).await.status(), StatusCode::OK);
    }
    let refused = ask(&s.app, CPF, "acesso", HELD).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().get("retry-after").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_link_files_its_request_once_and_dies_with_its_half_hour() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    ask(&s.app, CPF, "portabilidade", HELD).await;
    let token = mailed_token(&s.app, HELD, "Portabilidade").await;
    // Opening the link changes nothing (a mail scanner opens links too).
    let opened = s.app.get(&format!("/privacidade/link?token={token}"), None).await;
    assert_eq!(opened.status(), StatusCode::OK);
    assert!(opened.text().await.unwrap().contains("Portabilidade"));
    assert_eq!(s.app.count("SELECT count(*) AS n FROM privacy_requests").await, 0);

    let filed = confirm(&s.app, &token).await;
    assert_eq!(filed.status(), StatusCode::CREATED);
    let page = filed.text().await.unwrap();
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM privacy_requests r JOIN privacy_person_links l ON l.protocolo = r.protocolo
                 WHERE r.cpf = '{CPF}' AND r.tipo = 'portabilidade' AND r.canal = 'email'
                   AND r.recebido_por = 'titular (link por e-mail)' AND r.prazo = r.recebido_em + interval '15 days'
                   AND l.usado_em = r.recebido_em"
            ))
            .await,
        1
    );
    let protocol = s.app.text("SELECT protocolo AS line FROM privacy_requests").await;
    assert!(page.contains(&protocol), "the page shows the protocol");
    let confirmation = s.app.mails_to(HELD, "Seu pedido de privacidade foi registrado").await;
    assert_eq!(confirmation.len(), 1);
    assert!(confirmation[0].text().contains(&protocol));
    // The back office's queue has it, as every other request.
    let queued = s
        .app
        .get(&format!("/console/privacy/requests/{protocol}"), Some(&s.office))
        .await;
    assert_eq!(queued.status(), StatusCode::OK);

    // Spent: a second click files nothing.
    assert_error(
        s.app
            .client
            .post(s.app.url("/privacidade/link/pedido"))
            .header("accept", "application/json")
            .form(&[("token", token.as_str())])
            .send()
            .await
            .unwrap(),
        StatusCode::GONE,
        "link_titular_invalido",
    )
    .await;
    assert_eq!(confirm(&s.app, &token).await.status(), StatusCode::GONE);
    assert_eq!(s.app.count("SELECT count(*) AS n FROM privacy_requests").await, 1);

    // A link past its half hour (the development clock a day on) files nothing either.
    ask(&s.app, CPF, "eliminacao", HELD).await;
    let late = mailed_token(&s.app, HELD, "Eliminação").await;
    days_later(&s, 1).await;
    assert_eq!(confirm(&s.app, &late).await.status(), StatusCode::GONE);
    assert_eq!(
        s.app.get("/privacidade/link?token=nao-existe", None).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(s.app.count("SELECT count(*) AS n FROM privacy_requests").await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_consent_by_link_keeps_the_persons_proof_and_the_back_office_needs_its_own() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    ask(&s.app, CPF, "consentimentos", HELD).await;
    let token = mailed_token(&s.app, HELD, "consentimentos").await;
    let page = s.app.get(&format!("/privacidade/link?token={token}"), None).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.text().await.unwrap().contains("Nunca respondido"));

    let given = consent_by_link(&s.app, &token, "ofertas", "sim").await;
    assert_eq!(given.status(), StatusCode::CREATED);
    assert!(given.text().await.unwrap().contains("Consentido desde"));
    let revoked = consent_by_link(&s.app, &token, "ofertas", "nao").await;
    assert_eq!(revoked.status(), StatusCode::CREATED);
    // A request link does not record consents.
    assert_eq!(
        confirm(&s.app, &token).await.status(),
        StatusCode::CONFLICT,
        "a consents link files no request"
    );

    let consents = export(&s).await["consentimentos"].clone();
    let history = consents[0]["historico"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    let proof = &history[0]["evidencia"];
    assert_eq!(history[0]["canal"], "link");
    assert_eq!(history[0]["por"], "titular (link por e-mail)");
    assert_eq!(proof["enderecoIp"], "127.0.0.1");
    assert_eq!(proof["navegador"], "Navegador de Teste/1.0");
    assert_eq!(proof["textoVersao"], "2026-12-14");
    assert_eq!(proof["textoSha256"].as_str().unwrap().len(), 64);
    assert_eq!(proof["enviadoPara"], "m***@exemplo.com.br");
    assert_eq!(consents[0]["concedido"], false, "the revocation stands");

    // The back office records what the person did elsewhere, with its proof.
    let path = format!("/privacy/customers/{CPF}/consents");
    let unproved = s
        .app
        .post_json_as(
            &path,
            &s.office,
            &json!({"purpose": "ofertas_parceiro", "granted": true}),
        )
        .await;
    let unproved = assert_error(unproved, StatusCode::BAD_REQUEST, "dados_invalidos").await;
    assert_eq!(error_fields(&unproved), ["evidence"]);
    let proved = s
        .app
        .post_json_as(
            &path,
            &s.office,
            &json!({"purpose": "ofertas_parceiro", "granted": true,
                    "evidence": {"channel": "telefone", "reference": "Gravação SAC 2026-000123"}}),
        )
        .await;
    assert_eq!(proved.status(), StatusCode::CREATED);
    let proved: Value = proved.json().await.unwrap();
    assert_eq!(proved["data"]["canal"], "telefone");
    assert_eq!(proved["data"]["evidencia"]["referencia"], "Gravação SAC 2026-000123");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_files_a_request_through_the_mailed_link_in_a_browser() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    let (_driver, browser) = start_browser().await;
    browser.goto(&s.app.url("/privacidade")).await.unwrap();
    photograph(&browser, "privacidade-pedido").await;
    type_into(&browser, Locator::Id("cpf"), "529.982.247-25").await;
    browser
        .find(Locator::Id("pedido"))
        .await
        .unwrap()
        .select_by_value("acesso")
        .await
        .unwrap();
    type_into(&browser, Locator::Id("email"), HELD).await;
    click(&browser, Locator::Id("enviar")).await;
    let answer = wait_for_text(&browser, "#resposta", |t| t.contains("Se o CPF")).await;
    assert!(answer.contains("30 minutos"));

    let token = mailed_token(&s.app, HELD, "Acesso").await;
    browser
        .goto(&s.app.url(&format!("/privacidade/link?token={token}")))
        .await
        .unwrap();
    wait_for_text(&browser, "body", |t| t.contains("Acesso aos dados")).await;
    photograph(&browser, "privacidade-confirmar").await;
    click(&browser, Locator::Id("confirmar")).await;
    let protocol = wait_for_text(&browser, "#protocolo", |t| !t.is_empty()).await;
    photograph(&browser, "privacidade-registrado").await;
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM privacy_requests WHERE protocolo = '{protocol}' AND canal = 'email' AND tipo = 'acesso'"
            ))
            .await,
        1
    );
    let deadline = wait_for_text(&browser, "#prazo", |t| t.contains('/')).await;
    assert_eq!(deadline.len(), "01/01/2027".len());

    // The same person gives a consent on the page a consents link opens.
    ask(&s.app, CPF, "consentimentos", HELD).await;
    let token = mailed_token(&s.app, HELD, "consentimentos").await;
    browser
        .goto(&s.app.url(&format!("/privacidade/link?token={token}")))
        .await
        .unwrap();
    wait_for_text(&browser, "#consentimento-ofertas", |t| t.contains("Nunca respondido")).await;
    click(&browser, Locator::Id("consentir-ofertas")).await;
    wait_for_text(&browser, "#consentimento-ofertas", |t| t.contains("Consentido desde")).await;
    photograph(&browser, "privacidade-consentimentos").await;
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_consents WHERE canal = 'link' AND concedido AND evidencia ->> 'navegador' LIKE '%Chrom%'")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_blocked_person_may_revoke_by_link_but_not_consent() {
    let s = setup().await;
    super::legal_hold::contract(&s, CPF).await;
    let path = format!("/privacy/customers/{CPF}/consents");
    let given = s
        .app
        .post_json_as(
            &path,
            &s.office,
            &json!({"purpose": "ofertas", "granted": true,
                    "evidence": {"channel": "carta", "reference": "Formulário 2026/77"}}),
        )
        .await;
    assert_eq!(given.status(), StatusCode::CREATED);
    assert_eq!(
        super::legal_hold::anonymize(&s).await.status(),
        StatusCode::CONFLICT,
        "blocked under the hold"
    );
    ask(&s.app, CPF, "consentimentos", HELD).await;
    let token = mailed_token(&s.app, HELD, "consentimentos").await;
    let page = s.app.get(&format!("/privacidade/link?token={token}"), None).await;
    let page = page.text().await.unwrap();
    assert!(page.contains("bloqueados por retenção legal"), "{page}");
    assert!(!page.contains("id=\"consentir-"), "no consent offered: {page}");
    assert!(page.contains("id=\"revogar-ofertas\""));

    let refused = consent_by_link(&s.app, &token, "ofertas_parceiro", "sim").await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert!(refused.text().await.unwrap().contains("bloqueados"));
    let revoked = consent_by_link(&s.app, &token, "ofertas", "nao").await;
    assert_eq!(revoked.status(), StatusCode::CREATED);
    assert_eq!(
        s.app
            .count("SELECT count(*) AS n FROM privacy_consents WHERE canal = 'link' AND NOT concedido")
            .await,
        1
    );
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM privacy_consents").await,
        2,
        "the refused grant recorded nothing"
    );
}
