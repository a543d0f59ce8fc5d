//! Which changes between two versions of an OpenAPI 3.1 document break a client.
//!
//! A client written against the released document breaks when the new one:
//! - removes an operation (a path's method, or an entry under `webhooks`), a media type it sent
//!   or read, or a parameter;
//! - removes a member of a schema (a request's or an answer's), or a value of an enum;
//! - makes a request need something it did not (a new required member, parameter or body).
//!
//! - breaks the code a generator made from it: removes a named component schema (a type of the
//!   generated client), gives an answer's enum a value the client's closed enum refuses, or
//!   changes a value's type or format (a string that becomes a date, an integer a string).
//!
//! Schemas are compared by meaning, not by position: `$ref`s are followed in each document and
//! `allOf` members merged. Additions (operations, optional members, a request's enum values,
//! answers, components) never break.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;

use serde_json::{Map, Value};

/// The HTTP methods an OpenAPI path item may hold.
const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// One change that breaks a client, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakingChange {
    /// The operation and the way into its schema, as a reader finds it: `POST /proposal/create
    /// request .customer.cpf`.
    pub location: String,
    pub kind: ChangeKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    RemovedOperation,
    RemovedMediaType(String),
    RemovedParameter(String),
    RemovedMember(String),
    RemovedEnumValue(Value),
    NewRequiredMember(String),
    NewRequiredParameter(String),
    NewRequiredBody,
    /// A component schema the released document named (a generated type) is gone.
    RemovedSchema(String),
    /// An answer's enum lists a value the released one did not: a generated closed enum raises.
    NewEnumValue(Value),
    /// A value's JSON type or format changed (`integer` → `string`, no format → `date`).
    ChangedType {
        from: String,
        to: String,
    },
}

impl fmt::Display for BreakingChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let location = &self.location;
        match &self.kind {
            ChangeKind::RemovedOperation => write!(f, "{location}: operação removida"),
            ChangeKind::RemovedMediaType(media) => write!(f, "{location}: tipo de conteúdo {media} removido"),
            ChangeKind::RemovedParameter(name) => write!(f, "{location}: parâmetro {name} removido"),
            ChangeKind::RemovedMember(name) => write!(f, "{location}: membro {name} removido"),
            ChangeKind::RemovedEnumValue(value) => write!(f, "{location}: valor {value} removido do enum"),
            ChangeKind::NewRequiredMember(name) => write!(f, "{location}: membro {name} passou a ser obrigatório"),
            ChangeKind::NewRequiredParameter(name) => {
                write!(f, "{location}: parâmetro {name} passou a ser obrigatório")
            }
            ChangeKind::NewRequiredBody => write!(f, "{location}: corpo passou a ser obrigatório"),
            ChangeKind::RemovedSchema(name) => {
                write!(f, "{location}: esquema {name} removido (um tipo do cliente gerado)")
            }
            ChangeKind::NewEnumValue(value) => {
                write!(
                    f,
                    "{location}: valor {value} novo no enum de uma resposta (o enum gerado o recusa)"
                )
            }
            ChangeKind::ChangedType { from, to } => write!(f, "{location}: tipo mudou de {from} para {to}"),
        }
    }
}

/// What the comparison concludes.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing breaks a client.
    Compatible,
    /// Something breaks, and `info.version`'s major moved: allowed, and listed.
    BreakingWithNewMajor(Vec<BreakingChange>),
    /// Something breaks and the major did not move: the check fails.
    Breaking(Vec<BreakingChange>),
}

/// The version a document declares (`info.version`) was missing or not semantic.
#[derive(Debug, PartialEq, Eq)]
pub struct BadVersion(pub String);

impl fmt::Display for BadVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "info.version não é uma versão semântica: {:?}", self.0)
    }
}

impl std::error::Error for BadVersion {}

impl ChangeKind {
    /// Whether it breaks the code a generator made rather than a hand-written client's reading.
    pub fn breaks_generated_code(&self) -> bool {
        matches!(
            self,
            ChangeKind::RemovedSchema(_) | ChangeKind::NewEnumValue(_) | ChangeKind::ChangedType { .. }
        )
    }
}

