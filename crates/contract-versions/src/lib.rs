//! The dated versions of the HTTP contract (Stripe's model): every answer names its version in
//! `Sales-Version`, a caller asks for one or gets the one pinned to its credential, and the
//! handlers and the domain write only the newest. Each breaking change is one module of
//! [`changes`] that turns the newest value into the previous version's; an older version's
//! answers, events and OpenAPI document are the newest passed through the changes after it.

pub mod changes;
pub mod paths;
mod text;
mod version;

pub use version::{ApiVersion, UnknownVersion};

use changes::{CHANGES, Change, undone_for};
use paths::{Path, Step, occurrences, undo_at};
use serde_json::Value;
use std::collections::HashMap;

/// The changes that apply to one answer, each with the paths of its values there.
type AppliedChanges = Vec<(&'static dyn Change, Vec<Path>)>;

/// One answer of an operation at a path: its method (lower case, as OpenAPI writes it), its
/// status, and the changes that apply to it.
struct Answer {
    method: String,
    status: u16,
    changes: AppliedChanges,
}

/// Where each change applies in each answer, found once from the newest document. Looked up by
/// path template (`/proposal/byIdentifier/{identificador}`) without building a key: every request
/// asks.
#[derive(Default)]
pub struct AnswerShapes {
    by_path: HashMap<String, Vec<Answer>>,
    /// The document's templates by their shape (`/protocol/{}`): a router may name a path's
    /// parameters otherwise than the document does (`{protocol}` for `{protocolo}`).
    by_shape: HashMap<String, String>,
}

/// A path template with its parameters' names left out: `/proposal/{}/events`.
fn shape_of(template: &str) -> String {
    let mut shape = String::with_capacity(template.len());
    let mut in_name = false;
    for c in template.chars() {
        match c {
            '{' => {
                in_name = true;
                shape.push('{');
            }
            '}' => {
                in_name = false;
                shape.push('}');
            }
            _ if in_name => {}
            _ => shape.push(c),
        }
    }
    shape
}

impl std::fmt::Debug for AnswerShapes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerShapes")
            .field("paths", &self.by_path.len())
            .finish()
    }
}

impl AnswerShapes {
    /// Reads every operation's JSON answers in the newest `doc`.
    pub fn from_document(doc: &Value) -> Self {
        let mut by_path: HashMap<String, Vec<Answer>> = HashMap::new();
        let operations = doc
            .get("paths")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .flat_map(|(path, item)| {
                item.as_object()
                    .into_iter()
                    .flatten()
                    .map(move |(method, operation)| (path, method, operation))
            });
        for (path, method, operation) in operations {
            let answers = operation
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten();
            for (status, answer) in answers {
                let (Ok(status), Some(schema)) = (
                    status.parse::<u16>(),
                    answer.pointer("/content/application~1json/schema"),
                ) else {
                    continue;
                };
                let changes: AppliedChanges = CHANGES
                    .iter()
                    .map(|change| (*change, targets_in(doc, schema, *change)))
                    .filter(|(_, found)| !found.is_empty())
                    .collect();
                if !changes.is_empty() {
                    by_path.entry(path.clone()).or_default().push(Answer {
                        method: method.to_ascii_lowercase(),
                        status,
                        changes,
                    });
                }
            }
        }
        let by_shape = by_path.keys().map(|path| (shape_of(path), path.clone())).collect();
        Self { by_path, by_shape }
    }

    /// Whether a caller of `version` reads this answer differently from the newest: when not, its
    /// body goes out as written, never parsed.
    pub fn differs(&self, version: ApiVersion, method: &str, path: &str, status: u16) -> bool {
        self.changes_of(method, path, status)
            .is_some_and(|changes| changes.iter().any(|(c, _)| c.introduced_in() > version))
    }

    /// Turns the newest `body` of this answer into `version`'s shape.
    pub fn downgrade(&self, version: ApiVersion, method: &str, path: &str, status: u16, body: &mut Value) {
        let Some(changes) = self.changes_of(method, path, status) else {
            return;
        };
        for change in undone_for(version) {
            for (_, paths) in changes.iter().filter(|(c, _)| same(*c, change)) {
                for path in paths {
                    undo_at(body, change, path);
                }
            }
        }
    }

