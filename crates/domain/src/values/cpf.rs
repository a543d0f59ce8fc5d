//! CPF, the individual taxpayer number: 11 digits, the last two check digits.

use crate::validation::{Rejection, trim_ascii};
use serde::Serialize;
use std::fmt;

pub const FORMAT: &str = "cpf_formato";
pub const REPEATED: &str = "cpf_repetido";
pub const CHECK_DIGIT: &str = "cpf_digito";

/// A valid CPF, stored as its 11 digits.
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Cpf(String);

impl Cpf {
    /// Accepts `12345678909` or `123.456.789-09`.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let input = trim_ascii(input);
        let digits = match input.len() {
            11 if input.bytes().all(|b| b.is_ascii_digit()) => input.to_owned(),
            14 if matches_mask(input, "ddd.ddd.ddd-dd") => input.chars().filter(char::is_ascii_digit).collect(),
            _ => {
                return Err(Rejection::new(
                    FORMAT,
                    "CPF deve ter 11 dígitos, com ou sem a máscara 000.000.000-00",
                ));
            }
        };
        let values: Vec<u32> = digits.bytes().map(|b| u32::from(b - b'0')).collect();
        if values.iter().all(|&d| d == values[0]) {
            return Err(Rejection::new(REPEATED, "CPF com todos os dígitos iguais não é válido"));
        }
        let first = check_digit(&values[..9], 10);
        let second = check_digit(&values[..10], 11);
        if values[9] != first || values[10] != second {
            return Err(Rejection::new(
                CHECK_DIGIT,
                "CPF inválido: dígitos verificadores não conferem",
            ));
        }
        Ok(Self(digits))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `000.000.000-00`, as documents print it.
    pub fn formatted(&self) -> String {
        let d = &self.0;
        format!("{}.{}.{}-{}", &d[..3], &d[3..6], &d[6..9], &d[9..])
    }

    /// Eleven digits that stand where an anonymised person's CPF was: nine from `seed` (a row's
    /// id, so distinct rows get distinct values) and check digits deliberately wrong, so it is
    /// never any person's CPF and [`Cpf::parse`] refuses it (no route can look it up).
    pub fn anonymous_placeholder(seed: u64) -> String {
        let base: Vec<u32> = format!("{:09}", seed % 1_000_000_000)
            .chars()
            .filter_map(|c| c.to_digit(10))
            .collect();
        let first = check_digit(&base, 10);
        let mut digits = base.clone();
        digits.push(first);
        let second = check_digit(&digits, 11);
        // The first check digit shifted by one: wrong whatever the second is.
        digits[9] = (first + 1) % 10;
        digits.push(second);
        digits.iter().filter_map(|d| char::from_digit(*d, 10)).collect()
    }

    /// The CPF with all but the last two digits hidden, safe to log.
    pub fn masked(&self) -> String {
        crate::masking::Mask::CheckDigits.apply(&self.0)
    }
}

/// Weights run from `first_weight` down to 2; the digit is 0 when the remainder is under 2.
fn check_digit(digits: &[u32], first_weight: u32) -> u32 {
    let sum: u32 = digits.iter().zip((2..=first_weight).rev()).map(|(d, w)| d * w).sum();
    let r = sum % 11;
    if r < 2 { 0 } else { 11 - r }
}

/// `d` stands for an ASCII digit; any other character of the mask must appear as it is.
pub(crate) fn matches_mask(input: &str, mask: &str) -> bool {
    input.len() == mask.len()
        && input.bytes().zip(mask.bytes()).all(|(c, m)| match m {
            b'd' => c.is_ascii_digit(),
            _ => c == m,
        })
}

impl fmt::Debug for Cpf {
    // Never print a whole CPF, even in debug output that may reach a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cpf({})", self.masked())
    }
}

