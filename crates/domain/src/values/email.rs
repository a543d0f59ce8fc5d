//! E-mail addresses.

use crate::validation::{Rejection, trim_ascii};
use serde::Serialize;

pub const FORMAT: &str = "email_formato";

/// An e-mail address in lower case: a local part and a domain of at least two labels.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let address = trim_ascii(input).to_lowercase();
        let invalid = || Rejection::new(FORMAT, "e-mail inválido");
        if address.len() > 254 {
            return Err(invalid());
        }
        let (local, domain) = address.rsplit_once('@').ok_or_else(invalid)?;
        let local_ok = !local.is_empty()
            && local.len() <= 64
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~.-".contains(c));
        let labels: Vec<&str> = domain.split('.').collect();
        let domain_ok = labels.len() >= 2
            && labels.iter().all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
            && labels
                .last()
                .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
        if local_ok && domain_ok {
            Ok(Self(address))
        } else {
            Err(invalid())
        }
    }

    /// The address with its local part hidden but for its first character (`m***@exemplo.com.br`),
    /// safe to show where it only needs to be recognised.
    pub fn masked(&self) -> String {
        let (local, domain) = self.0.rsplit_once('@').unwrap_or(("", &self.0));
        let first: String = local.chars().take(1).collect();
        format!("{first}***@{domain}")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_lower_cases() {
        assert_eq!(
            Email::parse(" Ana.Souza+vendas@Exemplo.COM.br ").map(|e| e.0),
            Ok("ana.souza+vendas@exemplo.com.br".into())
        );
    }

    #[test]
    fn masked_shows_the_first_character_and_the_domain() {
        assert_eq!(
            Email::parse("maria.silva@exemplo.com.br").unwrap().masked(),
            "m***@exemplo.com.br"
        );
    }

    #[test]
    fn refuses_malformed() {
        for bad in [
            "",
            "ana",
            "ana@",
            "@exemplo.com",
            "ana@exemplo",
            "ana@@exemplo.com",
            "ana souza@exemplo.com",
            "ana@exemplo..com",
            ".ana@exemplo.com",
            "ana@-exemplo.com",
            "ana@exemplo.c0m",
            "joão@exemplo.com",
        ] {
            assert_eq!(Email::parse(bad).unwrap_err().code, FORMAT, "{bad:?}");
        }
    }
}
