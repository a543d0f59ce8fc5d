//! The documents' templates, versioned as the privacy notice is (issue 68): the wording of the
//! proposal (the shop's terms are the proposal's template) and of the certificate is this
//! module's siblings' code, so each template's SHA-256 is taken over the code that writes it (its
//! modules less their tests). Each document records, beside its own SHA-256, the template's
//! version and digest it was printed from, and prints them: whoever holds a document can tell
//! which wording made it, and the repository's history shows that wording.

use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// The templates' version in force: the day their wording was last published.
pub const TEMPLATES_VERSION: &str = "2026-12-13";

/// Every version published, with the SHA-256 of the proposal's and of the certificate's
/// template, oldest first. Wording changed without a new version (and a new line here) fails a
/// test: a digest recorded with a document must keep naming the template that printed it.
pub const PUBLISHED: &[(&str, &str, &str)] = &[
    (
        "2026-12-12",
        "49379b33bc785651482cf11c60479f327534cd6a7a52ebeed4a9399988ba2340",
        "dd4de95060cb4e749fcf5dce41f6bd7244f3fd6a9c6c973d5ddd5e144b364269",
    ),
    // The notice's section names the controller, the encarregado and the transfer abroad.
    (
        "2026-12-13",
        "c676831f09cf8f0a41c64c9d9f66f6de3609164acd765902729f80bee54f5af9",
        "f8f98292c4be0b7994bb04bc3f84eb541333a964d3e0dca2d929cc20f0c56e3e",
    ),
];

/// A document's template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// The proposal the parties sign, and the shop's terms delivered on the payment.
    Proposal,
    /// The accepted contract's certificate.
    Certificate,
}

/// The modules both templates print from.
const SHARED: [&str; 4] = [
    include_str!("mod.rs"),
    include_str!("formats.rs"),
    include_str!("insurance.rs"),
    include_str!("terms.rs"),
];

/// A module's code less its tests (which change no wording).
fn without_tests(source: &str) -> &str {
    source.split("\n#[cfg(test)]").next().unwrap_or(source)
}

impl Template {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proposal => "proposta",
            Self::Certificate => "certificado",
        }
    }

    /// The SHA-256 of the template in force: its own module's code and the shared ones', less
    /// their tests, in lower-case hex.
    pub fn sha256(self) -> &'static str {
        static PROPOSAL: OnceLock<String> = OnceLock::new();
        static CERTIFICATE: OnceLock<String> = OnceLock::new();
        let (cell, own) = match self {
            Self::Proposal => (&PROPOSAL, include_str!("evidence.rs")),
            Self::Certificate => (&CERTIFICATE, include_str!("certificate.rs")),
        };
        cell.get_or_init(|| {
            let text: String = SHARED
                .iter()
                .chain([&own])
                .map(|source| without_tests(source))
                .collect();
            hex::encode(Sha256::digest(text.as_bytes()))
        })
    }

    /// The version and digest a document printed from this template records.
    pub fn stamp(self) -> TemplateStamp {
        TemplateStamp {
            version: TEMPLATES_VERSION.to_owned(),
            sha256: self.sha256().to_owned(),
        }
    }
}

/// Which template printed a document: its version and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateStamp {
    pub version: String,
    pub sha256: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_templates_in_force_are_the_last_published_and_their_wording_did_not_change_under_them() {
        let (version, proposal, certificate) = PUBLISHED.last().copied().unwrap_or_default();
        assert_eq!(version, TEMPLATES_VERSION);
        assert_eq!(
            (proposal, certificate),
            (Template::Proposal.sha256(), Template::Certificate.sha256()),
            "a template's wording changed: publish a new version (TEMPLATES_VERSION and a line in PUBLISHED)"
        );
        let versions: Vec<&str> = PUBLISHED.iter().map(|(v, _, _)| *v).collect();
        let mut sorted = versions.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(versions, sorted, "one line per version, oldest first");
    }

    #[test]
    fn a_templates_digest_ignores_its_modules_tests_and_differs_between_templates() {
        assert_eq!(without_tests("fn a() {}\n#[cfg(test)]\nmod tests {}"), "fn a() {}");
        assert_eq!(without_tests("fn a() {}"), "fn a() {}");
        assert_ne!(Template::Proposal.sha256(), Template::Certificate.sha256());
        assert_eq!(Template::Certificate.sha256().len(), 64);
    }
}
