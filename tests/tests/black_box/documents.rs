//! Documents that hold (issue 68), read back with pdftotext as the insurer's compliance officer
//! reads them: the insurer's signature on the envelope is its receipt of the proposal, never its
//! acceptance (Lei 15.040/2024 art. 49); a certificate is mailed only while its contract is in
//! force, and an ended contract's certificate is served stamped with its end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{contract as accepted, setup};
use black_box_tests::{StatusCode, TestApp, pdf_text};
use serde_json::json;

const CUSTOMERS_EMAIL: &str = "maria@exemplo.com.br";

/// The SHA-256 of the proposal's certificate as issued and stored.
async fn issued_sha256(s: &super::legal_hold::Setup, identifier: &str) -> String {
    s.app
        .text(&format!(
            "SELECT c.sha256 AS line FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta \
             WHERE p.identificador = '{identifier}'"
        ))
        .await
}

/// A PDF's text with its line breaks and runs of spaces as single spaces.
fn flat(pdf: &[u8]) -> String {
    pdf_text(pdf).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_insurers_signature_is_printed_as_the_receipt_of_the_proposal_not_as_its_acceptance() {
    let s = setup().await;
    let identifier = s.app.sent_proposal(&s.partner, "52998224725").await;
    s.app.sign_as_every_party(&s.office, &identifier).await;
    let signed = s
        .app
        .get(&format!("/proposal/{identifier}/document"), Some(&s.office))
        .await;
    assert_eq!(signed.status(), StatusCode::OK);
    assert_eq!(signed.headers()["document-version"], "signed");
    let text = flat(&signed.bytes().await.unwrap());
    let evidence = text.split("Evidências da assinatura").nth(1).unwrap();
    let insurer = evidence.split("Empresa:").nth(1).unwrap();
    for expected in [
        "Recebimento",
        &format!("a seguradora recebeu a proposta (protocolo {identifier})"),
        "não é a aceitação do seguro",
        "Lei 15.040/2024, art. 49",
    ] {
        assert!(
            insurer.contains(expected),
            "\"{expected}\" not in the insurer's part: {insurer}"
        );
    }
    assert!(!insurer.contains("concordou"), "{insurer}");
    let client = evidence.split("Associação:").next().unwrap();
    assert!(client.contains("assinando como contratante"), "{client}");
    // Still in analysis: the receipt accepted nothing.
    assert_eq!(
        s.app.proposal_data(&identifier, &s.office).await["proposal"]["status"],
        "EM ANÁLISE"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_certificate_is_mailed_only_while_its_contract_is_in_force_and_served_stamped_once_it_ended() {
    let s = setup().await;
    let config = TestApp::config(&s.app.db, &[]);
    let delivered = accepted(&s, "52998224725").await;
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.delivered, std::slice::from_ref(&delivered));
    let issued = issued_sha256(&s, &delivered).await;
    let running = s
        .app
        .get(&format!("/proposal/{delivered}/certificate"), Some(&s.partner))
        .await;
    assert_eq!(running.headers()["etag"].to_str().unwrap(), format!("\"{issued}\""));
    assert!(!flat(&running.bytes().await.unwrap()).contains("ENCERRADO"));

    // A second contract accepted; both cancelled at the customer's request, past the regret's
    // seven days, before the next delivery pass.
    let not_yet_sent = accepted(&s, "11144477735").await;
    let moved = s.app.post_json("/sandbox/clock", &json!({"daysAhead": 8})).await;
    assert_eq!(moved.status(), StatusCode::OK);
    for identifier in [&delivered, &not_yet_sent] {
        s.app
            .cancel_at_customers_request(&s.partner, identifier, "Cliente mudou de ideia")
            .await;
    }

    // The pass does not mail a certificate of a contract no longer in force, and says so.
    let pass = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert_eq!(pass.withheld, std::slice::from_ref(&not_yet_sent));
    assert!(pass.delivered.is_empty() && pass.failed.is_empty(), "{pass:?}");
    assert_eq!(
        s.app.mails_to(CUSTOMERS_EMAIL, "Seu certificado de seguro").await.len(),
        1,
        "the running contract's only"
    );
    assert_eq!(
        s.app
            .text(&format!(
                "SELECT coalesce(c.retido_motivo, '-') || ':' || (c.enviado_em IS NULL)::text AS line \
                 FROM proposal_certificates c JOIN proposals p ON p.id = c.id_proposta \
                 WHERE p.identificador = '{not_yet_sent}'"
            ))
            .await,
        "contrato CANCELADO antes do envio:true"
    );
    let again = api_actix::cli::deliver_certificates(&config).await.unwrap();
    assert!(again.withheld.is_empty(), "withheld once: {again:?}");

    // Served, to the seller and the back office, stamped with the end on every page and naming
    // the certificate it copies; the requester's words are not printed.
    for (identifier, token) in [(&delivered, &s.partner), (&not_yet_sent, &s.office)] {
        let served = s
            .app
            .get(&format!("/proposal/{identifier}/certificate"), Some(token))
            .await;
        assert_eq!(served.status(), StatusCode::OK, "{identifier}");
        let etag = served.headers()["etag"].to_str().unwrap().trim_matches('"').to_owned();
        let pdf = served.bytes().await.unwrap().to_vec();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(&pdf);
        assert_eq!(etag, digest.iter().map(|b| format!("{b:02x}")).collect::<String>());
        let text = flat(&pdf);
        let original = issued_sha256(&s, identifier).await;
        assert_ne!(etag, original, "the issued one stays as it was sent");
        let pages = pdf_text(&pdf).matches("CONTRATO ENCERRADO EM").count();
        assert!(pages >= 1, "{text}");
        for expected in [
            "Certificado de seguro (contrato encerrado)",
            "Situação do contrato",
            "Encerrado em",
            "Motivo",
            "cancelamento do contrato",
            "não há cobertura para fatos ocorridos a partir de",
            original.as_str(),
            "Certificado nº",
        ] {
            assert!(
                text.contains(expected),
                "\"{expected}\" not in {identifier}'s certificate: {text}"
            );
        }
        assert!(!text.contains("Cliente mudou de ideia"), "{text}");
    }
    // The stored certificate is the one the customer received, unchanged.
    assert_eq!(issued_sha256(&s, &delivered).await, issued);
}
