//! `2026-11-29`: three event kinds joined release 0.1.0's six (`PENDENCIA_ABERTA`,
//! `PENDENCIA_RESPONDIDA`, `COBRANCA_ALTERADA`). A client generated from 0.1.0 refuses a seventh
//! kind, and none of its six means what they do, so a caller of `2026-11-21` is not shown them:
//! a proposal's event list leaves them out (`rowsAffected` counts what is shown), and that
//! version's document lists the six kinds and their deliveries only. A subscription of that
//! version receives a newer kind only when it asked for it by name. Decision 241.

use super::{AnswerTarget, Change};
use crate::ApiVersion;
use serde_json::Value;

pub struct NewerEventKinds;

/// The kinds 0.1.0 did not have, each with its delivery's body schema.
const NEWER: [(&str, &str); 3] = [
    ("PENDENCIA_ABERTA", "PendingOpenedEvent"),
    ("PENDENCIA_RESPONDIDA", "PendingAnsweredEvent"),
    ("COBRANCA_ALTERADA", "ChargeChangedEvent"),
];

fn is_newer(kind: &Value) -> bool {
    kind.as_str()
        .is_some_and(|kind| NEWER.iter().any(|(newer, _)| *newer == kind))
}

impl Change for NewerEventKinds {
    fn name(&self) -> &'static str {
        "newer_event_kinds"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_11_29
    }

    /// The whole envelope of a proposal's events: its list and its count change together.
    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[AnswerTarget {
            schema: "StatusEventsEnvelope",
            member: None,
        }]
    }

    fn downgrade(&self, value: &mut Value) {
        let Some(events) = value.get_mut("document").and_then(Value::as_array_mut) else {
            return;
        };
        let before = events.len();
        events.retain(|event| !is_newer(&event["kind"]));
        if events.len() != before {
            value["rowsAffected"] = serde_json::json!([events.len()]);
        }
    }

    fn document(&self, doc: &mut Value) {
        hide_event_kinds(doc, &NEWER);
    }
}

/// The newest document without the event `kinds` (each with its delivery's body schema): gone
/// from the `EventKind` enum and the webhooks, their bodies' schemas gone with the schemas only
/// those bodies used. For a version whose clients were generated before the kinds existed.
pub(crate) fn hide_event_kinds(doc: &mut Value, kinds: &[(&str, &str)]) {
    if let Some(listed) = doc
        .pointer_mut("/components/schemas/EventKind/enum")
        .and_then(Value::as_array_mut)
    {
        listed.retain(|kind| !kind.as_str().is_some_and(|kind| kinds.iter().any(|(k, _)| *k == kind)));
    }
    let mut removed = Vec::new();
    for (kind, body) in kinds {
        if let Some(webhooks) = doc.get_mut("webhooks").and_then(Value::as_object_mut) {
            webhooks.remove(*kind);
        }
        if let Some(schema) = doc
            .pointer_mut("/components/schemas")
            .and_then(Value::as_object_mut)
            .and_then(|schemas| schemas.remove(*body))
        {
            removed.push(schema);
        }
    }
    // The schemas only those bodies used (their `data`) go with them.
    while let Some(schema) = removed.pop() {
        let mut names = Vec::new();
        references(&schema, &mut names);
        let mut still_used = Vec::new();
        references(doc, &mut still_used);
        for name in names.into_iter().filter(|n| !still_used.contains(n)) {
            if let Some(orphan) = doc
                .pointer_mut("/components/schemas")
                .and_then(Value::as_object_mut)
                .and_then(|schemas| schemas.remove(&name))
            {
                removed.push(orphan);
            }
        }
    }
}

/// The component schemas `value` refers to, by name.
fn references(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            if let Some(name) = members
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                names.push(name.to_owned());
            }
            members.values().for_each(|inner| references(inner, names));
        }
        Value::Array(items) => items.iter().for_each(|inner| references(inner, names)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_proposals_event_list_leaves_the_newer_kinds_out_and_counts_what_it_shows() {
        let mut envelope = json!({"status": "success", "document": [
            {"id": 1, "kind": "PROPOSTA_CRIADA"},
            {"id": 2, "kind": "PENDENCIA_ABERTA"},
            {"id": 3, "kind": "ALTERAÇÃO_STATUS"},
            {"id": 4, "kind": "COBRANCA_ALTERADA"}
        ], "rowsAffected": [4]});
        NewerEventKinds.downgrade(&mut envelope);
        assert_eq!(
            envelope["document"],
            json!([{"id": 1, "kind": "PROPOSTA_CRIADA"}, {"id": 3, "kind": "ALTERAÇÃO_STATUS"}])
        );
        assert_eq!(envelope["rowsAffected"], json!([2]));
        let mut older_only = json!({"document": [{"id": 1, "kind": "TESTE"}], "rowsAffected": [1]});
        let before = older_only.clone();
        NewerEventKinds.downgrade(&mut older_only);
        assert_eq!(older_only, before);
    }

    #[test]
    fn the_older_document_lists_the_six_kinds_of_release_0_1_0_and_their_deliveries() {
        let mut doc = json!({
            "webhooks": {"TESTE": {}, "PENDENCIA_ABERTA": {}, "COBRANCA_ALTERADA": {}},
            "components": {"schemas": {
                "EventKind": {"type": "string", "enum": ["ALTERAÇÃO_STATUS", "PENDENCIA_ABERTA", "PENDENCIA_RESPONDIDA", "COBRANCA_ALTERADA", "TESTE"]},
                "PendingOpenedEvent": {"properties": {"data": {"$ref": "#/components/schemas/PendingOpenedData"}, "type": {"$ref": "#/components/schemas/EventKind"}}},
                "PendingOpenedData": {"properties": {"at": {"$ref": "#/components/schemas/Instant"}}},
                "Instant": {"type": "string"},
                "TestEvent": {"properties": {"at": {"$ref": "#/components/schemas/Instant"}, "type": {"$ref": "#/components/schemas/EventKind"}}}
            }}
        });
        NewerEventKinds.document(&mut doc);
        assert_eq!(
            doc["components"]["schemas"]["EventKind"]["enum"],
            json!(["ALTERAÇÃO_STATUS", "TESTE"])
        );
        assert_eq!(doc["webhooks"], json!({"TESTE": {}}));
        assert!(doc["components"]["schemas"].get("PendingOpenedEvent").is_none());
        assert!(doc["components"]["schemas"].get("PendingOpenedData").is_none());
        for kept in ["TestEvent", "Instant", "EventKind"] {
            assert!(doc["components"]["schemas"].get(kept).is_some(), "{kept}");
        }
    }
}