/// Compares the released document with the new one, and judges by their `info.version`s.
pub fn verdict(released: &Value, current: &Value) -> Result<Verdict, BadVersion> {
    conclude(released, current, breaking_changes(released, current))
}

fn conclude(released: &Value, current: &Value, changes: Vec<BreakingChange>) -> Result<Verdict, BadVersion> {
    let major = |doc: &Value| {
        let text = doc["info"]["version"].as_str().unwrap_or_default();
        semver::Version::parse(text)
            .map(|v| v.major)
            .map_err(|_| BadVersion(text.to_owned()))
    };
    let (before, after) = (major(released)?, major(current)?);
    Ok(if changes.is_empty() {
        Verdict::Compatible
    } else if after > before {
        Verdict::BreakingWithNewMajor(changes)
    } else {
        Verdict::Breaking(changes)
    })
}

/// Every change from `released` to `current` that breaks a client, in the documents' order.
pub fn breaking_changes(released: &Value, current: &Value) -> Vec<BreakingChange> {
    let mut comparison = Comparison {
        old_doc: released,
        new_doc: current,
        changes: Vec::new(),
        seen: HashSet::new(),
    };
    for (name, _) in entries(&released["components"]["schemas"]) {
        if current["components"]["schemas"].get(name).is_none() {
            comparison.report("components.schemas", ChangeKind::RemovedSchema(name.clone()));
        }
    }
    for (path, old_item) in entries(&released["paths"]) {
        let new_item = &current["paths"][path];
        for method in METHODS {
            let Some(old_op) = old_item.get(method) else {
                continue;
            };
            let location = format!("{} {path}", method.to_uppercase());
            match new_item.get(method) {
                None => comparison.report(&location, ChangeKind::RemovedOperation),
                Some(new_op) => comparison.operation(&location, old_op, new_op, Direction::Request),
            }
        }
    }
    // A webhook's body is read by the subscriber: it is an answer, as a client sees it.
    for (name, old_item) in entries(&released["webhooks"]) {
        let location = format!("webhook {name}");
        match current["webhooks"].get(name) {
            None => comparison.report(&location, ChangeKind::RemovedOperation),
            Some(new_item) => {
                for method in METHODS {
                    if let (Some(old_op), Some(new_op)) = (old_item.get(method), new_item.get(method)) {
                        comparison.operation(&location, old_op, new_op, Direction::Answer);
                    }
                }
            }
        }
    }
    comparison.changes
}

/// Who writes the values a schema describes: the client (a request) or the service (an answer).
/// A new required member breaks only what the client writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Direction {
    Request,
    Answer,
}

struct Comparison<'a> {
    old_doc: &'a Value,
    new_doc: &'a Value,
    changes: Vec<BreakingChange>,
    /// The pairs of named schemas already compared in a direction: a recursive schema is
    /// compared once.
    seen: HashSet<(String, String, Direction)>,
}

impl<'a> Comparison<'a> {
    fn report(&mut self, location: &str, kind: ChangeKind) {
        self.changes.push(BreakingChange {
            location: location.to_owned(),
            kind,
        });
    }

    /// An operation's parameters, body and answers. `body_direction` is who writes its body.
    fn operation(&mut self, location: &str, old_op: &'a Value, new_op: &'a Value, body_direction: Direction) {
        self.parameters(location, old_op, new_op);
        let old_body = self.resolve_in_old(&old_op["requestBody"]);
        let new_body = self.resolve_in_new(&new_op["requestBody"]);
        if body_direction == Direction::Request && is_true(&new_body["required"]) && !is_true(&old_body["required"]) {
            self.report(location, ChangeKind::NewRequiredBody);
        }
        let side = match body_direction {
            Direction::Request => "request",
            Direction::Answer => "body",
        };
        self.contents(&format!("{location} {side}"), old_body, new_body, body_direction);
        for (status, old_answer) in entries(&old_op["responses"]) {
            // An answer the service no longer gives breaks no client; one it still gives must
            // keep its shape.
            if let Some(new_answer) = new_op["responses"].get(status) {
                let old_answer = self.resolve_in_old(old_answer);
                let new_answer = self.resolve_in_new(new_answer);
                self.contents(
                    &format!("{location} {status}"),
                    old_answer,
                    new_answer,
                    Direction::Answer,
                );
            }
        }
    }

