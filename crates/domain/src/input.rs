//! Request bodies as typed members that tolerate what a client may send wrong.
//!
//! A body type is a plain `serde` struct whose members are [`Field`]s: deserialising it never fails
//! on a member that is missing, null or of the wrong JSON type; the member records what arrived.
//! Reading it into the domain's request ([`Reading`]) then reports every bad member at once, with
//! its path (`customer.cpf`) and the codes and messages of [`crate::validation`], so a client
//! learns all its mistakes from one answer.
//!
//! The body types also describe themselves in the OpenAPI document (behind the `openapi` feature):
//! their members' doc comments are its descriptions, so they are written in Portuguese, as the
//! contract is; a container's Portuguese description is given in its `schema` attribute.
//!
//! ```
//! use domain::input::{Field, Reading};
//! use domain::validation::Violations;
//! use domain::values::Cpf;
//!
//! #[derive(serde::Deserialize)]
//! struct Body {
//!     cpf: Field<String>,
//!     ativo: Field<bool>,
//! }
//!
//! let body: Body = serde_json::from_str(r#"{"cpf": "123.456.789-00", "ativo": "sim"}"#).unwrap();
//! let mut v = Violations::new();
//! let mut r = Reading::root(&mut v);
//! assert!(r.parse("cpf", body.cpf, Cpf::parse).is_none());
//! assert!(r.optional_bool("ativo", body.ativo).is_none());
//! let found: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
//! assert_eq!(found, [("cpf", "cpf_digito"), ("ativo", "tipo_invalido")]);
//! ```

use crate::validation::{Rejection, Violations, codes};
use serde::de::Visitor;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// One member of a request body as it arrived.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Field<T> {
    /// Absent or `null`: the contract treats both alike.
    #[default]
    Missing,
    /// Of the expected JSON type.
    Given(T),
    /// Present but of another JSON type (a number where text was expected, say).
    WrongType,
}

impl<T> Field<T> {
    /// The value, when one of the right type arrived.
    pub fn given(self) -> Option<T> {
        match self {
            Field::Given(value) => Some(value),
            _ => None,
        }
    }
}

impl<T: Shape> Field<T> {
    /// Classifies a JSON value.
    pub fn from_json(value: Value) -> Self {
        if value.is_null() {
            return Field::Missing;
        }
        T::from_json(value).map_or(Field::WrongType, Field::Given)
    }
}

/// Absent members arrive here too (serde asks a missing member for an option), so a body struct
/// needs no `#[serde(default)]`.
impl<'de, T: Shape> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_option(MemberVisitor(std::marker::PhantomData))
    }
}

struct MemberVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Shape> Visitor<'de> for MemberVisitor<T> {
    type Value = Field<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Field::Missing)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Field::Missing)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Value::deserialize(deserializer).map(Field::from_json)
    }
}

/// A type a member may hold, with the JSON values it accepts.
pub trait Shape: Sized {
    /// `None` when the value is of another JSON type.
    fn from_json(value: Value) -> Option<Self>;
}

impl Shape for String {
    fn from_json(value: Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(text),
            _ => None,
        }
    }
}

impl Shape for bool {
    fn from_json(value: Value) -> Option<Self> {
        value.as_bool()
    }
}

/// A JSON integer: a float, a string or a number beyond `i64` is of another type.
impl Shape for i64 {
    fn from_json(value: Value) -> Option<Self> {
        value.as_i64()
    }
}

impl<T: Shape> Shape for Vec<Field<T>> {
    fn from_json(value: Value) -> Option<Self> {
        match value {
            Value::Array(items) => Some(items.into_iter().map(Field::from_json).collect()),
            _ => None,
        }
    }
}

/// Text that clients also send as a JSON number (`"1000"` or `1000`): account numbers, street
/// numbers. Negative and fractional numbers are of another type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOrNumber(pub String);

