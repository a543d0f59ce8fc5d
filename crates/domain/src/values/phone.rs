//! Brazilian telephone numbers: cell phones `(DD) 9XXXX-XXXX` and landlines `(DD) XXXX-XXXX`.

use crate::validation::{Rejection, trim_ascii};
use crate::values::cpf::matches_mask;
use serde::Serialize;

pub const CELL_FORMAT: &str = "celular_formato";
pub const CELL_AREA_CODE: &str = "celular_ddd";
pub const CELL_NOT_MOBILE: &str = "celular_nao_movel";
pub const LANDLINE_FORMAT: &str = "telefone_formato";
pub const LANDLINE_AREA_CODE: &str = "telefone_ddd";

/// The 67 area codes (DDD) in use.
pub fn is_area_code(ddd: u8) -> bool {
    matches!(ddd,
        11..=19 | 21 | 22 | 24 | 27 | 28 | 31..=35 | 37 | 38 | 41..=49 | 51 | 53..=55
        | 61..=69 | 71 | 73..=75 | 77 | 79 | 81..=89 | 91..=99)
}

/// A cell phone, stored as 11 digits: area code, then a number whose first digit is 9.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct CellPhone(String);

impl CellPhone {
    /// Accepts `(11) 91234-5678` or `11912345678`.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let digits = phone_digits(input, 11, "(dd) ddddd-dddd")
            .ok_or_else(|| Rejection::new(CELL_FORMAT, "celular deve estar no formato (99) 99999-9999"))?;
        if !is_area_code(area_code(&digits)) {
            return Err(Rejection::new(CELL_AREA_CODE, "celular com DDD inexistente"));
        }
        if digits.as_bytes()[2] != b'9' {
            return Err(Rejection::new(CELL_NOT_MOBILE, "celular deve começar com 9 após o DDD"));
        }
        Ok(Self(digits))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `(11) 91234-5678`, the form the spec shows.
    pub fn formatted(&self) -> String {
        let d = &self.0;
        format!("({}) {}-{}", &d[..2], &d[2..7], &d[7..])
    }

    /// `(11) *****-5678`: what a record of a message sent to it keeps.
    pub fn masked(&self) -> String {
        format!("({}) *****-{}", &self.0[..2], &self.0[7..])
    }
}

/// A landline, stored as 10 digits: area code, then a number starting with 2 to 5.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Landline(String);

impl Landline {
    /// Accepts `(11) 3123-4567` or `1131234567`.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        let digits = phone_digits(input, 10, "(dd) dddd-dddd")
            .filter(|d| (b'2'..=b'5').contains(&d.as_bytes()[2]))
            .ok_or_else(|| {
                Rejection::new(
                    LANDLINE_FORMAT,
                    "telefone fixo deve estar no formato (99) 9999-9999, começando com 2 a 5 após o DDD",
                )
            })?;
        if !is_area_code(area_code(&digits)) {
            return Err(Rejection::new(LANDLINE_AREA_CODE, "telefone fixo com DDD inexistente"));
        }
        Ok(Self(digits))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn formatted(&self) -> String {
        let d = &self.0;
        format!("({}) {}-{}", &d[..2], &d[2..6], &d[6..])
    }
}

fn phone_digits(input: &str, len: usize, mask: &str) -> Option<String> {
    let input = trim_ascii(input);
    if input.len() == len && input.bytes().all(|b| b.is_ascii_digit()) {
        Some(input.to_owned())
    } else if matches_mask(input, mask) {
        Some(input.chars().filter(char::is_ascii_digit).collect())
    } else {
        None
    }
}

fn area_code(digits: &str) -> u8 {
    let b = digits.as_bytes();
    (b[0] - b'0') * 10 + (b[1] - b'0')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn there_are_67_area_codes() {
        assert_eq!((0..=99).filter(|&d| is_area_code(d)).count(), 67);
        for absent in [
            10, 20, 23, 25, 26, 29, 30, 36, 39, 40, 50, 52, 56, 60, 70, 72, 76, 78, 80, 90,
        ] {
            assert!(!is_area_code(absent), "{absent}");
        }
    }

    #[test]
    fn cell_phone_accepts_mask_or_digits() {
        assert_eq!(
            CellPhone::parse("(11) 91234-5678").map(|c| c.0),
            Ok("11912345678".into())
        );
        assert_eq!(
            CellPhone::parse("11912345678").map(|c| c.formatted()),
            Ok("(11) 91234-5678".into())
        );
    }

    #[test]
    fn cell_phone_rules() {
        assert_eq!(CellPhone::parse("(20) 91234-5678").unwrap_err().code, CELL_AREA_CODE);
        assert_eq!(CellPhone::parse("(11) 81234-5678").unwrap_err().code, CELL_NOT_MOBILE);
        for bad in [
            "(11) 1234-5678",
            "11 91234-5678",
            "(11)91234-5678",
            "1191234567",
            "(11) 91234-567８",
        ] {
            assert_eq!(CellPhone::parse(bad).unwrap_err().code, CELL_FORMAT, "{bad:?}");
        }
    }

    #[test]
    fn landline_rules() {
        assert_eq!(Landline::parse("(11) 3123-4567").map(|c| c.0), Ok("1131234567".into()));
        assert_eq!(
            Landline::parse("6132345678").map(|c| c.formatted()),
            Ok("(61) 3234-5678".into())
        );
        assert_eq!(Landline::parse("(10) 3123-4567").unwrap_err().code, LANDLINE_AREA_CODE);
        assert_eq!(Landline::parse("(11) 9123-4567").unwrap_err().code, LANDLINE_FORMAT);
        assert_eq!(Landline::parse("(11) 91234-5678").unwrap_err().code, LANDLINE_FORMAT);
    }

    proptest! {
        #[test]
        fn no_input_panics(input in "\\PC{0,20}") {
            let _ = CellPhone::parse(&input);
            let _ = Landline::parse(&input);
        }
    }
}
