//! The documents as a reader gets them: rendered, then read back with poppler's text extractor
//! (`pdftotext -bbox`, `pdffonts`): every word present and inside the page's margins, Brazilian
//! formats, "página N de M", fonts embedded, the draft marked, and the signed version the sealed
//! pages unchanged followed by the evidence.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_signature::PdfRenderer;
use adapters_signature::document::layout::{MARGIN, PAGE_HEIGHT, PAGE_WIDTH};
use adapters_signature::testing as sample;
use domain::contract::{DocumentRenderer, PrintedDocument, Stage};
use domain::signature::SealedDocument;
use std::process::Command;

struct Word {
    page: usize,
    text: String,
    x_min: f32,
    x_max: f32,
    y_min: f32,
    y_max: f32,
}

fn poppler(tool: &str, args: &[&str], pdf: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("document-pages-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("document.pdf");
    std::fs::write(&file, pdf).unwrap();
    let output = Command::new(tool)
        .args(args)
        .arg(&file)
        .args(if tool == "pdftotext" { &["-"][..] } else { &[][..] })
        .output()
        .unwrap_or_else(|e| panic!("{tool} (poppler-utils) is needed to read the PDF back: {e}"));
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        output.status.success(),
        "{tool}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn attribute(tag: &str, name: &str) -> f32 {
    let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
    tag[start..start + tag[start..].find('"').unwrap()].parse().unwrap()
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every word with its box, by `pdftotext -bbox`.
fn words(pdf: &[u8]) -> Vec<Word> {
    let xhtml = poppler("pdftotext", &["-bbox"], pdf);
    let mut page = 0;
    let mut out = Vec::new();
    for line in xhtml.lines().map(str::trim) {
        if line.starts_with("<page ") {
            page += 1;
        } else if let Some(rest) = line.strip_prefix("<word ") {
            let (tag, text) = rest.split_once('>').unwrap();
            out.push(Word {
                page,
                text: unescape(text.trim_end_matches("</word>")),
                x_min: attribute(tag, "xMin"),
                x_max: attribute(tag, "xMax"),
                y_min: attribute(tag, "yMin"),
                y_max: attribute(tag, "yMax"),
            });
        }
    }
    out
}

fn page_text(words: &[Word], page: usize) -> String {
    words
        .iter()
        .filter(|w| w.page == page)
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn render(stage: Stage) -> (PrintedDocument, Vec<u8>) {
    let document = PrintedDocument::contract(&sample::long_proposal(), &Default::default(), stage);
    let pdf = PdfRenderer.render(&document).unwrap();
    (document, pdf)
}

#[test]
fn a_long_proposal_keeps_every_word_within_the_margins_of_numbered_a4_pages() {
    assert_eq!(sample::LONG_STREET.chars().count(), 200);
    let (document, pdf) = render(Stage::ForSignature);
    let words = words(&pdf);
    let pages = words.iter().map(|w| w.page).max().unwrap();
    assert!(pages >= 2, "the terms run onto a second page");

    // Every word of the content, in order of appearance, is on the pages.
    let printed: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    let mut at = 0;
    for expected in document.texts().iter().flat_map(|t| t.split_whitespace()) {
        let found = printed[at..].iter().position(|w| *w == expected);
        let Some(offset) = found else {
            panic!("\"{expected}\" missing after word {at}");
        };
        at += offset + 1;
    }
    assert!(
        printed.join(" ").contains(sample::LONG_STREET),
        "the 200-character street, whole"
    );

    for w in &words {
        assert!(
            w.x_min >= MARGIN - 0.5 && w.x_max <= PAGE_WIDTH - MARGIN + 0.5,
            "\"{}\" on page {} runs from x {} to {}",
            w.text,
            w.page,
            w.x_min,
            w.x_max
        );
        assert!(
            w.y_min >= MARGIN - 12.0 && w.y_max <= PAGE_HEIGHT - MARGIN + 3.0,
            "\"{}\" on page {} at y {}..{}",
            w.text,
            w.page,
            w.y_min,
            w.y_max
        );
    }
    for page in 1..=pages {
        assert!(
            page_text(&words, page).ends_with(&format!("página {page} de {pages}")),
            "{}",
            page_text(&words, page)
        );
    }
}

#[test]
fn values_print_in_brazilian_formats_and_the_status_does_not_print() {
    let (_, pdf) = render(Stage::ForSignature);
    let words = words(&pdf);
    let text: String = (1..=2).map(|p| page_text(&words, p)).collect::<Vec<_>>().join(" ");
    for expected in [
        "CPF 123.456.789-09",
        "CEP 01310-100",
        "(11) 91234-5678",
        "(11) 3123-4567",
        "R$ 1.412,00",
        "08/03/1979",
        "22/11/2026",
        "CNPJ 11.444.777/0001-61",
        "Associação dos Servidores Públicos do Estado",
        "São João da Boa Vista/SP",
    ] {
        assert!(text.contains(expected), "\"{expected}\" not in: {text}");
    }
    for absent in ["NOVO", "Situação", "12345678909", "01310100"] {
        assert!(!text.contains(absent), "\"{absent}\" printed");
    }
}

#[test]
fn the_fonts_are_embedded_and_a_draft_is_marked_on_every_page() {
    let (_, sealed) = render(Stage::ForSignature);
    let fonts = poppler("pdffonts", &[], &sealed);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert_eq!(rows.len(), 2, "{fonts}");
    for row in rows {
        let columns: Vec<&str> = row.split_whitespace().collect();
        assert!(row.contains("DejaVuSans"), "{row}");
        assert_eq!(
            columns[columns.len() - 5..columns.len() - 2],
            ["yes", "yes", "yes"],
            "embedded, subset, unicode: {row}"
        );
    }
    let sealed_words = words(&sealed);
    assert!(!sealed_words.iter().any(|w| w.text.contains("RASCUNHO")));

    let (_, draft) = render(Stage::Draft);
    let draft_words = words(&draft);
    let pages = draft_words.iter().map(|w| w.page).max().unwrap();
    for page in 1..=pages {
        let text = page_text(&draft_words, page);
        assert!(text.contains("RASCUNHO — sem valor de contrato"), "page {page}: {text}");
    }
}

#[test]
fn the_signed_version_is_the_sealed_pages_unchanged_then_the_evidence() {
    let (_, sealed) = render(Stage::ForSignature);
    let sealed = SealedDocument::of(sealed);
    let sealed_pages = PdfRenderer.page_count(&sealed.pdf).unwrap();
    let evidence = sample::evidence(&sealed.sha256, sealed_pages);
    let signed = PdfRenderer.append(&sealed.pdf, &evidence.page()).unwrap();
    let before = words(&sealed.pdf);
    let after = words(&signed);
    for page in 1..=sealed_pages {
        assert_eq!(page_text(&after, page), page_text(&before, page), "page {page}");
    }
    let appendix: String = (sealed_pages + 1..=after.iter().map(|w| w.page).max().unwrap())
        .map(|p| page_text(&after, p))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        appendix.contains(&sealed.sha256),
        "the full digest, on a line of its own"
    );
    for expected in [
        "Evidências da assinatura",
        "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "Cliente: Maria Conceição de Araújo Gonçalves",
        "Associação: Associação dos Servidores Públicos do Estado",
        "Federação: Federação Nacional das Associações de Servidores",
        "Empresa: Empresa Exemplo Administradora de Benefícios S.A.",
        "123.456.789-09",
        "23/11/2026 02:10:05 UTC (22/11/2026 23:10:05, horário de Brasília)",
        "código enviado por WhatsApp",
        "2804:14c:65a1:4000::1f",
        "Android 14",
    ] {
        assert!(appendix.contains(expected), "\"{expected}\" not in: {appendix}");
    }
}
