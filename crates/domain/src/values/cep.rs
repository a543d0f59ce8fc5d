//! CEP, the postal code.

use crate::validation::{Rejection, trim_ascii};
use crate::values::cpf::matches_mask;
use serde::Serialize;

pub const FORMAT: &str = "cep_formato";

/// A CEP, stored as 8 digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Cep(String);

impl Cep {
    /// Accepts `01310100` or `01310-100`; `00000000` does not exist.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let input = trim_ascii(input);
        let digits: Option<String> = if input.len() == 8 && input.bytes().all(|b| b.is_ascii_digit()) {
            Some(input.to_owned())
        } else if matches_mask(input, "ddddd-ddd") {
            Some(input.replace('-', ""))
        } else {
            None
        };
        match digits {
            Some(d) if d != "00000000" => Ok(Self(d)),
            _ => Err(Rejection::new(
                FORMAT,
                "CEP deve ter 8 dígitos, com ou sem a máscara 00000-000",
            )),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `00000-000`, as documents print it.
    pub fn formatted(&self) -> String {
        format!("{}-{}", &self.0[..5], &self.0[5..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cep_rules() {
        assert_eq!(Cep::parse("01310100").map(|c| c.0), Ok("01310100".into()));
        assert_eq!(Cep::parse("01310-100").map(|c| c.0), Ok("01310100".into()));
        for bad in [
            "",
            "00000000",
            "00000-000",
            "0131010",
            "013101000",
            "01310.100",
            "0131010a",
        ] {
            assert_eq!(Cep::parse(bad).unwrap_err().code, FORMAT, "{bad:?}");
        }
    }
}
