//! The privacy notice (LGPD art. 9: the information the person is owed, clear and accessible)
//! and what each proposal records of it: the document sent for signature prints the notice in
//! force and names the product's terms it carries, and the store keeps, beside the sealed
//! document, the notice's version and digest, the terms' digest, when and through which channel
//! the signing request took them to the customer.

use crate::validation::{Rejection, codes};
use crate::values::{Cnpj, Email, ShippingType};
use sha2::{Digest, Sha256};

/// The notice's version in force: the day it was published.
pub const NOTICE_VERSION: &str = "2026-12-13";

/// The notice's text, one paragraph per line.
pub const NOTICE_TEXT: &str = include_str!("aviso-de-privacidade.txt");

/// Every version published, with the SHA-256 of its text, oldest first. A text changed without a
/// new version (and a new line here) fails a test: a digest recorded with a proposal must keep
/// naming the text the customer read.
pub const PUBLISHED: &[(&str, &str)] = &[
    (
        "2026-11-28",
        "6b13f19181cdba1afba61267c4ca01af9ecf995660046d20e475fb88a3ded9a4",
    ),
    (
        "2026-12-13",
        "c2e244de39ac524e2ac02ca82d789a9dc39006213211108f4e58e4fa0c240517",
    ),
];

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

/// Who answers for the person's data, as the notice names them (LGPD art. 9, III: the
/// controller's identity and contact; art. 41, § 1: the encarregado's identity and contact,
/// published clearly). Set by `PRIVACY_CONTROLLER_*` and `PRIVACY_DPO_*`; production refuses to
/// start without them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivacyContacts {
    pub controller_name: String,
    pub controller_cnpj: Cnpj,
    pub controller_address: String,
    pub dpo_name: String,
    pub dpo_email: Email,
    /// Where the person asks: a page, a telephone, an address.
    pub dpo_channel: String,
}

/// The longest name, address or channel, in characters.
pub const CONTACT_MAX_CHARS: usize = 200;

impl PrivacyContacts {
    /// The development's stand-ins, announced as such at the start (never valid in production).
    pub fn development() -> Self {
        Self {
            controller_name: "Seguradora Demonstração S.A. (desenvolvimento)".to_owned(),
            controller_cnpj: Cnpj::parse("11444777000161").unwrap_or_else(|_| unreachable!("a valid CNPJ")),
            controller_address: "Avenida Paulista, 1000, São Paulo/SP, 01310-100".to_owned(),
            dpo_name: "Encarregado de Demonstração".to_owned(),
            dpo_email: Email::parse("encarregado@demo.com.br").unwrap_or_else(|_| unreachable!("a valid e-mail")),
            dpo_channel: "https://demo.com.br/privacidade".to_owned(),
        }
    }

    /// A contact's text: trimmed, not blank, at most [`CONTACT_MAX_CHARS`] characters, no
    /// control character.
    pub fn text(input: &str) -> Result<String, Rejection> {
        let text = input.trim();
        if text.is_empty() {
            return Err(Rejection::new(codes::REQUIRED, "não pode ser vazio"));
        }
        if text.chars().any(char::is_control) {
            return Err(Rejection::new(
                codes::INVALID_VALUE,
                "não pode ter caractere de controle",
            ));
        }
        if text.chars().nth(CONTACT_MAX_CHARS).is_some() {
            return Err(Rejection::new(
                codes::TOO_LONG,
                format!("no máximo {CONTACT_MAX_CHARS} caracteres"),
            ));
        }
        Ok(text.to_owned())
    }

    /// What the documents print and the notice's route answers, label and value, in order: the
    /// controller, the encarregado and the transfer abroad (art. 33).
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Controlador", self.controller_name.clone()),
            (
                "CNPJ do controlador",
                crate::contract::formats::cnpj(self.controller_cnpj.as_str()),
            ),
            ("Endereço do controlador", self.controller_address.clone()),
            ("Encarregado (LGPD art. 41)", self.dpo_name.clone()),
            ("E-mail do encarregado", self.dpo_email.as_str().to_owned()),
            ("Canal do titular", self.dpo_channel.clone()),
            ("Transferência internacional", international_transfer()),
        ]
    }
}

/// The transfer abroad the notice declares: to whom, of what, on which basis (LGPD art. 33).
pub fn international_transfer() -> String {
    format!(
        "{}; {}",
        crate::privacy::declarations::Recipient::PaymentPlatform.label(),
        crate::privacy::declarations::INTERNATIONAL_TRANSFER_BASIS
    )
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
        // Version 2026-12-13 added the transfer abroad (art. 33) as a paragraph of its own.
        assert_eq!(paragraphs.len(), 7);
        assert!(NOTICE_TEXT.contains("art. 11, II, d"));
        assert!(NOTICE_TEXT.contains("art. 18") && NOTICE_TEXT.contains("15 dias"));
        assert!(
            paragraphs
                .iter()
                .any(|p| p.starts_with("Transferência internacional (art. 33)"))
        );
        for recipient in ["PSP do Pix Automático", "débito em conta", "INSS"] {
            assert!(NOTICE_TEXT.contains(recipient), "{recipient}");
        }
        assert!(NOTICE_TEXT.contains("encarregado"));
    }

    #[test]
    fn who_answers_is_named_with_the_transfer_abroad_and_each_contact_is_checked() {
        let lines = PrivacyContacts::development().lines();
        let labels: Vec<&str> = lines.iter().map(|(label, _)| *label).collect();
        assert_eq!(
            labels,
            [
                "Controlador",
                "CNPJ do controlador",
                "Endereço do controlador",
                "Encarregado (LGPD art. 41)",
                "E-mail do encarregado",
                "Canal do titular",
                "Transferência internacional",
            ]
        );
        assert_eq!(lines[1].1, "11.444.777/0001-61");
        assert!(lines[6].1.contains("Stripe, Inc.") && lines[6].1.contains("art. 33, IX"));
        assert_eq!(PrivacyContacts::text("  Seguradora X  ").unwrap(), "Seguradora X");
        for bad in ["   ", "linha\nquebrada", &"x".repeat(CONTACT_MAX_CHARS + 1)] {
            assert!(PrivacyContacts::text(bad).is_err(), "{bad:?}");
        }
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
