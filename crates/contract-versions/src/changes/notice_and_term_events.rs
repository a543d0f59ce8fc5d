//! `2026-12-06`: two event kinds joined the nine of `2026-12-01` (issue 67, decision 273):
//! `AVISO_REGISTRADO` (a notice to the customer sent, or its receipt learned) and
//! `VIGENCIA_RENOVADA` (the contract renewed). A client generated from an older document refuses
//! an unknown kind in an answer's enum (a subscription's `events`), so the older documents list
//! the kinds they had and their deliveries only. No older answer changes: these kinds are never
//! in a proposal's list of status events, and a subscription of an older version receives them
//! only when it asked for them by name (as decision 241's kinds).

use super::newer_event_kinds::hide_event_kinds;
use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct NoticeAndTermEvents;

/// The kinds `2026-12-06` added, each with its delivery's body schema.
const ADDED: [(&str, &str); 2] = [
    ("AVISO_REGISTRADO", "NoticeRecordedEvent"),
    ("VIGENCIA_RENOVADA", "TermRenewedEvent"),
];

impl Change for NoticeAndTermEvents {
    fn name(&self) -> &'static str {
        "notice_and_term_events"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_06
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[]
    }

    fn downgrade(&self, _value: &mut Value) {}

    fn document(&self, doc: &mut Value) {
        hide_event_kinds(doc, &ADDED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_older_documents_list_neither_kind_nor_their_bodies_and_keep_the_rest() {
        let mut doc = json!({
            "webhooks": {"COBRANCA_ALTERADA": {}, "AVISO_REGISTRADO": {}, "VIGENCIA_RENOVADA": {}},
            "components": {"schemas": {
                "EventKind": {"type": "string", "enum": ["COBRANCA_ALTERADA", "AVISO_REGISTRADO", "VIGENCIA_RENOVADA", "TESTE"]},
                "NoticeRecordedEvent": {"properties": {"data": {"$ref": "#/components/schemas/NoticeRecordedData"}}},
                "NoticeRecordedData": {"properties": {"canais": {"items": {"$ref": "#/components/schemas/NoticeChannelData"}}}},
                "NoticeChannelData": {"type": "object"},
                "TermRenewedEvent": {"properties": {"data": {"$ref": "#/components/schemas/TermRenewedData"}}},
                "TermRenewedData": {"type": "object"},
                "ChargeChangedEvent": {"type": "object"}
            }}
        });
        NoticeAndTermEvents.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"]["EventKind"]["enum"],
            json!(["COBRANCA_ALTERADA", "TESTE"])
        );
        assert_eq!(doc["webhooks"], json!({"COBRANCA_ALTERADA": {}}));
        let mut schemas: Vec<&String> = doc["components"]["schemas"]
            .as_object()
            .into_iter()
            .flat_map(|schemas| schemas.keys())
            .collect();
        schemas.sort();
        assert_eq!(schemas, ["ChargeChangedEvent", "EventKind"]);
    }
}
