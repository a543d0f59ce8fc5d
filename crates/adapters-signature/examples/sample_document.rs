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
    let sealed = SealedDocument::of(renderer.render(&PrintedDocument::contract(
        &detail,
        &Default::default(),
        Stage::ForSignature,
    ))?);
    let pages = renderer.page_count(&sealed.pdf)?;
    let signed = renderer.append(&sealed.pdf, &sample::evidence(&sealed.sha256, pages).page())?;
    let draft = renderer.render(&PrintedDocument::contract(&detail, &Default::default(), Stage::Draft))?;
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
    let cover = domain::contract::certificate::ProductCover {
        insurer: "Seguradora Exemplo S.A.".to_owned(),
        insurer_cnpj: "11222333000181".to_owned(),
        susep_process: "15414.900001/2026-11".to_owned(),
        coverage: "Morte por qualquer causa e invalidez permanente total por acidente".to_owned(),
        capital: 5_000_000,
        premium: detail.proposal.value,
        sac: "0800 000 0001".to_owned(),
        ombudsman: "0800 000 0002".to_owned(),
        payment: Default::default(),
    };
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
    let mut shop_sale = detail.clone();
    shop_sale.payment = None;
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
    let terms = renderer.render(&PrintedDocument::contract(
        &shop_sale,
        &Default::default(),
        Stage::ForSignature,
    ))?;
    std::fs::write(dir.join("termos-loja.pdf"), terms)?;
    println!("{} páginas seladas; SHA-256 {}", pages, sealed.sha256);
    Ok(())
}
