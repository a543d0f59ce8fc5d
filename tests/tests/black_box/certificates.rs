//! The certificate (issue 45): on `APROVADO`, by the analyst or by tacit acceptance, the contract's
//! certificate is issued once, e-mailed to the customer (the delivery recorded: when, to which
//! address, the document's SHA-256) and served at `GET /proposal/{identificador}/certificate`. Its
//! text, read back with pdftotext, holds every minimum element.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use black_box_tests::{StatusCode, TestApp, assert_error, pdf_text};
use serde_json::{Value, json};

const PARTNER: &str = "11222333000181";

async fn certificate(app: &TestApp, token: &str, identifier: &str) -> reqwest::Response {
    app.get(&format!("/proposal/{identifier}/certificate"), Some(token))
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_accepted_contracts_certificate_holds_every_element_reaches_the_customer_and_is_served_unchanged() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let shop = app.token_for("loja@demo.com.br", "ECOMMERCE", "").await;
    let identifier = app.sent_proposal(&partner, "52998224725").await;
    app.sign_as_every_party(&office, &identifier).await;

    let refused = assert_error(
        certificate(&app, &partner, &identifier).await,
        StatusCode::CONFLICT,
        "proposta_nao_aceita",
    )
    .await;
    assert!(refused["message"].as_str().unwrap().contains("EM ANÁLISE"), "{refused}");

    let approved = app
        .change_status(&office, &identifier, "APROVADO", "Documentação conferida")
        .await;
    assert_eq!(approved.status(), StatusCode::OK);
    assert_error(
        certificate(&app, &shop, &identifier).await,
        StatusCode::NOT_FOUND,
        "proposta_nao_encontrada",
    )
    .await;

    // One pass of the delivery every instance runs after each acceptance check.
    let config = TestApp::config(&app.db, &[]);
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&identifier));
    assert!(pass.failed.is_empty());

    let served = certificate(&app, &partner, &identifier).await;
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(served.headers()["content-type"], "application/pdf");
    let etag = served.headers()["etag"].to_str().unwrap().trim_matches('"').to_owned();
    let pdf = served.bytes().await.unwrap().to_vec();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(&pdf);
    assert_eq!(etag, digest.iter().map(|b| format!("{b:02x}")).collect::<String>());
    let text = pdf_text(&pdf);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for element in [
        "Certificado de seguro",
        "Seguradora Exemplo S.A.",
        "11.444.777/0001-61",
        "Seguro de Vida Essencial",
        "15414.900101/2026-01",
        "Maria da Silva",
        "529.982.247-25",
        "Morte por qualquer causa",
        "R$ 50.000,00",
        "R$ 49,90",
        "DESCONTO EM FOLHA",
        "Início da vigência",
        "Fim da vigência",
        "arrependimento",
        "SAC 0800 000 1234",
        "Ouvidoria 0800 000 5678",
        "consumidor.gov.br",
    ] {
        assert!(
            flat.contains(element),
            "{element} missing from the certificate:\n{text}"
        );
    }
    // Issued once: the same bytes at every read, whoever reads.
    let again = certificate(&app, &office, &identifier)
        .await
        .bytes()
        .await
        .unwrap()
        .to_vec();
    assert_eq!(again, pdf);

    // The customer received it, attached; the delivery is recorded with the document's hash.
    let mails = app.mails_to("maria@exemplo.com.br", "Seu certificado de seguro").await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].text().contains(&etag), "{}", mails[0].text());
    let raw = String::from_utf8_lossy(&mails[0].raw);
    assert!(raw.contains(&format!("certificado-{identifier}.pdf")), "{raw}");
    let recorded: Value = serde_json::from_str(
        &app.text(&format!(
            "SELECT json_build_object('to', enviado_para, 'sha256', sha256, 'at', enviado_em)::text AS line \
             FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta WHERE p.identificador = '{identifier}'"
        ))
        .await,
    )
    .unwrap();
    assert_eq!(recorded["to"], "maria@exemplo.com.br");
    assert_eq!(recorded["sha256"], etag.as_str());
    assert!(recorded["at"].is_string());
    // Delivered once: the next pass has nothing to do.
    assert!(
        api_actix::cli::deliver_certificates(&config)
            .await
            .unwrap()
            .delivered
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tacit_acceptance_issues_and_mails_the_certificate_too() {
    let app = TestApp::spawn().await;
    app.seed_catalog().await;
    let partner = app.token_for("rep@demo.com.br", "PARCEIRO", PARTNER).await;
    let office = app.token_for("bo@demo.com.br", "BACKOFFICE", "").await;
    let identifier = app.sent_proposal(&partner, "52998224725").await;
    app.sign_as_every_party(&office, &identifier).await;

    // Product 101 accepts by silence after 15 days.
    let moved = app.post_json("/sandbox/clock", &json!({"daysAhead": 16})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    let config = TestApp::config(&app.db, &[]);
    let swept = api_actix::cli::sweep_acceptance(&config).await.unwrap();
    assert_eq!(swept.accepted, std::slice::from_ref(&identifier));
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&identifier));
    let served = certificate(&app, &partner, &identifier).await;
    assert_eq!(served.status(), StatusCode::OK);
    let text = pdf_text(&served.bytes().await.unwrap());
    assert!(text.contains("Certificado de seguro"), "{text}");
    assert_eq!(
        app.mails_to("maria@exemplo.com.br", "Seu certificado de seguro")
            .await
            .len(),
        1
    );
}

