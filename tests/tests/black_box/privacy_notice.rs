//! The privacy notice (issue 47; LGPD art. 9): served in force to anyone, printed whole in the
//! document sent for signature, and recorded with that document's seal — the notice's version and
//! SHA-256, the product terms' SHA-256, when and through which channel — which the person's export
//! then shows for each proposal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::legal_hold::{export, setup, setup_with};
use black_box_tests::{StatusCode, pdf_text};
use serde_json::Value;
use sha2::{Digest, Sha256};

const CPF: &str = "52998224725";

#[tokio::test(flavor = "multi_thread")]
async fn the_notice_in_force_is_printed_in_the_sealed_document_and_recorded_with_its_seal() {
    let s = setup().await;
    let served = s.app.get("/privacy/notice", None).await;
    assert_eq!(served.status(), StatusCode::OK);
    let notice: Value = served.json().await.unwrap();
    let notice = notice["data"].clone();
    let text = notice["texto"].as_str().unwrap();
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    assert_eq!(notice["sha256"], digest.as_str(), "the digest is the text's");
    assert_eq!(
        notice["publicadas"].as_array().unwrap().last().unwrap()["sha256"],
        digest.as_str()
    );
    let version = notice["versao"].as_str().unwrap().to_owned();

    let sent = s.app.sent_proposal(&s.partner, CPF).await;
    let unsent = s.app.create_proposal(&s.partner, "11144477735").await;
    let document = s.app.get(&format!("/proposal/{sent}/document"), Some(&s.office)).await;
    assert_eq!(document.status(), StatusCode::OK);
    let printed = pdf_text(&document.bytes().await.unwrap());
    assert!(printed.contains("Aviso de privacidade"), "{printed}");
    assert!(printed.contains(&version), "the version printed");
    assert!(printed.contains("art. 11, II, d"), "the notice printed whole");

    let export = export(&s).await;
    let proposals = export["propostas"].as_array().unwrap();
    let of = |identifier: &str| {
        proposals
            .iter()
            .find(|p| p["proposta"]["identificador"] == identifier)
            .unwrap()
            .clone()
    };
    let shown = of(&sent)["avisos"].clone();
    assert_eq!(shown["aviso_versao"], version.as_str());
    assert_eq!(shown["aviso_sha256"], digest.as_str());
    // The channel the signing request went through.
    assert_eq!(shown["canal"], of(&sent)["proposta"]["tipo_envio"]);
    assert_eq!(shown["canal"], "whatsapp");
    assert!(shown["exibidos_em"].is_string());
    // The terms the document filled in: the product's, or the default ones.
    let terms_digest = shown["termos_sha256"].as_str().unwrap();
    let products_terms = s
        .app
        .count(&format!(
            "SELECT count(*) AS n FROM proposals p JOIN products pr ON pr.id = p.id_produto
             WHERE p.identificador = '{sent}' AND pr.termos IS NOT NULL
               AND encode(sha256(convert_to(pr.termos, 'UTF8')), 'hex') = '{terms_digest}'"
        ))
        .await;
    let default_terms = domain::privacy::notice::sha256_hex(domain::contract::terms::DEFAULT_TERMS);
    assert!(products_terms == 1 || terms_digest == default_terms, "{terms_digest}");
    assert_eq!(
        s.app
            .count(&format!(
                "SELECT count(*) AS n FROM proposal_notices n JOIN proposals p ON p.id = n.id_proposta
                 WHERE p.identificador = '{unsent}'"
            ))
            .await,
        0,
        "nothing shown before the document is sealed"
    );
    assert_eq!(
        s.app.count("SELECT count(*) AS n FROM proposal_notices").await,
        1,
        "recorded once, with the seal"
    );
}

/// Who answers for the person's data (issue 69, decision 286; LGPD art. 9, III, art. 41 § 1 and
/// art. 33): the controller and the encarregado as configured, and the transfer abroad, served
/// with the notice and printed with it in the document sent for signature.
#[tokio::test(flavor = "multi_thread")]
async fn the_notice_names_the_controller_the_encarregado_and_the_transfer_and_the_document_prints_them() {
    let s = setup_with(&[
        ("PRIVACY_CONTROLLER_NAME", "Seguradora Horizonte S.A."),
        ("PRIVACY_CONTROLLER_CNPJ", "01444777000108"),
        ("PRIVACY_CONTROLLER_ADDRESS", "Rua da Consolação, 200, São Paulo/SP"),
        ("PRIVACY_DPO_NAME", "Beatriz Encarregada"),
        ("PRIVACY_DPO_EMAIL", "dpo@horizonte.com.br"),
        ("PRIVACY_DPO_CHANNEL", "https://horizonte.com.br/privacidade"),
    ])
    .await;
    let notice: Value = s.app.get("/privacy/notice", None).await.json().await.unwrap();
    let notice = &notice["data"];
    assert_eq!(notice["controlador"]["nome"], "Seguradora Horizonte S.A.");
    assert_eq!(notice["controlador"]["cnpj"], "01444777000108");
    assert_eq!(
        notice["controlador"]["endereco"],
        "Rua da Consolação, 200, São Paulo/SP"
    );
    assert_eq!(notice["encarregado"]["nome"], "Beatriz Encarregada");
    assert_eq!(notice["encarregado"]["email"], "dpo@horizonte.com.br");
    assert_eq!(notice["encarregado"]["canal"], "https://horizonte.com.br/privacidade");
    let transfer = &notice["transferenciaInternacional"];
    assert!(transfer["destinatario"].as_str().unwrap().contains("Stripe, Inc."));
    assert!(transfer["base"].as_str().unwrap().contains("art. 33, IX"));
    let text = notice["texto"].as_str().unwrap();
    assert!(text.contains("Transferência internacional (art. 33)"), "{text}");

    let sent = s.app.sent_proposal(&s.partner, CPF).await;
    let document = s.app.get(&format!("/proposal/{sent}/document"), Some(&s.office)).await;
    let printed = pdf_text(&document.bytes().await.unwrap());
    for shown in [
        "Seguradora Horizonte S.A.",
        "01.444.777/0001-08",
        "Beatriz Encarregada",
        "dpo@horizonte.com.br",
        "https://horizonte.com.br/privacidade",
        "Transferência internacional",
        "Stripe, Inc.",
    ] {
        assert!(printed.contains(shown), "{shown} not printed: {printed}");
    }
}