    /// The newest `body` (text) of this answer in `version`'s shape, rewritten only along the
    /// changed members' paths; `None` when the body is not JSON (it goes out as written).
    pub fn downgrade_text(
        &self,
        version: ApiVersion,
        method: &str,
        path: &str,
        status: u16,
        body: &str,
    ) -> Option<String> {
        let changes = self.changes_of(method, path, status)?;
        let pending: Vec<text::Pending<'_>> = undone_for(version)
            .flat_map(|change| {
                changes
                    .iter()
                    .filter(move |(c, _)| same(*c, change))
                    .flat_map(move |(_, paths)| paths.iter().map(move |p| (change, p.as_slice())))
            })
            .collect();
        let mut out = String::with_capacity(body.len() + 64);
        if text::rewrite(body, &pending, &mut out).is_some() {
            return Some(out);
        }
        // What the text walk cannot borrow (a key with an escape): the whole body as a value.
        let mut value: Value = serde_json::from_str(body).ok()?;
        self.downgrade(version, method, path, status, &mut value);
        serde_json::to_string(&value).ok()
    }

    fn changes_of(&self, method: &str, path: &str, status: u16) -> Option<&AppliedChanges> {
        // The router's template is the document's for nearly every route (route 7's too): looked
        // up as it is; by its shape only when that misses.
        let answers = match self.by_path.get(path) {
            Some(answers) => answers,
            None if path.contains('{') => self.by_path.get(self.by_shape.get(&shape_of(path))?)?,
            None => return None,
        };
        answers
            .iter()
            .find(|a| a.status == status && a.method.eq_ignore_ascii_case(method))
            .map(|a| &a.changes)
    }
}

/// The paths of a change's targets inside an instance of `schema`.
fn targets_in(doc: &Value, schema: &Value, change: &dyn Change) -> Vec<Path> {
    let mut found = Vec::new();
    for target in change.answer_targets() {
        for mut path in occurrences(doc, schema, target.schema) {
            if let Some(member) = target.member {
                path.push(Step::Member(member.to_owned()));
            }
            if !found.contains(&path) {
                found.push(path);
            }
        }
    }
    found
}

/// Whether two references name the same change (each is one static value).
fn same(a: &dyn Change, b: &dyn Change) -> bool {
    a.name() == b.name()
}

/// Whether an event of `kind` reads differently for some older version than the newest.
pub fn event_may_differ(kind: &str) -> bool {
    CHANGES
        .iter()
        .any(|change| change.event_targets().iter().any(|t| t.kind == kind))
}

/// The event body (the newest, as queued) as a subscription of `version` receives it.
pub fn downgrade_event(version: ApiVersion, kind: &str, body: &mut Value) {
    for change in undone_for(version) {
        for target in change.event_targets().iter().filter(|t| t.kind == kind) {
            let path: Path = target.path.iter().map(|m| Step::Member((*m).to_owned())).collect();
            undo_at(body, change, &path);
        }
    }
}

/// The bodies of one event for each older version whose body differs from the newest `body`
/// (text as queued): (version, text). Empty for nearly every event, which every version reads
/// alike.
pub fn event_bodies_of_older_versions(kind: &str, body: &str) -> Vec<(ApiVersion, String)> {
    if !event_may_differ(kind) {
        return Vec::new();
    }
    let Ok(newest) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    let mut bodies = Vec::new();
    for version in ApiVersion::ALL.into_iter().filter(|v| *v < ApiVersion::NEWEST) {
        let mut older = newest.clone();
        downgrade_event(version, kind, &mut older);
        if older != newest {
            bodies.push((version, older.to_string()));
        }
    }
    bodies
}