#[cfg(test)]
pub(crate) fn with_check_digits(base: &[u32; 9]) -> String {
    let mut digits = base.to_vec();
    digits.push(check_digit(&digits, 10));
    digits.push(check_digit(&digits, 11));
    digits.iter().map(|d| char::from_digit(*d, 10).unwrap_or('0')).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_digits_and_mask_and_stores_digits() {
        assert_eq!(Cpf::parse("12345678909").map(|c| c.0), Ok("12345678909".into()));
        assert_eq!(Cpf::parse("123.456.789-09").map(|c| c.0), Ok("12345678909".into()));
        assert_eq!(Cpf::parse("  123.456.789-09\t").map(|c| c.0), Ok("12345678909".into()));
    }

    proptest! {
        #[test]
        fn an_anonymous_placeholder_is_eleven_digits_never_a_cpf_and_distinct_per_seed(seed in 0u64..999_999_999) {
            let placeholder = Cpf::anonymous_placeholder(seed);
            prop_assert_eq!(placeholder.len(), 11);
            prop_assert!(placeholder.chars().all(|c| c.is_ascii_digit()));
            prop_assert!(Cpf::parse(&placeholder).is_err());
            prop_assert_ne!(placeholder, Cpf::anonymous_placeholder(seed + 1));
        }
    }

    #[test]
    fn refuses_wrong_check_digits() {
        assert_eq!(Cpf::parse("12345678900").unwrap_err().code, CHECK_DIGIT);
        assert_eq!(Cpf::parse("12345678919").unwrap_err().code, CHECK_DIGIT);
    }

    #[test]
    fn refuses_all_same_digit_numbers_although_their_arithmetic_passes() {
        for d in 0..=9 {
            let cpf = d.to_string().repeat(11);
            assert_eq!(Cpf::parse(&cpf).unwrap_err().code, REPEATED, "{cpf}");
        }
    }

    #[test]
    fn refuses_bad_shapes() {
        for bad in [
            "",
            "1234567890",
            "123456789091",
            "123.456.78909",
            "123-456-789.09",
            "１２３45678909",
            "1234567890a",
        ] {
            assert_eq!(Cpf::parse(bad).unwrap_err().code, FORMAT, "{bad:?}");
        }
    }

    #[test]
    fn debug_output_hides_the_number() {
        let cpf = Cpf::parse("12345678909").unwrap();
        assert_eq!(format!("{cpf:?}"), "Cpf(***.***.***-09)");
    }

    #[test]
    fn the_algorithm_cannot_tell_apart_changes_that_swap_remainders_zero_and_one() {
        // Both numbers are valid CPFs by the Receita Federal's rule: the validator must accept both.
        assert!(Cpf::parse("44363575204").is_ok());
        assert!(Cpf::parse("54363575204").is_ok());
    }

    proptest! {
        #[test]
        fn every_generated_valid_cpf_passes(base in proptest::array::uniform9(0u32..10)) {
            prop_assume!(base.iter().any(|&d| d != base[0]));
            let cpf = with_check_digits(&base);
            prop_assert!(Cpf::parse(&cpf).is_ok(), "{}", cpf);
        }

        /// A change anywhere fails whenever the first remainder is 2 or more: each changed digit then
        /// moves that remainder, and so the first check digit. (Remainders 0 and 1 both give the
        /// digit 0, so below 2 a change can slip through: see the test after this block.)
        #[test]
        fn every_one_digit_change_fails(base in proptest::array::uniform9(0u32..10), pos in 0usize..11, delta in 1u8..10) {
            prop_assume!(base.iter().any(|&d| d != base[0]));
            let first_sum: u32 = base.iter().zip((2..=10).rev()).map(|(d, w)| d * w).sum();
            prop_assume!(first_sum % 11 >= 2 || pos >= 9);
            let mut bytes = with_check_digits(&base).into_bytes();
            bytes[pos] = b'0' + (bytes[pos] - b'0' + delta) % 10;
            let changed = String::from_utf8(bytes).unwrap();
            prop_assert!(Cpf::parse(&changed).is_err(), "{}", changed);
        }

        #[test]
        fn no_input_panics(input in "\\PC{0,20}") {
            let _ = Cpf::parse(&input);
        }
    }
}