/// Decreto 7.962/2013 art. 4: an online sale's customer receives the contract's terms and the
/// regret notice once it is paid, recorded as the certificate's delivery is.
#[tokio::test(flavor = "multi_thread")]
async fn an_online_sales_payment_mails_its_terms_with_the_regret_notice_and_records_it() {
    let app = TestApp::spawn_with(&[("PAYMENT_WEBHOOK_SECRET", super::ecommerce::WEBHOOK_SECRET)]).await;
    let (shop, identifier, _) = super::subscriptions::paid_sale(&app, "52998224725", "joao@exemplo.com.br").await;
    let config = TestApp::config(&app.db, &[]);
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&identifier));

    let mails = app
        .mails_to(
            "joao@exemplo.com.br",
            "Sua contratação: termos e direito de arrependimento",
        )
        .await;
    assert_eq!(mails.len(), 1);
    let text = mails[0].text();
    let last_day = (chrono::Utc::now() + chrono::Duration::days(7))
        .with_timezone(&chrono::FixedOffset::west_opt(3 * 3600).unwrap())
        .format("%d/%m/%Y")
        .to_string();
    assert!(text.contains(&format!("até {last_day}")), "{text}");
    assert!(text.contains("devolução integral"), "{text}");
    use mail_parser::MimeHeaders;
    let parsed = mail_parser::MessageParser::default().parse(&mails[0].raw).unwrap();
    let attachment = parsed.attachment(0).expect("the terms attached");
    assert_eq!(
        attachment.attachment_name(),
        Some(format!("termos-{identifier}.pdf").as_str())
    );
    let terms = pdf_text(attachment.contents());
    assert!(
        terms.contains("Proposta de adesão") && terms.contains(&identifier),
        "{terms}"
    );
    let recorded: Value = serde_json::from_str(
        &app.text(&format!(
            "SELECT json_build_object('to', enviado_para, 'sha256', sha256)::text AS line \
             FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta \
             WHERE p.identificador = '{identifier}' AND c.tipo = 'termos'"
        ))
        .await,
    )
    .unwrap();
    assert_eq!(recorded["to"], "joao@exemplo.com.br");
    assert!(text.contains(recorded["sha256"].as_str().unwrap()), "{text}");
    // No certificate before the acceptance.
    assert_error(
        certificate(&app, &shop, &identifier).await,
        StatusCode::CONFLICT,
        "proposta_nao_aceita",
    )
    .await;
}
