//! Line breaking and pagination: a [`PrintedDocument`] becomes pages of positioned lines, A4 with
//! margins, every line within them. Pure arithmetic over the faces' widths, tested on its own.

use super::fonts::{Faces, Weight};
use domain::contract::{Block, PrintedDocument};

/// A4 in points.
pub const PAGE_WIDTH: f32 = 595.28;
pub const PAGE_HEIGHT: f32 = 841.89;
/// 20 mm on every side.
pub const MARGIN: f32 = 56.69;
pub const BODY_WIDTH: f32 = PAGE_WIDTH - 2.0 * MARGIN;
/// Where the body starts (below the header) and must end (above the footer).
pub const BODY_TOP: f32 = MARGIN + 30.0;
pub const BODY_BOTTOM: f32 = PAGE_HEIGHT - MARGIN - 24.0;
/// A field's label column; its value starts after it.
const LABEL_WIDTH: f32 = 150.0;
const VALUE_X: f32 = LABEL_WIDTH + 10.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub weight: Weight,
    pub size: f32,
    /// Grey level, 0 black.
    pub grey: u8,
}

pub const TITLE: Style = Style {
    weight: Weight::Bold,
    size: 17.0,
    grey: 0,
};
pub const HEADING: Style = Style {
    weight: Weight::Bold,
    size: 11.5,
    grey: 30,
};
pub const LABEL: Style = Style {
    weight: Weight::Bold,
    size: 9.5,
    grey: 70,
};
pub const BODY: Style = Style {
    weight: Weight::Regular,
    size: 10.0,
    grey: 0,
};
pub const SMALL: Style = Style {
    weight: Weight::Regular,
    size: 8.0,
    grey: 90,
};

/// A run of text on a line, `x` from the left margin.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub x: f32,
    pub text: String,
    pub style: Style,
}

/// A line: its runs share a baseline, `height` below the previous line's.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub height: f32,
    pub runs: Vec<Run>,
    /// Space before the line when it does not start a page.
    pub space_before: f32,
    /// A rule drawn under the line (section headings).
    pub rule: bool,
}

/// Lines that go on one page together where they fit (a field's rows, a heading with what
/// follows it); a group taller than a page is split.
#[derive(Debug, Clone, PartialEq)]
struct Group {
    lines: Vec<Line>,
}

/// A page: its lines with each one's baseline (from the page's top).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Page {
    pub lines: Vec<(f32, Line)>,
}

