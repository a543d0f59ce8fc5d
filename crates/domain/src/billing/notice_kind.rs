//! Which notice of an unpaid premium (Lei 15.040/2024 arts. 20–21): a leaf of its own, so that
//! the e-mail's values name it without reaching the arrears' rules.

/// Which notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    /// Art. 20 §§1–2: a later instalment is late; pay within 15 days of receipt or the cover is
    /// suspended, and no claim from the original due date is paid unless paid.
    Late,
    /// Art. 21: the cover is suspended; the contract ends on the day named unless paid.
    EndWarning,
    /// The contract ended for the unpaid premium (art. 20 caput or art. 21).
    Ended,
}

impl NoticeKind {
    pub const ALL: [NoticeKind; 3] = [Self::Late, Self::EndWarning, Self::Ended];

    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Late => "atraso",
            Self::EndWarning => "aviso_encerramento",
            Self::Ended => "encerramento",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}
