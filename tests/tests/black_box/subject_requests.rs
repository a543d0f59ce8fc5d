//! Data-subject requests (issue 47; LGPD art. 18 and art. 19): the back office files a request
//! under a protocol with its 15-day deadline; the console's queue shows the overdue first, in
//! red; the answer is recorded with what, when, by whom and the file sent (the person's data, by
//! e-mail, identified by its SHA-256); a request is answered once; anonymising the person keeps
//! the request tied to no one. The browser test photographs its pages with
//! `CONSOLE_SCREENSHOTS=<folder>`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::console::{click, photograph, sign_in, type_into, wait_for_text};
use super::legal_hold::{Setup, days_later, setup};
use black_box_tests::browser::start_browser;
use black_box_tests::{StatusCode, assert_error, error_fields};
use chrono::{DateTime, Utc};
use fantoccini::Locator;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CPF: &str = "52998224725";

async fn file(s: &Setup, token: &str, body: Value) -> reqwest::Response {
    s.app.post_json_as("/privacy/requests", token, &body).await
}

async fn filed(s: &Setup, kind: &str) -> Value {
    let response = file(
        s,
        &s.office,
        json!({"cpf": CPF, "kind": kind, "channel": "telefone", "note": "Ligou para o SAC"}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json::<Value>().await.unwrap()["data"].clone()
}

fn instant(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

async fn answer(s: &Setup, protocol: &str, text: &str, send: bool) -> reqwest::Response {
    let mut form = vec![("resposta", text)];
    if send {
        form.push(("enviar_dados", "sim"));
    }
    s.app
        .client
        .post(s.app.url(&format!("/console/privacy/requests/{protocol}/answer")))
        .bearer_auth(&s.office)
        .form(&form)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_gets_a_protocol_and_a_deadline_fifteen_days_on() {
    let s = setup().await;
    let request = filed(&s, "acesso").await;
    let protocol = request["protocolo"].as_str().unwrap();
    assert_eq!(protocol.len(), 16, "{request}");
    assert!(protocol.bytes().all(|b| b.is_ascii_digit()));
    assert_eq!(
        instant(&request["prazo"]) - instant(&request["recebidoEm"]),
        chrono::Duration::days(15)
    );
    assert_eq!(request["kind"], "acesso");
    assert_eq!(request["channel"], "telefone");
    assert!(!request["cpf"].as_str().unwrap().contains("529982"), "masked");
    // Numbered with the customer's requests: the next request of any kind has another protocol.
    let next = filed(&s, "eliminacao").await;
    assert_ne!(next["protocolo"], request["protocolo"]);
    let stored = s
        .app
        .count(&format!(
            "SELECT count(*) AS n FROM privacy_requests WHERE protocolo = '{protocol}' AND cpf = '{CPF}'
             AND recebido_por = 'bo@demo.com.br' AND observacao = 'Ligou para o SAC' AND respondido_em IS NULL"
        ))
        .await;
    assert_eq!(stored, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_bad_member_is_named_and_only_the_back_office_files() {
    let s = setup().await;
    let refused = assert_error(
        file(
            &s,
            &s.office,
            json!({"cpf": "111", "kind": "apagar", "channel": "pombo", "note": "x".repeat(1001)}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    assert_eq!(error_fields(&refused), ["cpf", "kind", "channel", "note"]);
    assert_error(
        file(
            &s,
            &s.partner,
            json!({"cpf": CPF, "kind": "acesso", "channel": "email"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "sem_permissao",
    )
    .await;
    // Nor does the console answer anyone else.
    for path in [
        "/console/privacy/requests",
        "/console/privacy/requests/2026112800000001",
    ] {
        assert_error(
            s.app.get(path, Some(&s.partner)).await,
            StatusCode::FORBIDDEN,
            "sem_permissao",
        )
        .await;
    }
    let console_filing = s
        .app
        .client
        .post(s.app.url("/console/privacy/requests"))
        .bearer_auth(&s.partner)
        .form(&[("cpf", CPF), ("kind", "acesso"), ("channel", "email")])
        .send()
        .await
        .unwrap();
    assert_error(console_filing, StatusCode::FORBIDDEN, "sem_permissao").await;
    assert_eq!(s.app.count("SELECT count(*) AS n FROM privacy_requests").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_is_recorded_once_and_only_the_data_kinds_send_the_data() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    let correction = filed(&s, "correcao").await;
    let protocol = correction["protocolo"].as_str().unwrap();
    // A correction is not answered with the data.
    assert_error(
        answer(&s, protocol, "Nome corrigido no cadastro.", true).await,
        StatusCode::CONFLICT,
        "pedido_sem_envio_de_dados",
    )
    .await;
    // Too short to say anything.
    assert_error(
        answer(&s, protocol, "ok", false).await,
        StatusCode::BAD_REQUEST,
        "dados_invalidos",
    )
    .await;
    let answered = answer(&s, protocol, "Nome corrigido no cadastro.", false).await;
    assert_eq!(answered.status(), StatusCode::OK);
    let page = answered.text().await.unwrap();
    assert!(
        page.contains("Nome corrigido no cadastro.") && page.contains("dentro do prazo"),
        "{page}"
    );
    let again = assert_error(
        answer(&s, protocol, "Outra resposta qualquer.", false).await,
        StatusCode::CONFLICT,
        "pedido_titular_respondido",
    )
    .await;
    assert!(again["message"].as_str().unwrap().contains("bo@demo.com.br"));
    assert_error(
        answer(&s, "2026112899999999", "Resposta sem pedido.", false).await,
        StatusCode::NOT_FOUND,
        "pedido_titular_nao_encontrado",
    )
    .await;
    let first = s
        .app
        .count(&format!(
            "SELECT count(*) AS n FROM privacy_requests WHERE protocolo = '{protocol}'
             AND resposta = 'Nome corrigido no cadastro.' AND arquivo_sha256 IS NULL"
        ))
        .await;
    assert_eq!(first, 1, "the first answer stands");

    // Nothing held, no e-mail to send the data to: nothing recorded.
    let other = file(
        &s,
        &s.office,
        json!({"cpf": "11144477735", "kind": "acesso", "channel": "carta"}),
    )
    .await;
    let other: Value = other.json().await.unwrap();
    assert_error(
        answer(
            &s,
            other["data"]["protocolo"].as_str().unwrap(),
            "Segue o arquivo com os dados.",
            true,
        )
        .await,
        StatusCode::CONFLICT,
        "titular_sem_email",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_shows_the_overdue_first_and_records_the_answer_with_the_file_sent() {
    let s = setup().await;
    s.app.sent_proposal(&s.partner, CPF).await;
    let old = filed(&s, "portabilidade").await;
    let old_protocol = old["protocolo"].as_str().unwrap().to_owned();
    // Sixteen days later the first is past its deadline; a new one is not.
    days_later(&s, 16).await;

    let (_driver, browser) = start_browser().await;
    sign_in(&browser, &s.app).await;
    wait_for_text(&browser, "#proposal-list", |t| !t.is_empty()).await;
    click(&browser, "nav-privacy").await;
    wait_for_text(&browser, "#subject-list", |t| t.contains("vencido")).await;
    // The request received by phone, filed from the console (its form folded while requests wait).
    click(&browser, "subject-file-toggle").await;
    type_into(&browser, "subject-cpf", "529.982.247-25").await;
    black_box_tests::browser::click(&browser, Locator::Css("#subject-kind option[value='eliminacao']")).await;
    type_into(&browser, "subject-note", "Pediu a eliminação por telefone").await;
    click(&browser, "subject-file").await;
    let notice = wait_for_text(&browser, "#subject-notice", |t| t.contains("protocolo")).await;
    assert!(notice.contains("resposta devida até"), "{notice}");
    let rows = wait_for_text(&browser, "#subject-list tbody", |t| t.contains("Eliminação")).await;
    assert!(rows.contains("vencido") && rows.contains("no prazo"), "{rows}");
    let mut order = Vec::new();
    for row in browser.find_all(Locator::Css("#subject-list tbody tr")).await.unwrap() {
        order.push((
            row.attr("data-protocol").await.unwrap().unwrap_or_default(),
            row.attr("class").await.unwrap().unwrap_or_default(),
        ));
    }
    assert_eq!(order.len(), 2);
    assert_eq!(
        order[0],
        (old_protocol.clone(), "q-bad".to_owned()),
        "the overdue first, in red"
    );
    assert_eq!(order[1].1, "q-ok");
    photograph(&browser, "pedidos-lgpd").await;

    // Answered with the person's data, sent by e-mail.
    black_box_tests::browser::click(
        &browser,
        Locator::Css(&format!("#subject-list button.open[data-protocol='{old_protocol}']")),
    )
    .await;
    wait_for_text(&browser, "#subject-request", |t| t.contains("Portabilidade")).await;
    let deadline = wait_for_text(&browser, "#subject-deadline", |_| true).await;
    assert!(!deadline.is_empty());
    type_into(
        &browser,
        "subject-answer-text",
        "Enviamos por e-mail o arquivo com os seus dados, em JSON.",
    )
    .await;
    photograph(&browser, "pedido-lgpd-resposta").await;
    click(&browser, "subject-answer-button").await;
    let recorded = wait_for_text(&browser, "#subject-answer", |t| t.contains("SHA-256")).await;
    assert!(
        recorded.contains("fora do prazo") && recorded.contains("bo@demo.com.br"),
        "{recorded}"
    );
    assert!(
        recorded.contains(&format!("dados-pessoais-{old_protocol}.json")),
        "{recorded}"
    );
    assert!(recorded.contains("m***@exemplo.com.br"), "{recorded}");
    photograph(&browser, "pedido-lgpd-respondido").await;

    // The file that went is the one the answer names: its digest is the attachment's.
    let mails = s
        .app
        .mails_to("maria@exemplo.com.br", "Seus dados pessoais (pedido LGPD)")
        .await;
    assert_eq!(mails.len(), 1);
    let parsed = mail_parser::MessageParser::default().parse(&mails[0].raw).unwrap();
    let attachment = parsed.attachment(0).expect("the data attached");
    let digest = hex::encode(Sha256::digest(attachment.contents()));
    assert!(recorded.contains(&digest), "{recorded} vs {digest}");
    let data: Value = serde_json::from_slice(attachment.contents()).unwrap();
    assert_eq!(data["cpf"], CPF);
    assert!(data["basesLegais"].is_array() && data["solicitacoes"].as_array().unwrap().len() == 2);
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM privacy_requests WHERE protocolo = '{old_protocol}'
                 AND arquivo_sha256 = '{digest}' AND respondido_por = 'bo@demo.com.br' AND respondido_em > prazo"
            ))
            .await,
        1
    );

    // The answered list shows it; the open one stays in the queue.
    click(&browser, "subject-back").await;
    wait_for_text(&browser, "#subject-list", |t| !t.contains("Portabilidade")).await;
    black_box_tests::browser::click(&browser, Locator::Css("#subject-state option[value='respondidos']")).await;
    click(&browser, "subject-apply").await;
    let answered = wait_for_text(&browser, "#subject-list", |t| t.contains("Portabilidade")).await;
    assert!(answered.contains("respondido fora do prazo"), "{answered}");
}
