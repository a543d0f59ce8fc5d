//! The two faces documents are set in, DejaVu Sans regular and bold (every Portuguese letter,
//! bundled by the `dejavu` crate and subset into each PDF), and their widths for line breaking.

use krilla::text::Font;
use skrifa::instance::{LocationRef, Size};
use skrifa::{FontRef, MetadataProvider};
use std::sync::LazyLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    Regular,
    Bold,
}

/// A face: krilla's handle (to draw) and skrifa's (to measure) of the same bytes.
pub struct Face {
    pub font: Font,
    reader: FontRef<'static>,
}

impl Face {
    fn load(bytes: &'static [u8]) -> Option<Self> {
        Some(Self {
            font: Font::new(bytes.into(), 0)?,
            reader: FontRef::new(bytes).ok()?,
        })
    }

    /// The width of `text` at `size` points, as krilla draws it (advance widths, no kerning).
    pub fn width(&self, text: &str, size: f32) -> f32 {
        let charmap = self.reader.charmap();
        let metrics = self.reader.glyph_metrics(Size::new(size), LocationRef::default());
        text.chars()
            .map(|c| {
                let glyph = charmap.map(c).unwrap_or_default();
                metrics.advance_width(glyph).unwrap_or(0.0)
            })
            .sum()
    }
}

pub struct Faces {
    pub regular: Face,
    pub bold: Face,
}

impl Faces {
    pub fn get(&self, weight: Weight) -> &Face {
        match weight {
            Weight::Regular => &self.regular,
            Weight::Bold => &self.bold,
        }
    }
}

static FACES: LazyLock<Option<Faces>> = LazyLock::new(|| {
    Some(Faces {
        regular: Face::load(dejavu::sans::regular())?,
        bold: Face::load(dejavu::sans::bold())?,
    })
});

/// The faces, read once per process; `None` only if the bundled fonts could not be read.
pub fn faces() -> Option<&'static Faces> {
    FACES.as_ref()
}