    fn parameters(&mut self, location: &str, old_op: &'a Value, new_op: &'a Value) {
        let old_params = self.parameter_map(&old_op["parameters"], self.old_doc);
        let new_params = self.parameter_map(&new_op["parameters"], self.new_doc);
        for (key, old_param) in &old_params {
            let name = format!("{} ({})", key.1, key.0);
            match new_params.get(key) {
                None => self.report(location, ChangeKind::RemovedParameter(name)),
                Some(new_param) => {
                    let at = format!("{location} parameter {}", key.1);
                    self.schema(&at, &old_param["schema"], &new_param["schema"], Direction::Request);
                }
            }
        }
        for (key, new_param) in &new_params {
            let was_required = old_params.get(key).is_some_and(|p| is_true(&p["required"]));
            if is_true(&new_param["required"]) && !was_required {
                let name = format!("{} ({})", key.1, key.0);
                self.report(location, ChangeKind::NewRequiredParameter(name));
            }
        }
    }

    /// An operation's parameters by where and name, references followed.
    fn parameter_map(&self, parameters: &'a Value, doc: &'a Value) -> BTreeMap<(String, String), &'a Value> {
        parameters
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| resolve(doc, p))
            .filter_map(|p| {
                let place = p["in"].as_str()?.to_owned();
                let name = p["name"].as_str()?.to_owned();
                Some(((place, name), p))
            })
            .collect()
    }

    /// A body's or an answer's media types: each the client used must stay, with its shape.
    fn contents(&mut self, location: &str, old: &'a Value, new: &'a Value, direction: Direction) {
        for (media, old_media) in entries(&old["content"]) {
            match new["content"].get(media) {
                None => self.report(location, ChangeKind::RemovedMediaType(media.clone())),
                Some(new_media) => self.schema(location, &old_media["schema"], &new_media["schema"], direction),
            }
        }
    }

    fn schema(&mut self, location: &str, old: &'a Value, new: &'a Value, direction: Direction) {
        if let (Some(old_ref), Some(new_ref)) = (old["$ref"].as_str(), new["$ref"].as_str())
            && !self.seen.insert((old_ref.to_owned(), new_ref.to_owned(), direction))
        {
            return;
        }
        let old = Shape::of(self.old_doc, old);
        let new = Shape::of(self.new_doc, new);
        if let (Some(old_values), Some(new_values)) = (&old.values, &new.values) {
            for value in old_values.iter().filter(|v| !new_values.contains(v)) {
                self.report(location, ChangeKind::RemovedEnumValue((*value).clone()));
            }
            if direction == Direction::Answer {
                for value in new_values.iter().filter(|v| !old_values.contains(v)) {
                    self.report(location, ChangeKind::NewEnumValue((*value).clone()));
                }
            }
        }
        if let (Some(from), Some(to)) = (old.type_text(), new.type_text())
            && from != to
        {
            self.report(location, ChangeKind::ChangedType { from, to });
        }
        // A schema that no longer lists members (widened to any value) removed none.
        if !new.members.is_empty() {
            for name in old.members.keys().filter(|m| !new.members.contains_key(*m)) {
                self.report(location, ChangeKind::RemovedMember(name.clone()));
            }
        }
        if direction == Direction::Request {
            for name in new.required.difference(&old.required) {
                self.report(location, ChangeKind::NewRequiredMember(name.clone()));
            }
        }
        for (name, old_member) in &old.members {
            if let Some(new_member) = new.members.get(name) {
                self.schema(&format!("{location}.{name}"), old_member, new_member, direction);
            }
        }
        if let (Some(old_items), Some(new_items)) = (old.items, new.items) {
            self.schema(&format!("{location}[]"), old_items, new_items, direction);
        }
        if let (Some(old_extra), Some(new_extra)) = (old.additional, new.additional) {
            self.schema(&format!("{location}{{*}}"), old_extra, new_extra, direction);
        }
        // Alternatives are matched by name: a named one that went away is a removed value.
        for (name, old_variant) in &old.variants {
            match new.variants.get(name) {
                Some(new_variant) => self.schema(location, old_variant, new_variant, direction),
                None => self.report(location, ChangeKind::RemovedEnumValue(Value::String(name.clone()))),
            }
        }
    }

    fn resolve_in_old(&self, value: &'a Value) -> &'a Value {
        resolve(self.old_doc, value)
    }

    fn resolve_in_new(&self, value: &'a Value) -> &'a Value {
        resolve(self.new_doc, value)
    }
}

/// A schema as a client meets it: its `allOf` merged, its references followed.
#[derive(Default)]
struct Shape<'a> {
    members: BTreeMap<String, &'a Value>,
    required: BTreeSet<String>,
    values: Option<Vec<&'a Value>>,
    items: Option<&'a Value>,
    additional: Option<&'a Value>,
    /// The named alternatives of a `oneOf` or `anyOf`, by component name.
    variants: BTreeMap<String, &'a Value>,
    /// The JSON types it allows (`type`, a name or a list), when it says.
    types: Option<BTreeSet<String>>,
    format: Option<&'a str>,
}

