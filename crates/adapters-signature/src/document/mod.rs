//! The proposal's documents as PDF, through krilla: A4 pages with a header naming the proposal,
//! wrapped text within the margins, "página N de M" in the footer, DejaVu Sans embedded (subset),
//! a draft marked across every page; and the signed version, the sealed PDF's own pages followed
//! by the evidence page.

pub mod fonts;
pub mod layout;

use domain::contract::{DocumentRenderer, PrintedDocument, RenderError};
use fonts::{Faces, faces};
use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Transform};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::pdf::{Pdf, PdfDocument};
use krilla::surface::Surface;
use krilla::text::TextDirection;
use layout::{MARGIN, PAGE_HEIGHT, PAGE_WIDTH, SMALL, Style};
use std::sync::Arc;

pub struct PdfRenderer;

fn unreadable_fonts() -> RenderError {
    RenderError("as fontes embutidas não puderam ser lidas".into())
}

fn grey(level: u8) -> rgb::Color {
    rgb::Color::new(level, level, level)
}

fn fill(color: rgb::Color, opacity: f32) -> Fill {
    Fill {
        paint: color.into(),
        opacity: NormalizedF32::new(opacity).unwrap_or(NormalizedF32::ONE),
        rule: Default::default(),
    }
}

/// The draft mark's red.
fn draft_red() -> rgb::Color {
    rgb::Color::new(176, 0, 32)
}

fn text(surface: &mut Surface<'_>, faces: &Faces, x: f32, y: f32, content: &str, style: Style) {
    painted(surface, faces, x, y, content, style, fill(grey(style.grey), 1.0));
}

fn painted(surface: &mut Surface<'_>, faces: &Faces, x: f32, y: f32, content: &str, style: Style, paint: Fill) {
    surface.set_fill(Some(paint));
    surface.draw_text(
        Point::from_xy(x, y),
        faces.get(style.weight).font.clone(),
        style.size,
        content,
        false,
        TextDirection::Auto,
    );
}

fn rule(surface: &mut Surface<'_>, y: f32, level: u8) {
    let mut path = PathBuilder::new();
    path.move_to(MARGIN, y);
    path.line_to(PAGE_WIDTH - MARGIN, y);
    if let Some(path) = path.finish() {
        surface.set_fill(None);
        surface.set_stroke(Some(Stroke {
            paint: grey(level).into(),
            width: 0.6,
            ..Default::default()
        }));
        surface.draw_path(&path);
        surface.set_stroke(None);
    }
}

/// The pages of `document`, added to `pdf`.
fn draw(pdf: &mut Document, faces: &Faces, document: &PrintedDocument) -> Result<(), RenderError> {
    let pages = layout::paginate(faces, document);
    let total = pages.len();
    for (index, page) in pages.into_iter().enumerate() {
        let settings = PageSettings::from_wh(PAGE_WIDTH, PAGE_HEIGHT)
            .ok_or_else(|| RenderError("tamanho de página inválido".into()))?;
        let mut sheet = pdf.start_page_with(settings);
        let mut surface = sheet.surface();
        // Header: the reference, and the draft mark where there is one.
        text(&mut surface, faces, MARGIN, MARGIN + 8.0, &document.reference, SMALL);
        rule(&mut surface, MARGIN + 14.0, 150);
        for (y, line) in &page.lines {
            for run in &line.runs {
                text(&mut surface, faces, MARGIN + run.x, *y, &run.text, run.style);
            }
            if line.rule {
                rule(&mut surface, y + 4.0, 200);
            }
        }
        // Footer: where this page stands.
        rule(&mut surface, PAGE_HEIGHT - MARGIN - 12.0, 200);
        let number = format!("página {} de {total}", index + 1);
        let width = faces.regular.width(&number, SMALL.size);
        text(
            &mut surface,
            faces,
            PAGE_WIDTH - MARGIN - width,
            PAGE_HEIGHT - MARGIN,
            &number,
            SMALL,
        );
        if let Some(watermark) = &document.watermark {
            let (mark, label) = (&watermark.mark, &watermark.footer);
            let footer = Style {
                weight: fonts::Weight::Bold,
                ..SMALL
            };
            painted(
                &mut surface,
                faces,
                MARGIN,
                PAGE_HEIGHT - MARGIN,
                label,
                footer,
                fill(draft_red(), 1.0),
            );
            // Across the page, light enough to read through.
            let across = Style {
                weight: fonts::Weight::Bold,
                size: 110.0,
                grey: 0,
            };
            let width = faces.bold.width(mark, across.size);
            surface.push_transform(&Transform::from_rotate_at(-50.0, PAGE_WIDTH / 2.0, PAGE_HEIGHT / 2.0));
            let (x, y) = ((PAGE_WIDTH - width) / 2.0, PAGE_HEIGHT / 2.0 + across.size / 3.0);
            painted(&mut surface, faces, x, y, mark, across, fill(draft_red(), 0.08));
            surface.pop();
        }
        surface.finish();
        sheet.finish();
    }
    Ok(())
}

fn finish(mut pdf: Document, document: &PrintedDocument) -> Result<Vec<u8>, RenderError> {
    pdf.set_metadata(
        Metadata::new()
            .title(document.reference.clone())
            .language("pt-BR".to_owned())
            .creator("sales-api".to_owned()),
    );
    pdf.finish().map_err(|e| RenderError(format!("{e:?}")))
}

fn parse(pdf: &[u8]) -> Result<Pdf, RenderError> {
    Pdf::new(Arc::new(pdf.to_vec())).map_err(|e| RenderError(format!("PDF selado ilegível: {e:?}")))
}

impl DocumentRenderer for PdfRenderer {
    fn render(&self, document: &PrintedDocument) -> Result<Vec<u8>, RenderError> {
        let faces = faces().ok_or_else(unreadable_fonts)?;
        let mut pdf = Document::new();
        draw(&mut pdf, faces, document)?;
        finish(pdf, document)
    }

    fn append(&self, sealed: &[u8], appendix: &PrintedDocument) -> Result<Vec<u8>, RenderError> {
        let faces = faces().ok_or_else(unreadable_fonts)?;
        let source = parse(sealed)?;
        let pages: Vec<usize> = (0..source.pages().len()).collect();
        let mut pdf = Document::new();
        pdf.embed_pdf_pages(&PdfDocument::new(Arc::new(source)), &pages);
        draw(&mut pdf, faces, appendix)?;
        finish(pdf, appendix)
    }

    fn page_count(&self, pdf: &[u8]) -> Result<usize, RenderError> {
        Ok(parse(pdf)?.pages().len())
    }
}
