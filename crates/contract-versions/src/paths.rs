//! Where a named schema sits inside an answer: found once from the newest OpenAPI document, so that
//! a change to a schema reaches every answer that carries it, including routes added later.

use crate::changes::Change;
use serde_json::Value;

/// One step into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    Member(String),
    /// Every element of an array.
    EachItem,
}

/// A way from an answer's root to the values of one schema.
pub type Path = Vec<Step>;

const SCHEMA_REF: &str = "#/components/schemas/";

/// Every path at which an instance of `schema` (a schema object of `doc`) holds a value of the
/// component schema `name`, through `$ref`s, members, array items and `allOf`/`oneOf`/`anyOf`.
pub fn occurrences(doc: &Value, schema: &Value, name: &str) -> Vec<Path> {
    let mut found = Vec::new();
    let mut stack = Vec::new();
    walk(doc, schema, name, &mut Vec::new(), &mut stack, &mut found);
    found
}

fn walk<'d>(
    doc: &'d Value,
    schema: &'d Value,
    name: &str,
    at: &mut Path,
    stack: &mut Vec<&'d str>,
    found: &mut Vec<Path>,
) {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let Some(target) = reference.strip_prefix(SCHEMA_REF) else {
            return;
        };
        if target == name {
            if !found.contains(at) {
                found.push(at.clone());
            }
            return;
        }
        // A schema that holds itself (a tree) is followed once per way down.
        if stack.contains(&target) {
            return;
        }
        if let Some(resolved) = doc.pointer(&format!("/components/schemas/{}", escape(target))) {
            stack.push(target);
            walk(doc, resolved, name, at, stack, found);
            stack.pop();
        }
        return;
    }
    for combinator in ["allOf", "oneOf", "anyOf"] {
        for part in schema.get(combinator).and_then(Value::as_array).into_iter().flatten() {
            walk(doc, part, name, at, stack, found);
        }
    }
    if let Some(members) = schema.get("properties").and_then(Value::as_object) {
        for (member, inner) in members {
            at.push(Step::Member(member.clone()));
            walk(doc, inner, name, at, stack, found);
            at.pop();
        }
    }
    if let Some(items) = schema.get("items") {
        at.push(Step::EachItem);
        walk(doc, items, name, at, stack, found);
        at.pop();
    }
}

/// A JSON pointer's escaping of one token.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Calls `visit` with every value `path` reaches in `value`; a member that is absent (or `null`
/// where an object was expected) reaches nothing.
pub fn each_at(value: &mut Value, path: &[Step], visit: &mut dyn FnMut(&mut Value)) {
    let Some((step, rest)) = path.split_first() else {
        visit(value);
        return;
    };
    match step {
        Step::Member(member) => {
            if let Some(inner) = value.as_object_mut().and_then(|o| o.get_mut(member)) {
                each_at(inner, rest, visit);
            }
        }
        Step::EachItem => {
            for item in value.as_array_mut().into_iter().flatten() {
                each_at(item, rest, visit);
            }
        }
    }
}

/// Undoes `change` at every value `path` reaches in `value`: a member it added is removed from its
/// object (the others keep their order); any other value is turned into the older shape.
pub fn undo_at(value: &mut Value, change: &dyn Change, path: &[Step]) {
    match path.split_last() {
        Some((Step::Member(member), parent)) if change.adds_members() => each_at(value, parent, &mut |object| {
            if let Some(object) = object.as_object_mut() {
                object.shift_remove(member);
            }
        }),
        _ => each_at(value, path, &mut |v| change.downgrade(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"components": {"schemas": {
            "Status": {"type": "string", "enum": ["A", "B"]},
            "Record": {"type": "object", "properties": {"status": {"$ref": "#/components/schemas/Status"}, "id": {"type": "integer"}}},
            "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}, "status": {"$ref": "#/components/schemas/Status"}}},
            "Envelope": {"type": "object", "properties": {
                "document": {"type": "array", "items": {"$ref": "#/components/schemas/Record"}},
                "data": {"oneOf": [{"type": "null"}, {"allOf": [{"$ref": "#/components/schemas/Record"}]}]}
            }}
        }}})
    }

    fn member(name: &str) -> Step {
        Step::Member(name.to_owned())
    }

    #[test]
    fn a_schema_is_found_through_references_items_and_combinators() {
        let doc = doc();
        let found = occurrences(&doc, &json!({"$ref": "#/components/schemas/Envelope"}), "Status");
        assert_eq!(
            found,
            vec![
                vec![member("document"), Step::EachItem, member("status")],
                vec![member("data"), member("status")],
            ]
        );
        assert!(occurrences(&doc, &json!({"type": "string"}), "Status").is_empty());
    }

    #[test]
    fn a_schema_that_holds_itself_is_followed_once_and_the_search_ends() {
        let doc = doc();
        let found = occurrences(&doc, &json!({"$ref": "#/components/schemas/Tree"}), "Status");
        assert!(found.contains(&vec![member("status")]), "{found:?}");
    }

    #[test]
    fn each_at_reaches_every_item_and_skips_what_is_absent() {
        let mut value = json!({"document": [{"status": "A"}, {"status": "B"}, {}], "data": null});
        let mut seen = Vec::new();
        each_at(
            &mut value,
            &[member("document"), Step::EachItem, member("status")],
            &mut |v| seen.push(v.clone()),
        );
        assert_eq!(seen, vec![json!("A"), json!("B")]);
        each_at(&mut value, &[member("data"), member("status")], &mut |_| {
            panic!("nothing there")
        });
    }
}
