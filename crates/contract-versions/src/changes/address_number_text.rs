//! `2026-12-01`: route 7's `customer.number` is the address number as it was sent (`"123"`,
//! `"123A"`, `"S/N"`). Before, it was an integer when the text was one and `null` otherwise, so a
//! partner could not tell `S/N` from a missing address.

use super::{AnswerTarget, Change, property};
use crate::ApiVersion;
use serde_json::{Value, json};

pub struct AddressNumberText;

impl Change for AddressNumberText {
    fn name(&self) -> &'static str {
        "address_number_text"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_01
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: "CustomerView",
            member: Some("number"),
        }]
    }

    fn downgrade(&self, value: &mut Value) {
        if let Some(text) = value.as_str() {
            *value = text.parse::<i64>().map_or(Value::Null, Value::from);
        }
    }

    fn document(&self, doc: &mut Value) {
        if let Some(number) = property(doc, "CustomerView", "number") {
            *number = json!({
                "type": ["integer", "null"],
                "format": "int64",
                "description": "The address number when it is numeric; `null` for `S/N` and the like."
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_numeric_text_reads_as_its_integer_and_any_other_as_null() {
        for (sent, older) in [
            (json!("123"), json!(123)),
            (json!("0042"), json!(42)),
            (json!("123A"), json!(null)),
            (json!("S/N"), json!(null)),
            (json!(null), json!(null)),
        ] {
            let mut value = sent;
            AddressNumberText.downgrade(&mut value);
            assert_eq!(value, older);
        }
    }
}
