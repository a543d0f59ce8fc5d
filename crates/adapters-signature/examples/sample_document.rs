//! Writes the sample long proposal's documents: `<dir>/contrato.pdf` (as sealed for signature),
//! `<dir>/contrato-assinado.pdf` (followed by its evidence page) and `<dir>/rascunho.pdf`.
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
    let sealed = SealedDocument::of(renderer.render(&PrintedDocument::contract(&detail, None, Stage::ForSignature))?);
    let pages = renderer.page_count(&sealed.pdf)?;
    let signed = renderer.append(&sealed.pdf, &sample::evidence(&sealed.sha256, pages).page())?;
    let draft = renderer.render(&PrintedDocument::contract(&detail, None, Stage::Draft))?;
    std::fs::write(dir.join("contrato.pdf"), &sealed.pdf)?;
    std::fs::write(dir.join("contrato-assinado.pdf"), signed)?;
    std::fs::write(dir.join("rascunho.pdf"), draft)?;
    println!("{} páginas seladas; SHA-256 {}", pages, sealed.sha256);
    Ok(())
}
