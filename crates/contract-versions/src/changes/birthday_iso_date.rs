//! `2026-12-01`: route 7's `customer.birthday` is an ISO 8601 date (`1990-05-01`). Before, it was
//! the text JavaScript's `Date.prototype.toString` gives for a UTC midnight, as the spec's sample
//! shows it (`Tue May 01 1990 00:00:00 GMT+0000 (Coordinated Universal Time)`).

use super::{AnswerTarget, Change, property};
use crate::ApiVersion;
use chrono::NaiveDate;
use serde_json::{Value, json};

pub struct BirthdayIsoDate;

/// The seed's text of a birth date.
pub fn seed_text(date: NaiveDate) -> String {
    format!(
        "{} 00:00:00 GMT+0000 (Coordinated Universal Time)",
        date.format("%a %b %d %Y")
    )
}

impl Change for BirthdayIsoDate {
    fn name(&self) -> &'static str {
        "birthday_iso_date"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_01
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: "CustomerView",
            member: Some("birthday"),
        }]
    }

    fn downgrade(&self, value: &mut Value) {
        if let Some(date) = value
            .as_str()
            .and_then(|text| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok())
        {
            *value = Value::from(seed_text(date));
        }
    }

    fn document(&self, doc: &mut Value) {
        if let Some(birthday) = property(doc, "CustomerView", "birthday") {
            *birthday = json!({
                "type": "string",
                "description": "A textual date-time, as the spec shows it (not ISO 8601)."
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_iso_date_reads_as_the_seeds_text() {
        let mut value = json!("1990-05-01");
        BirthdayIsoDate.downgrade(&mut value);
        assert_eq!(
            value,
            json!("Tue May 01 1990 00:00:00 GMT+0000 (Coordinated Universal Time)")
        );
        let mut leap = json!("2000-02-29");
        BirthdayIsoDate.downgrade(&mut leap);
        assert_eq!(
            leap,
            json!("Tue Feb 29 2000 00:00:00 GMT+0000 (Coordinated Universal Time)")
        );
    }

    #[test]
    fn what_is_not_a_date_is_left_as_it_is() {
        for kept in [json!(null), json!("ontem"), json!(19900501)] {
            let mut value = kept.clone();
            BirthdayIsoDate.downgrade(&mut value);
            assert_eq!(value, kept);
        }
    }
}
