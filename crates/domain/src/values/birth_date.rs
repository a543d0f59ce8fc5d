//! Birth dates: `YYYY-MM-DD`, or that date followed by an RFC 3339 time (kept as written, never
//! shifted by the offset); not in the future, and an age within configured bounds.

use crate::validation::{Rejection, trim_ascii};
use crate::values::cpf::matches_mask;
use chrono::{DateTime, Datelike, NaiveDate};
use serde::Serialize;

pub const FORMAT: &str = "data_formato";
pub const FUTURE: &str = "data_futura";
pub const AGE: &str = "data_idade";

/// The ages a birth date may give on the day it is checked, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgeBounds {
    pub min_years: u32,
    pub max_years: u32,
}

impl Default for AgeBounds {
    /// Customers sign contracts: adults, and nobody older than any living person.
    fn default() -> Self {
        Self {
            min_years: 18,
            max_years: 120,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct BirthDate(NaiveDate);

impl BirthDate {
    pub fn parse(input: &str, today: NaiveDate, bounds: AgeBounds) -> Result<Self, Rejection> {
        let date = parse_date_prefix(trim_ascii(input))
            .ok_or_else(|| Rejection::new(FORMAT, "data deve estar no formato AAAA-MM-DD e ser uma data válida"))?;
        if date > today {
            return Err(Rejection::new(FUTURE, "data de nascimento não pode estar no futuro"));
        }
        let age = age_on(date, today);
        if age < bounds.min_years || age > bounds.max_years {
            return Err(Rejection::new(
                AGE,
                format!(
                    "idade deve estar entre {} e {} anos",
                    bounds.min_years, bounds.max_years
                ),
            ));
        }
        Ok(Self(date))
    }

    /// For values read back from the store, which were checked when written.
    pub fn from_stored(date: NaiveDate) -> Self {
        Self(date)
    }

    pub fn date(&self) -> NaiveDate {
        self.0
    }
}

/// Whole years completed on `today`. Someone born on 29 February turns a year older on 1 March in
/// years without that day, as Brazilian law counts it.
pub fn age_on(birth: NaiveDate, today: NaiveDate) -> u32 {
    let years = today.year() - birth.year();
    let had_birthday = (today.month(), today.day()) >= (birth.month(), birth.day());
    let age = if had_birthday { years } else { years - 1 };
    u32::try_from(age).unwrap_or(0)
}

fn parse_date_prefix(input: &str) -> Option<NaiveDate> {
    // chrono's %Y-%m-%d also takes `1990-5-15` and `+1990-05-15`: check the exact shape first.
    let (date_part, time_part) = match input.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (input, None),
    };
    if !matches_mask(date_part, "dddd-dd-dd") {
        return None;
    }
    let date = NaiveDate::parse_from_str(date_part, "%Y-%m-%d").ok()?;
    if time_part.is_some() {
        // The whole input must be a valid RFC 3339 timestamp; its date is taken as written.
        DateTime::parse_from_rfc3339(input).ok()?;
    }
    Some(date)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    const TODAY: (i32, u32, u32) = (2026, 11, 22);

    fn parse(input: &str) -> Result<BirthDate, Rejection> {
        BirthDate::parse(input, day(TODAY.0, TODAY.1, TODAY.2), AgeBounds::default())
    }

    #[test]
    fn accepts_a_date_or_a_timestamp_cut_to_its_written_date() {
        assert_eq!(parse("1990-05-15").map(|d| d.0), Ok(day(1990, 5, 15)));
        assert_eq!(parse("1990-05-15T00:00:00.000Z").map(|d| d.0), Ok(day(1990, 5, 15)));
        // Late at night in São Paulo is the next day in UTC: the written date wins.
        assert_eq!(parse("1990-05-15T23:30:00-03:00").map(|d| d.0), Ok(day(1990, 5, 15)));
    }

    #[test]
    fn refuses_loose_shapes_that_chrono_would_take() {
        for bad in [
            "1990-5-15",
            "+1990-05-15",
            "15/05/1990",
            "1990-02-30",
            "1990-05-15T25:00:00Z",
            "1990-05-15T10:00",
            "19900515",
        ] {
            assert_eq!(parse(bad).unwrap_err().code, FORMAT, "{bad:?}");
        }
    }

    #[test]
    fn refuses_the_future_and_ages_out_of_bounds() {
        assert_eq!(parse("2026-11-23").unwrap_err().code, FUTURE);
        assert_eq!(parse("2010-01-01").unwrap_err().code, AGE);
        assert_eq!(parse("1900-01-01").unwrap_err().code, AGE);
        assert!(parse("2008-11-22").is_ok(), "eighteen today");
        assert_eq!(parse("2008-11-23").unwrap_err().code, AGE, "eighteen tomorrow");
    }

    #[test]
    fn leap_day_birthdays_count_from_the_first_of_march() {
        let born = day(2008, 2, 29);
        assert_eq!(age_on(born, day(2026, 2, 28)), 17);
        assert_eq!(age_on(born, day(2026, 3, 1)), 18);
        assert_eq!(age_on(born, day(2028, 2, 29)), 20);
    }

    proptest! {
        #[test]
        fn no_input_panics(input in "\\PC{0,40}") {
            let _ = parse(&input);
        }
    }
}