impl<'a> Shape<'a> {
    /// Its type and format as one text (`integer/int64`, `null|string/date`), when it declares a
    /// type: what a generator makes the value's type from.
    fn type_text(&self) -> Option<String> {
        let types = self.types.as_ref()?;
        let names: Vec<&str> = types.iter().map(String::as_str).collect();
        let mut text = names.join("|");
        if let Some(format) = self.format {
            text.push('/');
            text.push_str(format);
        }
        Some(text)
    }

    fn of(doc: &'a Value, schema: &'a Value) -> Self {
        let mut shape = Shape::default();
        shape.merge(doc, schema, 0);
        shape
    }

    fn merge(&mut self, doc: &'a Value, schema: &'a Value, depth: usize) {
        // A chain of references deeper than this is a cycle of `allOf`s; nothing more to merge.
        if depth > 32 {
            return;
        }
        let schema = resolve(doc, schema);
        for (name, member) in entries(&schema["properties"]) {
            self.members.insert(name.clone(), member);
        }
        for name in schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            self.required.insert(name.to_owned());
        }
        if let Some(values) = schema["enum"].as_array() {
            self.values = Some(values.iter().collect());
        }
        match &schema["type"] {
            Value::String(name) => self.types = Some(BTreeSet::from([name.clone()])),
            Value::Array(names) => {
                self.types = Some(names.iter().filter_map(Value::as_str).map(str::to_owned).collect());
            }
            _ => {}
        }
        if let Some(format) = schema["format"].as_str() {
            self.format = Some(format);
        }
        if let Some(value) = schema.get("const") {
            self.values = Some(vec![value]);
        }
        if let Some(items) = schema.get("items") {
            self.items = Some(items);
        }
        if let Some(extra) = schema.get("additionalProperties").filter(|e| e.is_object()) {
            self.additional = Some(extra);
        }
        for key in ["oneOf", "anyOf"] {
            for variant in schema[key].as_array().into_iter().flatten() {
                if let Some(name) = variant["$ref"].as_str() {
                    self.variants.insert(component_name(name).to_owned(), variant);
                }
            }
        }
        for part in schema["allOf"].as_array().into_iter().flatten() {
            self.merge(doc, part, depth + 1);
        }
    }
}

/// Follows local references (`#/components/...`) to what they name; anything else is itself.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    let mut current = value;
    for _ in 0..32 {
        let Some(pointer) = current["$ref"].as_str().and_then(|r| r.strip_prefix('#')) else {
            return current;
        };
        match doc.pointer(pointer) {
            Some(target) => current = target,
            None => return current,
        }
    }
    current
}

fn component_name(reference: &str) -> &str {
    reference.rsplit('/').next().unwrap_or(reference)
}

fn entries(value: &Value) -> impl Iterator<Item = (&String, &Value)> {
    value.as_object().into_iter().flat_map(Map::iter)
}

fn is_true(value: &Value) -> bool {
    value.as_bool() == Some(true)
}

#[cfg(test)]
mod tests;
