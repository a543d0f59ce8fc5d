//! Salaries, in integer cents.

use crate::validation::Rejection;
use serde::Serialize;

pub const FORMAT: &str = "salario_formato";
pub const MINIMUM: &str = "salario_minimo";

/// A salary in cents, at least the minimum in force when it was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SalaryCents(i64);

impl SalaryCents {
    /// `minimum_cents` is configuration: the minimum wage changes every year. The bound is inclusive.
    pub fn from_cents(cents: i64, minimum_cents: i64) -> Result<Self, Rejection> {
        if cents < 0 {
            return Err(Self::format_rejection());
        }
        if cents < minimum_cents {
            return Err(Rejection::new(
                MINIMUM,
                format!(
                    "salário deve ser de no mínimo {} centavos ({})",
                    minimum_cents,
                    reais(minimum_cents)
                ),
            ));
        }
        Ok(Self(cents))
    }

    /// The rejection for a value that is not a JSON integer (a float, a string, a negative number).
    pub fn format_rejection() -> Rejection {
        Rejection::new(FORMAT, "salário deve ser um número inteiro de centavos, não negativo")
    }

    pub fn cents(self) -> i64 {
        self.0
    }
}

/// `R$ 1.412,00` for 141200.
fn reais(cents: i64) -> String {
    let units = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(c);
    }
    format!("R$ {},{:02}", grouped, cents % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimum_is_inclusive() {
        assert_eq!(
            SalaryCents::from_cents(141_200, 141_200).map(SalaryCents::cents),
            Ok(141_200)
        );
        let low = SalaryCents::from_cents(141_199, 141_200).unwrap_err();
        assert_eq!(low.code, MINIMUM);
        assert!(low.message.contains("R$ 1.412,00"), "{}", low.message);
    }

    #[test]
    fn zero_is_allowed_where_the_minimum_is_zero_and_negatives_never() {
        assert!(SalaryCents::from_cents(0, 0).is_ok());
        assert_eq!(SalaryCents::from_cents(-1, 0).unwrap_err().code, FORMAT);
    }
}
