//! CNPJ, the company registration number, in both forms: the numeric one and the alphanumeric one
//! that the Receita Federal issues to new registrations from July 2026 (IN RFB 2.229/2024).

use crate::validation::{Rejection, trim_ascii};
use serde::Serialize;
use std::fmt;

pub const FORMAT: &str = "cnpj_formato";
pub const REPEATED: &str = "cnpj_repetido";
pub const CHECK_DIGIT: &str = "cnpj_digito";

const FIRST_WEIGHTS: [u32; 12] = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const SECOND_WEIGHTS: [u32; 13] = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/// A valid CNPJ, stored as its 14 characters (upper-case letters or digits; the last two are digits).
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Cnpj(String);

impl Cnpj {
    /// Accepts `12ABC34501DE35` or `12.ABC.345/01DE-35`, in either case.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let upper = trim_ascii(input).to_ascii_uppercase();
        let bare: String = if upper.len() == 18 && is_masked(&upper) {
            upper.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
        } else {
            upper
        };
        let bytes = bare.as_bytes();
        let well_formed = bytes.len() == 14
            && bytes[..12].iter().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
            && bytes[12..].iter().all(u8::is_ascii_digit);
        if !well_formed {
            return Err(Rejection::new(
                FORMAT,
                "CNPJ deve ter 14 caracteres (letras maiúsculas ou dígitos, os dois últimos dígitos), com ou sem a máscara 00.000.000/0000-00",
            ));
        }
        if bytes.iter().all(|&b| b == bytes[0]) {
            return Err(Rejection::new(
                REPEATED,
                "CNPJ com todos os caracteres iguais não é válido",
            ));
        }
        // Each character counts as its ASCII code minus 48: '0'..'9' are 0..9, 'A' is 17, 'Z' is 42.
        let values: Vec<u32> = bytes.iter().map(|&b| u32::from(b) - 48).collect();
        let first = check_digit(&values[..12], &FIRST_WEIGHTS);
        let second = check_digit(&values[..13], &SECOND_WEIGHTS);
        if values[12] != first || values[13] != second {
            return Err(Rejection::new(
                CHECK_DIGIT,
                "CNPJ inválido: dígitos verificadores não conferem",
            ));
        }
        Ok(Self(bare))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `00.000.000/0000-00`, as documents print it.
    pub fn formatted(&self) -> String {
        let d = &self.0;
        format!("{}.{}.{}/{}-{}", &d[..2], &d[2..5], &d[5..8], &d[8..12], &d[12..])
    }
}

fn is_masked(input: &str) -> bool {
    input.bytes().enumerate().all(|(i, b)| match i {
        2 | 6 => b == b'.',
        10 => b == b'/',
        15 => b == b'-',
        _ => b.is_ascii_alphanumeric(),
    })
}

fn check_digit(values: &[u32], weights: &[u32]) -> u32 {
    let sum: u32 = values.iter().zip(weights).map(|(v, w)| v * w).sum();
    let r = sum % 11;
    if r < 2 { 0 } else { 11 - r }
}

impl fmt::Debug for Cnpj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cnpj({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn with_check_digits(base: &str) -> String {
        let mut values: Vec<u32> = base.bytes().map(|b| u32::from(b) - 48).collect();
        let first = check_digit(&values, &FIRST_WEIGHTS);
        values.push(first);
        let second = check_digit(&values, &SECOND_WEIGHTS);
        format!("{base}{first}{second}")
    }

    #[test]
    fn accepts_numeric_cnpj_with_or_without_mask() {
        assert_eq!(
            Cnpj::parse("11.222.333/0001-81").map(|c| c.0),
            Ok("11222333000181".into())
        );
        assert_eq!(Cnpj::parse("11222333000181").map(|c| c.0), Ok("11222333000181".into()));
    }

    #[test]
    fn accepts_the_alphanumeric_cnpj_of_the_receita_example() {
        assert_eq!(
            Cnpj::parse("12.ABC.345/01DE-35").map(|c| c.0),
            Ok("12ABC34501DE35".into())
        );
        assert_eq!(Cnpj::parse("12abc34501de35").map(|c| c.0), Ok("12ABC34501DE35".into()));
    }

    #[test]
    fn refuses_wrong_check_digits() {
        assert_eq!(Cnpj::parse("11222333000182").unwrap_err().code, CHECK_DIGIT);
        assert_eq!(Cnpj::parse("12ABC34501DE36").unwrap_err().code, CHECK_DIGIT);
    }

    #[test]
    fn refuses_repeated_and_malformed() {
        assert_eq!(Cnpj::parse("00000000000000").unwrap_err().code, REPEATED);
        assert_eq!(Cnpj::parse("11111111111111").unwrap_err().code, REPEATED);
        for bad in [
            "",
            "1122233300018",
            "11.222.333/0001-8A",
            "12ABC34501DE3X",
            "11-222-333/0001.81",
            "1122233300018é",
        ] {
            assert_eq!(Cnpj::parse(bad).unwrap_err().code, FORMAT, "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn every_generated_valid_cnpj_passes(base in "[0-9A-Z]{12}") {
            let cnpj = with_check_digits(&base);
            prop_assume!(cnpj.bytes().any(|b| b != cnpj.as_bytes()[0]));
            prop_assert!(Cnpj::parse(&cnpj).is_ok(), "{}", cnpj);
        }

        /// As with the CPF, remainders 0 and 1 both give 0: a change is certain to show when the
        /// first remainder is 2 or more, and always when a check digit itself changes.
        #[test]
        fn every_one_character_change_fails(base in "[0-9A-Z]{12}", pos in 0usize..14, delta in 1u32..36) {
            let cnpj = with_check_digits(&base);
            let values: Vec<u32> = base.bytes().map(|b| u32::from(b) - 48).collect();
            let first_sum: u32 = values.iter().zip(FIRST_WEIGHTS).map(|(v, w)| v * w).sum();
            prop_assume!(first_sum % 11 >= 2 || pos >= 12);
            let alphabet: Vec<char> = if pos < 12 { ('0'..='9').chain('A'..='Z').collect() } else { ('0'..='9').collect() };
            let current = alphabet.iter().position(|&c| c == cnpj.as_bytes()[pos] as char).unwrap();
            let replacement = alphabet[(current + delta as usize) % alphabet.len()];
            prop_assume!(replacement != cnpj.as_bytes()[pos] as char);
            // Letters and digits 11 apart in value (e.g. '1' and 'C') weigh the same mod 11.
            prop_assume!((u32::from(replacement as u8) + 11 * 4 - u32::from(cnpj.as_bytes()[pos])) % 11 != 0);
            let mut changed: Vec<char> = cnpj.chars().collect();
            changed[pos] = replacement;
            let changed: String = changed.into_iter().collect();
            prop_assert!(Cnpj::parse(&changed).is_err(), "{}", changed);
        }

        #[test]
        fn no_input_panics(input in "\\PC{0,24}") {
            let _ = Cnpj::parse(&input);
        }
    }
}
