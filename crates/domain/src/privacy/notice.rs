//! The privacy notice (LGPD art. 9: the information the person is owed, clear and accessible)
//! and what each proposal records of it: the document sent for signature prints the notice in
//! force and names the product's terms it carries, and the store keeps, beside the sealed
//! document, the notice's version and digest, the terms' digest, when and through which channel
//! the signing request took them to the customer.

use crate::values::ShippingType;
use sha2::{Digest, Sha256};

/// The notice's version in force: the day it was published.
pub const NOTICE_VERSION: &str = "2026-11-28";

/// The notice's text, one paragraph per line.
pub const NOTICE_TEXT: &str = include_str!("aviso-de-privacidade.txt");

/// Every version published, with the SHA-256 of its text, oldest first. A text changed without a
/// new version (and a new line here) fails a test: a digest recorded with a proposal must keep
/// naming the text the customer read.
pub const PUBLISHED: &[(&str, &str)] = &[(
    "2026-11-28",
    "6b13f19181cdba1afba61267c4ca01af9ecf995660046d20e475fb88a3ded9a4",
)];

/// The SHA-256 of a text, in lower-case hex.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The digest of the notice in force.
pub fn notice_sha256() -> String {
    sha256_hex(NOTICE_TEXT)
}

/// The notice's paragraphs, as printed.
pub fn notice_paragraphs() -> impl Iterator<Item = &'static str> {
    NOTICE_TEXT.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// What a proposal's document showed the customer, recorded with its seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticesShown {
    pub notice_version: &'static str,
    pub notice_sha256: String,
    /// The SHA-256 of the product's terms as written (the template the document filled in; the
    /// default terms' when the product has none).
    pub terms_sha256: String,
    /// How the signing request reached the customer.
    pub channel: ShippingType,
    /// The proposal's template the document was printed from (decision 282).
    pub template: crate::contract::templates::TemplateStamp,
}

impl NoticesShown {
    /// The notice in force and `terms`, the template the document printed.
    pub fn with_terms(terms: &str, channel: ShippingType) -> Self {
        Self {
            notice_version: NOTICE_VERSION,
            notice_sha256: notice_sha256(),
            terms_sha256: sha256_hex(terms),
            channel,
            template: crate::contract::templates::Template::Proposal.stamp(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_in_force_is_the_last_published_and_its_text_was_not_changed_under_it() {
        let (version, digest) = PUBLISHED.last().copied().unwrap_or_default();
        assert_eq!(version, NOTICE_VERSION);
        assert_eq!(
            digest,
            notice_sha256(),
            "the notice's text changed: publish a new version (NOTICE_VERSION and a line in PUBLISHED)"
        );
        let versions: Vec<&str> = PUBLISHED.iter().map(|(v, _)| *v).collect();
        let mut sorted = versions.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(versions, sorted, "one line per version, oldest first");
    }

    #[test]
    fn the_notice_names_the_health_basis_the_rights_and_the_deadline() {
        let paragraphs: Vec<&str> = notice_paragraphs().collect();
        assert_eq!(paragraphs.len(), 6);
        assert!(NOTICE_TEXT.contains("art. 11, II, d"));
        assert!(NOTICE_TEXT.contains("art. 18") && NOTICE_TEXT.contains("15 dias"));
    }

    #[test]
    fn what_was_shown_names_the_notice_in_force_and_the_terms_by_digest() {
        let shown = NoticesShown::with_terms("Cláusula única.", ShippingType::Sms);
        assert_eq!(shown.notice_version, NOTICE_VERSION);
        assert_eq!(shown.notice_sha256.len(), 64);
        assert_eq!(shown.terms_sha256, sha256_hex("Cláusula única."));
        assert_ne!(shown.terms_sha256, sha256_hex("Cláusula única"));
    }
}
