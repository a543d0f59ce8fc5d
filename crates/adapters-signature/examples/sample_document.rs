//! Writes the sample long proposal's documents: `<dir>/contrato.pdf` (as sealed for signature),
//! `<dir>/contrato-assinado.pdf` (followed by its evidence page), `<dir>/rascunho.pdf` and
//! `<dir>/certificado.pdf` (its certificate once accepted, in its first term),
//! `<dir>/certificado-encerrado.pdf` (the same, served once the contract ended) and
//! `<dir>/termos-loja.pdf` (the same proposal sold by the shop, paid with provisional cover, as
//! its terms are mailed after route 16; decision 271).
//! `scripts/render-document-pages.sh` turns them into the PNGs under `docs/documento/`.

use adapters_signature::PdfRenderer;
use adapters_signature::testing as sample;
use domain::contract::{DocumentRenderer, PrintedDocument, Stage};
use domain::signature::SealedDocument;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("uso: sample_document <pasta>")?);
    std::fs::create_dir_all(&dir)?;
    let renderer = PdfRenderer;
    let detail = sample::long_proposal();
    let terms = sample::long_proposal_terms();
    // Who answers for the data, as development configures them (production sets its own).
    let contacts = domain::privacy::notice::PrivacyContacts::development();
    let sealed = SealedDocument::of(
        renderer
            .render(&PrintedDocument::contract(&detail, &terms, Stage::ForSignature).naming_who_answers(&contacts))?,
    );
    let pages = renderer.page_count(&sealed.pdf)?;
    let signed = renderer.append(&sealed.pdf, &sample::evidence(&sealed.sha256, pages).page())?;
    let draft =
        renderer.render(&PrintedDocument::contract(&detail, &terms, Stage::Draft).naming_who_answers(&contacts))?;
    std::fs::write(dir.join("contrato.pdf"), &sealed.pdf)?;
    std::fs::write(dir.join("contrato-assinado.pdf"), signed)?;
    std::fs::write(dir.join("rascunho.pdf"), draft)?;
    let accepted = detail.proposal.stamp.created_at + chrono::Duration::days(3);
    let mut contract = detail.clone();
    contract.term = Some(domain::billing::term::first_term(
        Some(detail.proposal.stamp.created_at + chrono::Duration::days(1)),
        accepted,
        Default::default(),
    ));
    let cover = sample::long_proposal_cover();
    let certificate = renderer.render(&PrintedDocument::certificate(&contract, &cover, accepted))?;
    let issued_sha256 = SealedDocument::of(certificate.clone()).sha256;
    std::fs::write(dir.join("certificado.pdf"), certificate)?;
    // The same certificate served after the contract ended for its unpaid premium (decision 277).
    let ended = domain::contract::certificate::ContractEnded {
        at: accepted + chrono::Duration::days(95),
        reason: Some(domain::billing::arrears::DEFAULT_REASON.to_owned()),
    };
    let ended_certificate = renderer
        .render(&PrintedDocument::certificate(&contract, &cover, accepted).ended_certificate(&ended, &issued_sha256))?;
    std::fs::write(dir.join("certificado-encerrado.pdf"), ended_certificate)?;
    let paid_at = detail.proposal.stamp.created_at + chrono::Duration::minutes(4);
    // The shop's sale: no partner, no intermediary, `valor` 0 as route 6 records it (the terms
    // print the product's premium).
    let mut shop_sale = detail.clone();
    shop_sale.payment = None;
    shop_sale.partner = None;
    shop_sale.proposal.partner_document = None;
    shop_sale.proposal.value = 0;
    shop_sale.acceptance = Some(domain::acceptance::AcceptanceView {
        received_at: paid_at,
        deadline: paid_at + chrono::Duration::days(15),
        tacit: true,
        suspended_since: None,
        review_by: None,
        overdue: false,
        pending: Vec::new(),
        analyst: None,
        provisional_cover: Some(domain::premium_collection::ProvisionalCover {
            from: paid_at,
            until: None,
        }),
    });
    let shop_terms = domain::contract::terms::ProductTerms {
        broker_registration: None,
        cover: Some(domain::contract::certificate::ProductCover {
            broker_registration: None,
            collective: None,
            ..cover
        }),
        ..terms
    };
    let shop_document = renderer.render(
        &PrintedDocument::contract(&shop_sale, &shop_terms, Stage::ForSignature).naming_who_answers(&contacts),
    )?;
    std::fs::write(dir.join("termos-loja.pdf"), shop_document)?;
    println!("{} páginas seladas; SHA-256 {}", pages, sealed.sha256);
    Ok(())
}