/// `text` broken into lines no wider than `width`: at spaces, and inside a word only when the
/// word alone is wider than the line (a digest, a long e-mail).
pub fn wrap(faces: &Faces, text: &str, style: Style, width: f32) -> Vec<String> {
    let face = faces.get(style.weight);
    let fits = |s: &str| face.width(s, style.size) <= width;
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let candidate = if current.is_empty() {
            word.to_owned()
        } else {
            format!("{current} {word}")
        };
        if fits(&candidate) {
            current = candidate;
            continue;
        }
        if !current.is_empty() {
            lines.push(std::mem::take(&mut current));
        }
        if fits(word) {
            current = word.to_owned();
            continue;
        }
        for c in word.chars() {
            current.push(c);
            if !fits(&current) {
                current.pop();
                lines.push(std::mem::take(&mut current));
                current.push(c);
            }
        }
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

fn line(runs: Vec<Run>, height: f32) -> Line {
    Line {
        height,
        runs,
        space_before: 0.0,
        rule: false,
    }
}

fn text_lines(faces: &Faces, text: &str, style: Style, x: f32, width: f32, height: f32) -> Vec<Line> {
    wrap(faces, text, style, width)
        .into_iter()
        .map(|t| line(vec![Run { x, text: t, style }], height))
        .collect()
}

fn groups(faces: &Faces, document: &PrintedDocument) -> Vec<Group> {
    let mut out = vec![Group {
        lines: text_lines(faces, &document.title, TITLE, 0.0, BODY_WIDTH, 22.0),
    }];
    for section in &document.sections {
        let mut heading = text_lines(faces, &section.heading, HEADING, 0.0, BODY_WIDTH, 16.0);
        if let Some(first) = heading.first_mut() {
            first.space_before = 14.0;
        }
        if let Some(last) = heading.last_mut() {
            last.rule = true;
        }
        let mut pending_heading = Some(heading);
        let fields_only = section.blocks.iter().all(|b| matches!(b, Block::Field { .. }));
        for block in &section.blocks {
            let mut lines = match block {
                Block::Field { label, value } => {
                    let labels = wrap(faces, label, LABEL, LABEL_WIDTH);
                    let values = wrap(faces, value, BODY, BODY_WIDTH - VALUE_X);
                    let rows = labels.len().max(values.len());
                    let mut lines: Vec<Line> = (0..rows)
                        .map(|i| {
                            let mut runs = Vec::new();
                            if let Some(l) = labels.get(i) {
                                runs.push(Run {
                                    x: 0.0,
                                    text: l.clone(),
                                    style: LABEL,
                                });
                            }
                            if let Some(v) = values.get(i) {
                                runs.push(Run {
                                    x: VALUE_X,
                                    text: v.clone(),
                                    style: BODY,
                                });
                            }
                            line(runs, 14.0)
                        })
                        .collect();
                    if let Some(first) = lines.first_mut() {
                        first.space_before = 2.0;
                    }
                    lines
                }
                Block::Paragraph(text) => {
                    let mut lines = text_lines(faces, text, BODY, 0.0, BODY_WIDTH, 14.5);
                    if let Some(first) = lines.first_mut() {
                        first.space_before = 6.0;
                    }
                    lines
                }
            };
            // A heading stays with the first block under it; a section of fields alone (a
            // party's evidence, the customer's data) stays on one page where it fits.
            if let Some(mut heading) = pending_heading.take() {
                heading.append(&mut lines);
                lines = heading;
            } else if fields_only && let Some(last) = out.last_mut() {
                last.lines.append(&mut lines);
                continue;
            }
            out.push(Group { lines });
        }
        if let Some(heading) = pending_heading {
            out.push(Group { lines: heading });
        }
    }
    out
}

/// The document laid out on pages.
pub fn paginate(faces: &Faces, document: &PrintedDocument) -> Vec<Page> {
    let mut pages = vec![Page::default()];
    let mut y = BODY_TOP;
    for group in groups(faces, document) {
        let height: f32 = group.lines.iter().map(|l| l.height + l.space_before).sum();
        let page_has_lines = pages.last().is_some_and(|p| !p.lines.is_empty());
        if page_has_lines && y + height > BODY_BOTTOM && height <= BODY_BOTTOM - BODY_TOP {
            pages.push(Page::default());
            y = BODY_TOP;
        }
        for line in group.lines {
            let starts_page = pages.last().is_none_or(|p| p.lines.is_empty());
            let advance = line.height + if starts_page { 0.0 } else { line.space_before };
            if !starts_page && y + advance > BODY_BOTTOM {
                pages.push(Page::default());
                y = BODY_TOP;
            }
            let starts_page = pages.last().is_none_or(|p| p.lines.is_empty());
            y += line.height + if starts_page { 0.0 } else { line.space_before };
            if let Some(page) = pages.last_mut() {
                page.lines.push((y, line));
            }
        }
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::fonts::faces;
    use domain::contract::Section;

    #[test]
    fn wrapped_lines_stay_within_the_width_and_keep_every_word() {
        let faces = faces().unwrap();
        let text = "Rua das Acácias Floridas do Jardim Botânico Municipal de São João, ".repeat(4) + &"f".repeat(200);
        let lines = wrap(faces, &text, BODY, 200.0);
        assert!(lines.len() > 5);
        for l in &lines {
            assert!(faces.regular.width(l, BODY.size) <= 200.0, "{l}");
        }
        let rejoined: String = lines.concat().split_whitespace().collect();
        let original: String = text.split_whitespace().collect();
        assert_eq!(rejoined, original, "no letter lost");
    }

    #[test]
    fn a_long_text_runs_over_pages_within_the_body() {
        let faces = faces().unwrap();
        let document = PrintedDocument {
            title: "Título".into(),
            reference: "r".into(),
            watermark: None,
            sections: vec![Section {
                heading: "Condições".into(),
                blocks: vec![Block::Paragraph("palavra ".repeat(2500)); 2],
            }],
        };
        let pages = paginate(faces, &document);
        assert!(pages.len() >= 3, "{} pages", pages.len());
        for page in &pages {
            assert!(!page.lines.is_empty());
            for (y, _) in &page.lines {
                assert!(*y > BODY_TOP && *y <= BODY_BOTTOM, "{y}");
            }
        }
    }
}