/// The OpenAPI document of `version`: the newest passed through every change after it, its
/// `info` naming the version.
pub fn document_for(version: ApiVersion, newest: &Value) -> Value {
    let mut doc = newest.clone();
    for change in undone_for(version) {
        change.document(&mut doc);
    }
    if let Some(info) = doc.get_mut("info").and_then(Value::as_object_mut) {
        info.insert("x-sales-version".to_owned(), Value::from(version.as_str()));
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A document with route 7's shape in small: a status and a customer.
    fn doc() -> Value {
        json!({
            "info": {"title": "t", "version": "1"},
            "paths": {"/proposal/{id}": {"get": {"responses": {
                "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Detail"}}}},
                "404": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }}}},
            "components": {"schemas": {
                "ProposalStatus": {"type": "string", "enum": ["NOVO", "CANCELADO", "EXPIRADO"]},
                "CustomerView": {"type": "object", "properties": {"birthday": {"type": "string", "format": "date"}, "number": {"type": ["string", "null"]}}},
                "Detail": {"type": "object", "properties": {"data": {"type": "object", "properties": {
                    "proposal": {"type": "object", "properties": {"status": {"$ref": "#/components/schemas/ProposalStatus"}}},
                    "customer": {"$ref": "#/components/schemas/CustomerView"}
                }}}},
                "Error": {"type": "object", "properties": {"code": {"type": "string"}}}
            }}
        })
    }

    fn detail() -> Value {
        json!({"data": {"proposal": {"status": "EXPIRADO"}, "customer": {"birthday": "1990-05-01", "number": "S/N"}}})
    }

    #[test]
    fn each_version_reads_the_same_answer_in_its_own_shape() {
        let shapes = AnswerShapes::from_document(&doc());
        let read = |version| {
            let mut body = detail();
            shapes.downgrade(version, "GET", "/proposal/{id}", 200, &mut body);
            body
        };
        assert_eq!(read(ApiVersion::V2026_12_01), detail());
        assert_eq!(
            read(ApiVersion::V2026_11_29),
            json!({"data": {"proposal": {"status": "EXPIRADO"}, "customer": {
                "birthday": "Tue May 01 1990 00:00:00 GMT+0000 (Coordinated Universal Time)", "number": null}}})
        );
        assert_eq!(read(ApiVersion::V2026_11_21)["data"]["proposal"]["status"], "CANCELADO");
    }

    /// The document with a list of details beside the one, for the walk through items.
    fn doc_with_a_list() -> Value {
        let mut doc = doc();
        doc["paths"]["/proposals"] = json!({"get": {"responses": {"200": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"data": {"type": "array", "items": {"$ref": "#/components/schemas/Detail"}}}
        }}}}}}});
        doc
    }

    #[test]
    fn the_text_rewrite_changes_only_the_changed_members_and_keeps_the_rest_as_written() {
        let shapes = AnswerShapes::from_document(&doc());
        // Spaces, member order, a number's digits and an escaped text: all as the handler wrote them.
        let body = r#"{"zeta": 1.50, "data": {"proposal": {"status": "EXPIRADO", "note": "a \"b\""}, "customer": {"number": "S/N", "birthday": "1990-05-01", "city": "Sé"}}, "alpha": [1, 2]}"#;
        let read = shapes
            .downgrade_text(ApiVersion::V2026_11_21, "get", "/proposal/{id}", 200, body)
            .unwrap_or_default();
        assert_eq!(
            read,
            r#"{"zeta":1.50,"data":{"proposal":{"status":"CANCELADO","note":"a \"b\""},"customer":{"number":null,"birthday":"Tue May 01 1990 00:00:00 GMT+0000 (Coordinated Universal Time)","city":"Sé"}},"alpha":[1, 2]}"#
        );
        // The same as the whole body parsed and changed as a value.
        let mut whole: Value = serde_json::from_str(body).unwrap_or_default();
        shapes.downgrade(ApiVersion::V2026_11_21, "get", "/proposal/{id}", 200, &mut whole);
        assert_eq!(serde_json::from_str::<Value>(&read).ok(), Some(whole));
    }

    #[test]
    fn the_text_rewrite_reaches_every_item_and_passes_over_what_is_absent_or_null() {
        let shapes = AnswerShapes::from_document(&doc_with_a_list());
        let body = r#"{"data":[{"data":{"proposal":{"status":"EXPIRADO"},"customer":null}},{"data":{"proposal":{"status":"NOVO"}}},{}]}"#;
        let read = shapes.downgrade_text(ApiVersion::V2026_11_21, "get", "/proposals", 200, body);
        assert_eq!(
            read.as_deref(),
            Some(
                r#"{"data":[{"data":{"proposal":{"status":"CANCELADO"},"customer":null}},{"data":{"proposal":{"status":"NOVO"}}},{}]}"#
            )
        );
        let newest = shapes.downgrade_text(ApiVersion::NEWEST, "get", "/proposals", 200, body);
        assert_eq!(newest.as_deref(), Some(body));
    }

    #[test]
    fn a_key_the_text_walk_cannot_borrow_is_rewritten_through_the_whole_value_and_what_is_not_json_is_left() {
        let shapes = AnswerShapes::from_document(&doc());
        let body = r#"{"d\u0061ta":{"proposal":{"status":"EXPIRADO"}}}"#;
        let read = shapes
            .downgrade_text(ApiVersion::V2026_11_21, "get", "/proposal/{id}", 200, body)
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        assert_eq!(read, Some(json!({"data": {"proposal": {"status": "CANCELADO"}}})));
        for broken in ["{\"data\": {\"proposal\": ", "texto", ""] {
            assert_eq!(
                shapes.downgrade_text(ApiVersion::V2026_11_21, "get", "/proposal/{id}", 200, broken),
                None,
                "{broken:?}"
            );
        }
    }

    #[test]
    fn a_member_a_version_added_is_left_out_of_the_older_answer_and_the_rest_kept_in_order() {
        let mut doc = doc();
        doc["paths"]["/pages"] = json!({"get": {"responses": {"200": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"document": {"type": "array"}, "data": {"$ref": "#/components/schemas/ListPageDto"}}
        }}}}}}});
        doc["components"]["schemas"]["ListPageDto"] = json!({"type": "object", "properties": {"nextCursor": {"type": "string"}, "has_more": {"type": "boolean"}}});
        let shapes = AnswerShapes::from_document(&doc);
        let body = r#"{"document":[{"id":1}],"data":{"has_more":true,"nextCursor":"1"},"status":"success"}"#;
        let older = shapes.downgrade_text(ApiVersion::V2026_11_29, "get", "/pages", 200, body);
        assert_eq!(
            older.as_deref(),
            Some(r#"{"document":[{"id":1}],"data":{"nextCursor":"1"},"status":"success"}"#)
        );
        let mut whole: Value = serde_json::from_str(body).unwrap_or_default();
        shapes.downgrade(ApiVersion::V2026_11_29, "get", "/pages", 200, &mut whole);
        assert_eq!(whole.to_string(), older.unwrap_or_default());
        let newest = shapes.downgrade_text(ApiVersion::NEWEST, "get", "/pages", 200, body);
        assert_eq!(newest.as_deref(), Some(body));
    }

    #[test]
    fn a_router_naming_a_parameter_otherwise_than_the_document_finds_the_same_answer() {
        let shapes = AnswerShapes::from_document(&doc());
        assert!(shapes.differs(ApiVersion::V2026_11_21, "get", "/proposal/{identifier}", 200));
        let mut body = detail();
        shapes.downgrade(ApiVersion::V2026_11_21, "get", "/proposal/{identifier}", 200, &mut body);
        assert_eq!(body["data"]["proposal"]["status"], "CANCELADO");
        assert!(!shapes.differs(ApiVersion::V2026_11_21, "get", "/proposal/{id}/other", 200));
    }

    #[test]
    fn an_answer_no_change_touches_is_known_not_to_differ() {
        let shapes = AnswerShapes::from_document(&doc());
        assert!(shapes.differs(ApiVersion::V2026_11_29, "get", "/proposal/{id}", 200));
        assert!(!shapes.differs(ApiVersion::V2026_12_01, "get", "/proposal/{id}", 200));
        assert!(!shapes.differs(ApiVersion::V2026_11_21, "get", "/proposal/{id}", 404));
        assert!(!shapes.differs(ApiVersion::V2026_11_21, "get", "/elsewhere", 200));
    }

    #[test]
    fn an_events_body_differs_only_for_the_versions_that_read_it_otherwise() {
        let body = json!({"type": "ALTERAÇÃO_STATUS", "data": {"statusAnterior": "AGUARDANDO ASSINATURA", "statusAtual": "EXPIRADO"}}).to_string();
        let older = event_bodies_of_older_versions("ALTERAÇÃO_STATUS", &body);
        assert_eq!(older.len(), 1, "{older:?}");
        assert_eq!(older[0].0, ApiVersion::V2026_11_21);
        let read: Value = serde_json::from_str(&older[0].1).unwrap_or_default();
        assert_eq!(read["data"]["statusAtual"], "CANCELADO");
        assert_eq!(read["data"]["statusAnterior"], "AGUARDANDO ASSINATURA");
        let cancelled = body.replace("EXPIRADO", "CANCELADO");
        assert!(event_bodies_of_older_versions("ALTERAÇÃO_STATUS", &cancelled).is_empty());
        assert!(event_bodies_of_older_versions("TESTE", &body).is_empty());
    }

    #[test]
    fn an_older_document_declares_the_older_shapes_and_names_its_version() {
        let newest = doc();
        let oldest = document_for(ApiVersion::V2026_11_21, &newest);
        assert_eq!(oldest["info"]["x-sales-version"], "2026-11-21");
        assert_eq!(
            oldest["components"]["schemas"]["ProposalStatus"]["enum"],
            json!(["NOVO", "CANCELADO"])
        );
        assert_eq!(
            oldest["components"]["schemas"]["CustomerView"]["properties"]["number"]["type"],
            json!(["integer", "null"])
        );
        assert_eq!(
            document_for(ApiVersion::NEWEST, &newest)["components"],
            newest["components"]
        );
    }
}