/// Its schema: text, or a non-negative integer (what [`Shape::from_json`] accepts).
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for TextOrNumber {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String))
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
            .description(Some("Texto, ou inteiro não negativo"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for TextOrNumber {}

impl Shape for TextOrNumber {
    fn from_json(value: Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(Self(text)),
            Value::Number(n) if n.is_u64() => Some(Self(n.to_string())),
            _ => None,
        }
    }
}

/// Makes a body struct (every member a [`Field`]) a [`Shape`]: a JSON object,
/// whose members are read by name; anything else (an array too) is of another type.
#[macro_export]
macro_rules! json_object {
    ($($body:ty),+ $(,)?) => {$(
        impl $crate::input::Shape for $body {
            fn from_json(value: serde_json::Value) -> Option<Self> {
                match value {
                    serde_json::Value::Object(_) => serde_json::from_value(value).ok(),
                    _ => None,
                }
            }
        }
    )+};
}

/// Declares a request body whose every member is named on the wire once: its identifier, or the
/// literal after `as` (what serde reads it by); `named()` gives each member beside that name, for
/// [`Reading`]'s paths, so no reading restates a member's name. The body is a JSON object
/// ([`json_object!`]); `=> Named` names the struct of named members.
///
/// ```
/// domain::wire_body! {
///     /// A body.
///     pub struct Body => BodyMembers {
///         full_name as "fullName": domain::input::Field<String>,
///         cpf: domain::input::Field<String>,
///     }
/// }
/// let body: Body = domain::input::body(serde_json::json!({"fullName": "Ana", "cpf": 1})).unwrap();
/// let named = body.named();
/// assert_eq!(named.full_name, ("fullName", domain::input::Field::Given("Ana".to_owned())));
/// assert_eq!(named.cpf, ("cpf", domain::input::Field::WrongType));
/// ```
#[macro_export]
macro_rules! wire_body {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident => $named:ident {
            $(
                $(#[$member_meta:meta])*
                // `tt`, not `literal`: a derive (utoipa's) reads the rename's token as it is.
                $member:ident $(as $wire:tt)? : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, serde::Deserialize)]
        $vis struct $name {
            $(
                $(#[$member_meta])*
                $(#[serde(rename = $wire)])?
                pub $member: $ty,
            )*
        }

        /// Each member of the body beside its name on the wire.
        $vis struct $named {
            $(pub $member: (&'static str, $ty),)*
        }

        impl $name {
            /// Each member beside its name on the wire (the one spelling, the declaration's).
            pub fn named(self) -> $named {
                $named {
                    $($member: ($crate::wire_body!(@name $member $(, $wire)?), self.$member),)*
                }
            }
        }

        $crate::json_object!($name);
    };
    (@name $member:ident) => {
        stringify!($member)
    };
    (@name $member:ident, $wire:literal) => {
        $wire
    };
}

/// Why a whole body was refused before any member was read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("o corpo da requisição deve ser um objeto JSON")]
pub struct NotAnObject;

/// Reads a request body: an object of the body type, or [`NotAnObject`].
pub fn body<T: Shape>(value: Value) -> Result<T, NotAnObject> {
    T::from_json(value).ok_or(NotAnObject)
}

/// One value read from a path or query parameter: the value, or its rejection under `name`.
pub fn parameter<T>(name: &str, parsed: Result<T, Rejection>) -> Result<T, Violations> {
    let mut v = Violations::new();
    v.check(name, parsed).ok_or(v)
}

/// A positive code given as a path parameter (`productCode`, `integrationCode`); anything else is
/// of the wrong type, named by `name`.
pub fn positive_code(name: &str, raw: &str) -> Result<i32, Violations> {
    match raw.trim().parse::<i32>() {
        Ok(code) if code > 0 => Ok(code),
        _ => {
            let mut v = Violations::new();
            v.add(name, codes::WRONG_TYPE, format!("{name} deve ser um inteiro positivo"));
            Err(v)
        }
    }
}

/// The longest text a member takes when its rule names no maximum of its own (tokens and codes
/// fit; what a person writes has a smaller maximum, [`limits`]).
pub const MAX_TEXT_CHARS: usize = 4_000;

/// The maximum length, in characters, of each kind of free text a person writes (decision 119:
/// what a Brazilian form allows, rounded up where a registry's own field is longer).
pub mod limits {
    /// A person's or a product's name (the civil registry's long names fit).
    pub const NAME: usize = 120;
    pub const PROFESSION: usize = 80;
    pub const NATIONALITY: usize = 60;
    /// The street (logradouro), as the Correios' CEP base writes the longest ones.
    pub const STREET: usize = 120;
    pub const COMPLEMENT: usize = 60;
    pub const NEIGHBOURHOOD: usize = 60;
    pub const CITY: usize = 60;
    /// A house number, or "S/N", "KM 12", a lot and block.
    pub const HOUSE_NUMBER: usize = 20;
    /// Why a proposal moved, a medication described: a paragraph.
    pub const REASON: usize = 500;
    /// A description of a billing group or a medication.
    pub const DESCRIPTION: usize = 500;
}

/// Query strings with more parameters than this are refused at once: no listing takes more than
/// a dozen, and each one read costs something.
pub const MAX_QUERY_PARAMETERS: usize = 32;

/// Refuses a query string with more than [`MAX_QUERY_PARAMETERS`] parameters, in one short error
/// (whatever their number, so that a long repeated query costs one count, not one error each).
pub fn bounded_query(params: &[(String, String)]) -> Result<(), Violations> {
    if params.len() <= MAX_QUERY_PARAMETERS {
        return Ok(());
    }
    let mut v = Violations::new();
    v.add(
        "query",
        codes::TOO_MANY,
        format!(
            "a consulta tem {} parâmetros; o máximo é {MAX_QUERY_PARAMETERS}",
            params.len()
        ),
    );
    Err(v)
}

/// Reads members into value types, recording each failure under its path (`customer.cpf`,
/// `bank[0].nome`). Messages name the member as the client wrote it.
pub struct Reading<'v> {
    violations: &'v mut Violations,
    prefix: String,
}

impl<'v> Reading<'v> {
    /// The body's top level.
    pub fn root(violations: &'v mut Violations) -> Self {
        Self {
            violations,
            prefix: String::new(),
        }
    }

    /// The path of a member at this level.
    pub fn path(&self, name: &str) -> String {
        format!("{}{}", self.prefix, name)
    }

    /// Records a failure of a member at this level.
    pub fn add(&mut self, name: &str, code: &'static str, message: impl Into<String>) {
        let path = self.path(name);
        self.violations.add(path, code, message);
    }

    /// Keeps a parsed value or records its rejection under the member's path.
    pub fn check<T>(&mut self, name: &str, parsed: Result<T, Rejection>) -> Option<T> {
        let path = self.path(name);
        self.violations.check(&path, parsed)
    }

    /// The violations and this level's prefix, for rules that check several members together
    /// (a bank account's parts).
    pub fn at_this_level(&mut self) -> (&mut Violations, &str) {
        (&mut *self.violations, &self.prefix)
    }

    /// Whether anything was recorded so far (at any level).
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
    }

    fn missing(&mut self, name: &str) {
        self.add(name, codes::REQUIRED, format!("{name} é obrigatório"));
    }

    fn wrong(&mut self, name: &str, expected: &str) {
        self.add(name, codes::WRONG_TYPE, format!("{name} deve ser {expected}"));
    }

    /// A required member of any type: missing is recorded; a wrong type is recorded as `expected`.
    fn required<T>(&mut self, name: &str, field: Field<T>, expected: &str) -> Option<T> {
        match field {
            Field::Given(value) => Some(value),
            Field::Missing => {
                self.missing(name);
                None
            }
            Field::WrongType => {
                self.wrong(name, expected);
                None
            }
        }
    }

    fn optional<T>(&mut self, name: &str, field: Field<T>, expected: &str) -> Option<T> {
        match field {
            Field::Missing => None,
            other => self.required(name, other, expected),
        }
    }

    /// A required string, as sent.
    pub fn string(&mut self, name: &str, field: Field<String>) -> Option<String> {
        let text = self.required(name, field, "texto")?;
        self.storable(name, text)
    }

    /// An optional string, as sent.
    fn optional_string(&mut self, name: &str, field: Field<String>) -> Option<String> {
        let text = self.optional(name, field, "texto")?;
        self.storable(name, text)
    }

    /// Text the store can keep: PostgreSQL's text refuses the NUL character, which JSON allows
    /// (`\u0000`), so it is refused here, naming the member, rather than failing the write.
    fn storable(&mut self, name: &str, text: String) -> Option<String> {
        if text.contains('\0') {
            self.add(
                name,
                codes::INVALID_VALUE,
                format!("{name} não pode conter o caractere nulo"),
            );
            return None;
        }
        Some(text)
    }

    /// At most `max` characters (after trimming), else recorded under the member.
    fn within(&mut self, name: &str, text: String, max: usize) -> Option<String> {
        // Counting stops one past the maximum: a huge text costs no more than a long one.
        if text.chars().nth(max).is_some() {
            self.add(
                name,
                codes::TOO_LONG,
                format!("{name} deve ter no máximo {max} caracteres"),
            );
            return None;
        }
        Some(text)
    }

    /// A required string that is not blank, trimmed, of at most [`MAX_TEXT_CHARS`] characters.
    pub fn text(&mut self, name: &str, field: Field<String>) -> Option<String> {
        self.text_within(name, field, MAX_TEXT_CHARS)
    }

    /// A required string that is not blank, trimmed, of at most `max` characters.
    pub fn text_within(&mut self, name: &str, field: Field<String>, max: usize) -> Option<String> {
        let text = self.string(name, field)?;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            self.add(name, codes::REQUIRED, format!("{name} não pode ser vazio"));
            return None;
        }
        self.within(name, trimmed.to_owned(), max)
    }

    /// An optional non-blank text, trimmed, of at most [`MAX_TEXT_CHARS`] characters; blank
    /// counts as absent.
    pub fn optional_text(&mut self, name: &str, field: Field<String>) -> Option<String> {
        self.optional_text_within(name, field, MAX_TEXT_CHARS)
    }

    /// An optional non-blank text, trimmed, of at most `max` characters; blank counts as absent.
    pub fn optional_text_within(&mut self, name: &str, field: Field<String>, max: usize) -> Option<String> {
        let text = self
            .optional_string(name, field)
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())?;
        self.within(name, text, max)
    }

    /// A required string run through a value type's parser.
    pub fn parse<T>(
        &mut self,
        name: &str,
        field: Field<String>,
        parse: impl FnOnce(&str) -> Result<T, Rejection>,
    ) -> Option<T> {
        let raw = self.string(name, field)?;
        self.check(name, parse(&raw))
    }

    /// The same on an optional string.
    pub fn parse_optional<T>(
        &mut self,
        name: &str,
        field: Field<String>,
        parse: impl FnOnce(&str) -> Result<T, Rejection>,
    ) -> Option<T> {
        let raw = self.optional_string(name, field)?;
        self.check(name, parse(&raw))
    }

    /// A required boolean.
    pub fn boolean(&mut self, name: &str, field: Field<bool>) -> Option<bool> {
        self.required(name, field, "booleano (true ou false)")
    }

    /// An optional boolean.
    pub fn optional_bool(&mut self, name: &str, field: Field<bool>) -> Option<bool> {
        self.optional(name, field, "booleano (true ou false)")
    }

    /// A required JSON integer (not a float, not a string).
    pub fn integer(&mut self, name: &str, field: Field<i64>) -> Option<i64> {
        self.required(name, field, "um número inteiro")
    }

    pub fn optional_integer(&mut self, name: &str, field: Field<i64>) -> Option<i64> {
        self.optional(name, field, "um número inteiro")
    }

    /// A required positive integer that fits a database `INTEGER` (codes of products, groups).
    pub fn code(&mut self, name: &str, field: Field<i64>) -> Option<i32> {
        let n = self.integer(name, field)?;
        match i32::try_from(n) {
            Ok(code) if code > 0 => Some(code),
            _ => {
                self.add(
                    name,
                    codes::INVALID_VALUE,
                    format!("{name} deve ser um inteiro positivo"),
                );
                None
            }
        }
    }

    /// A required text that may also arrive as a non-negative JSON integer; trimmed, not blank,
    /// of at most [`limits::HOUSE_NUMBER`] characters (numbers of houses, accounts, agencies).
    pub fn text_or_number(&mut self, name: &str, field: Field<TextOrNumber>) -> Option<String> {
        let TextOrNumber(text) = self.required(name, field, "texto ou número inteiro não negativo")?;
        let text = self.storable(name, text)?;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            self.add(name, codes::REQUIRED, format!("{name} não pode ser vazio"));
            return None;
        }
        self.within(name, trimmed.to_owned(), limits::HOUSE_NUMBER)
    }

    /// [`Self::text_or_number`] when present; `None` when absent or `null`.
    pub fn optional_text_or_number(&mut self, name: &str, field: Field<TextOrNumber>) -> Option<String> {
        match field {
            Field::Missing => None,
            other => self.text_or_number(name, other),
        }
    }

    /// A required nested object, read by `read` with the object's path as prefix.
    pub fn object<T, R>(
        &mut self,
        name: &str,
        field: Field<T>,
        read: impl FnOnce(T, &mut Reading<'_>) -> Option<R>,
    ) -> Option<R> {
        let inner = self.required(name, field, "um objeto")?;
        self.nested(name, inner, read)
    }

    /// An optional nested object.
    pub fn optional_object<T, R>(
        &mut self,
        name: &str,
        field: Field<T>,
        read: impl FnOnce(T, &mut Reading<'_>) -> Option<R>,
    ) -> Option<R> {
        let inner = self.optional(name, field, "um objeto")?;
        self.nested(name, inner, read)
    }

    fn nested<T, R>(&mut self, name: &str, inner: T, read: impl FnOnce(T, &mut Reading<'_>) -> Option<R>) -> Option<R> {
        let prefix = format!("{}.", self.path(name));
        let mut child = Reading {
            violations: &mut *self.violations,
            prefix,
        };
        read(inner, &mut child)
    }

    /// A required list of objects, each read with its index in the path (`bank[0].`); the items
    /// that read cleanly are kept.
    pub fn objects<T, R>(
        &mut self,
        name: &str,
        field: Field<Vec<Field<T>>>,
        mut read: impl FnMut(T, &mut Reading<'_>) -> Option<R>,
    ) -> Option<Vec<R>> {
        let items = self.required(name, field, "uma lista")?;
        let mut found = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let at = format!("{name}[{i}]");
            match item {
                Field::Given(inner) => found.extend(self.nested(&at, inner, &mut read)),
                _ => self.add(&at, codes::WRONG_TYPE, "deve ser um objeto"),
            }
        }
        Some(found)
    }

    /// An optional list of objects, read as [`Self::objects`]: empty when absent (or null).
    pub fn optional_objects<T, R>(
        &mut self,
        name: &str,
        field: Field<Vec<Field<T>>>,
        read: impl FnMut(T, &mut Reading<'_>) -> Option<R>,
    ) -> Vec<R> {
        match field {
            Field::Missing => Vec::new(),
            given => self.objects(name, given, read).unwrap_or_default(),
        }
    }

    /// A list of strings, each run through a value type's parser (errors name `name[i]`); an
    /// empty list is refused. `None` when absent (recorded if `required`) or when any item failed.
    pub fn parse_list<T>(
        &mut self,
        name: &str,
        field: Field<Vec<Field<String>>>,
        required: bool,
        parse: impl Fn(&str) -> Result<T, Rejection>,
    ) -> Option<Vec<T>> {
        let items = if required {
            self.required(name, field, "uma lista")?
        } else {
            self.optional(name, field, "uma lista")?
        };
        if items.is_empty() {
            self.add(name, codes::REQUIRED, format!("{name} deve ter ao menos um item"));
            return None;
        }
        let mut parsed = Vec::new();
        let mut clean = true;
        for (i, item) in items.into_iter().enumerate() {
            let at = format!("{name}[{i}]");
            match item {
                Field::Given(text) => match self.check(&at, parse(&text)) {
                    Some(value) => parsed.push(value),
                    None => clean = false,
                },
                _ => {
                    self.add(&at, codes::WRONG_TYPE, "deve ser texto");
                    clean = false;
                }
            }
        }
        clean.then_some(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, serde::Deserialize)]
    struct Inner {
        nome: Field<String>,
    }

    #[derive(Debug, serde::Deserialize)]
    struct Outer {
        email: Field<String>,
        password: Field<String>,
        aplicacao: Field<String>,
        numero: Field<TextOrNumber>,
        codigo: Field<i64>,
        inner: Field<Inner>,
        bank: Field<Vec<Field<Inner>>>,
    }

    json_object!(Inner, Outer);

    fn read(value: Value) -> Vec<(String, &'static str)> {
        let body: Outer = body(value).unwrap();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        r.string("email", body.email);
        r.text("password", body.password);
        r.string("aplicacao", body.aplicacao);
        r.text_or_number("numero", body.numero);
        r.code("codigo", body.codigo);
        r.object("inner", body.inner, |i, r| r.text("nome", i.nome));
        r.objects("bank", body.bank, |b, r| r.text("nome", b.nome));
        v.errors().iter().map(|e| (e.field.clone(), e.code)).collect()
    }

    #[test]
    fn reports_missing_mistyped_and_blank_members_with_their_paths() {
        let found = read(json!({
            "email": 12, "password": "   ", "aplicacao": null, "numero": -3, "codigo": 1.5,
            "inner": {"nome": false}, "bank": [{"nome": "Itaú"}, 7, {"nome": ""}]
        }));
        let expected = [
            ("email", codes::WRONG_TYPE),
            ("password", codes::REQUIRED),
            ("aplicacao", codes::REQUIRED),
            ("numero", codes::WRONG_TYPE),
            ("codigo", codes::WRONG_TYPE),
            ("inner.nome", codes::WRONG_TYPE),
            ("bank[1]", codes::WRONG_TYPE),
            ("bank[2].nome", codes::REQUIRED),
        ];
        let expected: Vec<_> = expected.iter().map(|(f, c)| (f.to_string(), *c)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn an_array_is_not_an_object_at_the_top_or_inside() {
        assert_eq!(body::<Outer>(json!([1, 2])).err(), Some(NotAnObject));
        let found = read(json!({
            "email": "a", "password": "b", "aplicacao": "c", "numero": 10, "codigo": 3,
            "inner": ["x"], "bank": {"nome": "x"}
        }));
        let expected = [("inner", codes::WRONG_TYPE), ("bank", codes::WRONG_TYPE)];
        let expected: Vec<_> = expected.iter().map(|(f, c)| (f.to_string(), *c)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_nul_character_is_refused_naming_the_member_wherever_text_is_read() {
        let found = read(json!({
            "email": "a\u{0}b", "password": "x\u{0}", "aplicacao": "c", "numero": "1\u{0}", "codigo": 3,
            "inner": {"nome": "Ana\u{0}"}, "bank": []
        }));
        let expected = ["email", "password", "numero", "inner.nome"];
        let expected: Vec<_> = expected.iter().map(|f| (f.to_string(), codes::INVALID_VALUE)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_number_may_stand_for_text_only_when_a_non_negative_integer() {
        let number: Field<TextOrNumber> = Field::from_json(json!(1000));
        assert_eq!(number, Field::Given(TextOrNumber("1000".into())));
        assert_eq!(Field::<TextOrNumber>::from_json(json!(1.5)), Field::WrongType);
        assert_eq!(Field::<i64>::from_json(json!(u64::MAX)), Field::WrongType);
        assert_eq!(Field::<String>::from_json(Value::Null), Field::Missing);
    }
}
