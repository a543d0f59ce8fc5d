//! Which notice to the customer about their contract: of an unpaid premium (Lei 15.040/2024
//! arts. 20–21) or of the term's end: a leaf of its own, so that the e-mail's values name it
//! without reaching the arrears' or the term's rules.

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
    /// The term ends and a new one follows (the product renews automatically): at least 30
    /// days before the end (decision 270).
    Renewal,
    /// The term ends and the contract with it (the product does not renew): at least 30 days
    /// before the end (decision 270).
    TermEnd,
}

impl NoticeKind {
    pub const ALL: [NoticeKind; 5] = [Self::Late, Self::EndWarning, Self::Ended, Self::Renewal, Self::TermEnd];

    /// The notices of an unpaid premium, which a payment closes (the term's are closed by the
    /// term's renewal).
    pub const ARREARS: [NoticeKind; 3] = [Self::Late, Self::EndWarning, Self::Ended];

    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Late => "atraso",
            Self::EndWarning => "aviso_encerramento",
            Self::Ended => "encerramento",
            Self::Renewal => "renovacao",
            Self::TermEnd => "fim_vigencia",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}
