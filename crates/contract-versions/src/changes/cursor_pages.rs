//! `2026-12-01`: every list pages one way, by `limit` and a `cursor` from the page before, and
//! says whether another page follows: `data.nextCursor` and `data.has_more` on the proposal list,
//! the delivery log, the subscriptions (route 18, which had no pages) and the catalog listings
//! (which skipped rows by `offset` and said nothing of a next page). The older versions' answers
//! go without the members added; their documents declare `offset` where it was, and no
//! `cursor` where there was none. The service still honours `offset` from every caller.

use super::{AnswerTarget, Change};
use crate::ApiVersion;
use crate::paths::escape;
use serde_json::{Value, json};

pub struct CursorPages;

/// The catalog listings, which paged by `offset` before.
const CATALOG_LISTINGS: [(&str, &str); 2] = [
    ("/billingGroup/list", "BillingGroupListEnvelope"),
    ("/product/list", "ProductListEnvelope"),
];

impl Change for CursorPages {
    fn name(&self) -> &'static str {
        "cursor_pages"
    }

    fn introduced_in(&self) -> ApiVersion {
        ApiVersion::V2026_12_01
    }

    fn answer_targets(&self) -> &'static [AnswerTarget] {
        &[
            AnswerTarget {
                schema: "ListPageDto",
                member: Some("has_more"),
            },
            AnswerTarget {
                schema: "HookListDto",
                member: Some("nextCursor"),
            },
            AnswerTarget {
                schema: "HookListDto",
                member: Some("has_more"),
            },
            AnswerTarget {
                schema: "BillingGroupListEnvelope",
                member: Some("data"),
            },
            AnswerTarget {
                schema: "ProductListEnvelope",
                member: Some("data"),
            },
        ]
    }

    fn adds_members(&self) -> bool {
        true
    }

    fn downgrade(&self, _value: &mut Value) {}

    fn document(&self, doc: &mut Value) {
        for (schema, member) in [
            ("ListPageDto", "has_more"),
            ("HookListDto", "nextCursor"),
            ("HookListDto", "has_more"),
            (CATALOG_LISTINGS[0].1, "data"),
            (CATALOG_LISTINGS[1].1, "data"),
        ] {
            remove_member(doc, schema, member);
        }
        // The catalog listings skipped rows by `offset`, declared where `cursor` is now.
        let offsets = [
            json!({"name": "offset", "in": "query", "description": "Registros a pular (padrão 0)", "required": false, "schema": {"type": "integer", "format": "int64"}}),
            json!({"name": "offset", "in": "query", "required": false, "schema": {"type": "integer", "format": "int64"}}),
        ];
        for ((path, _), offset) in CATALOG_LISTINGS.iter().zip(offsets) {
            let parameters = doc
                .pointer_mut(&format!("/paths/{}/get/parameters", escape(path)))
                .and_then(Value::as_array_mut);
            for parameter in parameters.into_iter().flatten() {
                if parameter["name"] == "cursor" {
                    *parameter = offset.clone();
                }
            }
        }
        if let Some(listing) = doc.pointer_mut("/paths/~1billingGroup~1list/get") {
            listing["description"] = json!(
                "`fields`, `conditions[campo]=valor` (igualdade), `limit` (padrão 100, no máximo 1000) e `offset`; em ordem de `id`."
            );
        }
        // Route 18 had no pages: no parameters, so no 400.
        if let Some(hooks) = doc.pointer_mut("/paths/~1hooks/get").and_then(Value::as_object_mut) {
            hooks.shift_remove("parameters");
            hooks.insert(
                "description".into(),
                json!("As assinaturas de eventos do parceiro do chamador (ou da loja, ou da retaguarda)."),
            );
            if let Some(responses) = hooks.get_mut("responses").and_then(Value::as_object_mut) {
                responses.shift_remove("400");
            }
        }
    }
}

/// Takes `member` out of the schema's properties and its required list.
pub(super) fn remove_member(doc: &mut Value, schema: &str, member: &str) {
    let Some(declared) = doc
        .pointer_mut(&format!("/components/schemas/{schema}"))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let Some(properties) = declared.get_mut("properties").and_then(Value::as_object_mut) {
        properties.shift_remove(member);
    }
    let required = declared.get_mut("required").and_then(Value::as_array_mut);
    if let Some(required) = required {
        required.retain(|name| name != member);
        if required.is_empty() {
            declared.shift_remove("required");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_older_document_pages_the_catalog_by_offset_and_lists_subscriptions_without_pages() {
        let mut doc = json!({
            "paths": {
                "/billingGroup/list": {"get": {"description": "novo", "parameters": [
                    {"name": "limit", "in": "query"}, {"name": "cursor", "in": "query"}
                ]}},
                "/hooks": {"get": {"description": "novo", "parameters": [{"name": "limit"}, {"name": "cursor"}],
                    "responses": {"200": {}, "400": {}, "401": {}}}}
            },
            "components": {"schemas": {
                "ListPageDto": {"properties": {"nextCursor": {}, "has_more": {}}, "required": ["has_more"]},
                "HookListDto": {"properties": {"subscriptions": {}, "nextCursor": {}, "has_more": {}}, "required": ["subscriptions", "has_more"]},
                "BillingGroupListEnvelope": {"properties": {"document": {}, "data": {}}, "required": ["document", "data"]}
            }}
        });
        CursorPages.document(&mut doc);
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["ListPageDto"], json!({"properties": {"nextCursor": {}}}));
        assert_eq!(
            schemas["HookListDto"],
            json!({"properties": {"subscriptions": {}}, "required": ["subscriptions"]})
        );
        assert_eq!(schemas["BillingGroupListEnvelope"]["required"], json!(["document"]));
        let listing = &doc["paths"]["/billingGroup/list"]["get"];
        assert_eq!(listing["parameters"][1]["name"], "offset");
        assert!(listing["description"].as_str().is_some_and(|d| d.contains("`offset`")));
        let hooks = &doc["paths"]["/hooks"]["get"];
        assert!(hooks.get("parameters").is_none());
        assert_eq!(hooks["responses"], json!({"200": {}, "401": {}}));
    }
}
