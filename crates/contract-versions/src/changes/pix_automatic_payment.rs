//! `2026-11-29`: a partner's sale may be paid by Pix Automático (`PIX AUTOMÁTICO`, issue 41's
//! wave). Release 0.1.0's clients know two payment types and refuse a third; they read such a
//! sale as the one they know that works the same way for them: `DÉBITO EM CONTA`, a recurring
//! debit from the payer's account that the payer authorised. The older document declares the two
//! types only (a caller of `2026-11-21` asks for Pix Automático by moving to a newer version).
//! Decision 240.

use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct PixAutomaticPayment;

const PIX_AUTOMATIC: &str = "PIX AUTOMÁTICO";
const ACCOUNT_DEBIT: &str = "DÉBITO EM CONTA";

impl Change for PixAutomaticPayment {
    fn name(&self) -> &'static str {
        "pix_automatic_payment"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_11_29
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: "PaymentType",
            member: None,
        }]
    }

    fn downgrade(&self, value: &mut Value) {
        if value.as_str() == Some(PIX_AUTOMATIC) {
            *value = Value::from(ACCOUNT_DEBIT);
        }
    }

    fn document(&self, doc: &mut Value) {
        if let Some(values) = doc
            .pointer_mut("/components/schemas/PaymentType/enum")
            .and_then(Value::as_array_mut)
        {
            values.retain(|v| v.as_str() != Some(PIX_AUTOMATIC));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pix_automatic_sale_reads_as_an_account_debit_and_the_others_as_they_are() {
        let mut pix = json!("PIX AUTOMÁTICO");
        PixAutomaticPayment.downgrade(&mut pix);
        assert_eq!(pix, json!("DÉBITO EM CONTA"));
        for kept in ["DÉBITO EM CONTA", "DESCONTO EM FOLHA"] {
            let mut value = json!(kept);
            PixAutomaticPayment.downgrade(&mut value);
            assert_eq!(value, json!(kept));
        }
        let mut doc = json!({"components": {"schemas": {"PaymentType": {"type": "string",
            "enum": ["DÉBITO EM CONTA", "DESCONTO EM FOLHA", "PIX AUTOMÁTICO"]}}}});
        PixAutomaticPayment.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"]["PaymentType"]["enum"],
            json!(["DÉBITO EM CONTA", "DESCONTO EM FOLHA"])
        );
    }
}
