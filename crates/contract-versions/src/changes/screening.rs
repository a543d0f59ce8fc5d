//! `2026-12-06`: the sale's screening (issue 70, decision 293).
//!
//! - [`ScreeningErrorCode`]: routes 5 and 6 refuse a customer whose CPF the Receita Federal does
//!   not hold `REGULAR` with 422 `cpf_irregular`. The documents of `2026-12-01` and before
//!   closed the 422 body's `code` to the codes they had, and a client generated from them refuses
//!   any other: a caller of those versions reads `corpo_malformado`, 422's code of a request the
//!   service could not take as sent, with the status and the `message` (which names the CPF's
//!   status) kept.
//! - [`DiligenceMember`]: route 7's `data.kyc`, the customer's due diligence, is `2026-12-06`'s:
//!   the older versions' answers go without it, as their documents declare them.

use super::cursor_pages::remove_member;
use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct ScreeningErrorCode;

/// Route 7's `data.kyc`, added in `2026-12-06`.
pub struct DiligenceMember;

/// Route 7's `data` and the member it gained, with the schemas only that member uses.
const DETAIL: &str = "ProposalDetailDto";
const MEMBER: &str = "kyc";
const MEMBER_SCHEMAS: [&str; 2] = ["KycDto", "KycReasonDto"];

impl Change for DiligenceMember {
    fn name(&self) -> &'static str {
        "diligence_member"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_06
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: DETAIL,
            member: Some(MEMBER),
        }]
    }

    fn adds_members(&self) -> bool {
        true
    }

    fn downgrade(&self, _value: &mut Value) {}

    fn document(&self, doc: &mut Value) {
        remove_member(doc, DETAIL, MEMBER);
        if let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
            for schema in MEMBER_SCHEMAS {
                schemas.shift_remove(schema);
            }
        }
    }
}

/// The code `2026-12-06` added and the one its older callers read instead.
const AS_BEFORE: (&str, &str) = ("cpf_irregular", "corpo_malformado");
/// The error body whose `code` gained it.
const BODY: &str = "UnprocessableEntityError";

impl Change for ScreeningErrorCode {
    fn name(&self) -> &'static str {
        "screening_error_code"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_06
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: BODY,
            member: Some("code"),
        }]
    }

    fn downgrade(&self, value: &mut Value) {
        if value.as_str() == Some(AS_BEFORE.0) {
            *value = Value::from(AS_BEFORE.1);
        }
    }

    fn document(&self, doc: &mut Value) {
        let parts = doc
            .pointer_mut(&format!("/components/schemas/{BODY}/allOf"))
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten();
        for part in parts {
            if let Some(codes) = part.pointer_mut("/properties/code/enum").and_then(Value::as_array_mut) {
                codes.retain(|code| code.as_str() != Some(AS_BEFORE.0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_older_documents_declare_route_7_without_the_diligence() {
        let mut doc = json!({"components": {"schemas": {
            DETAIL: {"type": "object", "required": ["ledger", "kyc"], "properties": {"ledger": {}, "kyc": {"$ref": "#/components/schemas/KycDto"}}},
            "KycDto": {}, "KycReasonDto": {}, "LedgerDto": {}
        }}});
        DiligenceMember.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"],
            json!({DETAIL: {"type": "object", "required": ["ledger"], "properties": {"ledger": {}}}, "LedgerDto": {}})
        );
        assert!(DiligenceMember.adds_members());
    }

    #[test]
    fn the_new_code_reads_as_corpo_malformado_before_and_the_others_as_they_are() {
        let mut value = json!("cpf_irregular");
        ScreeningErrorCode.downgrade(&mut value);
        assert_eq!(value, json!("corpo_malformado"));
        for kept in ["corpo_malformado", "senha_fora_da_politica", "dados_invalidos"] {
            let mut value = json!(kept);
            ScreeningErrorCode.downgrade(&mut value);
            assert_eq!(value, json!(kept));
        }
        let mut doc = json!({"components": {"schemas": {BODY: {"allOf": [
            {"$ref": "#/components/schemas/ErrorEnvelope"},
            {"properties": {"code": {"enum": ["corpo_malformado", "cpf_irregular"]}}}
        ]}}}});
        ScreeningErrorCode.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"][BODY]["allOf"][1]["properties"]["code"]["enum"],
            json!(["corpo_malformado"])
        );
    }
}
