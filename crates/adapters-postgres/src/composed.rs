//! Statements composed from named parts.
//!
//! A one-statement write (route 3's registration, route 5's creation) is a chain of common table
//! expressions written in several modules. Each part here is its own SQL with its own values, each
//! value named where it is used (`{cpf}`) and bound beside its name; diesel numbers the
//! placeholders as the statement is walked, so that no part knows another's positions and a new
//! column is one name and one value in the part that writes it. A value used twice in a part is
//! bound twice.
//!
//! A part whose text names a value it was not given, or is given a value its text never names,
//! fails the statement (a query-builder error, never a panic); the tests compose every statement.
//! The text is the same for every call of a statement, so it is kept prepared per connection like
//! a constant's (`prepared`).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::{Error as DieselError, QueryResult};
use diesel::sql_types::{Bool, Date, Int4, Int8, Nullable, Text, Timestamptz, Untyped};

/// A value bound by a part (nullable in every type: PostgreSQL's types carry no nullability).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Text(Option<&'a str>),
    Int8(Option<i64>),
    Int4(Option<i32>),
    Bool(Option<bool>),
    Date(Option<NaiveDate>),
    Timestamptz(Option<DateTime<Utc>>),
}

macro_rules! value_from {
    ($($rust:ty => $variant:ident),* $(,)?) => {
        $(
            impl<'a> From<$rust> for Value<'a> {
                fn from(v: $rust) -> Self {
                    Value::$variant(Some(v))
                }
            }
            impl<'a> From<Option<$rust>> for Value<'a> {
                fn from(v: Option<$rust>) -> Self {
                    Value::$variant(v)
                }
            }
        )*
    };
}

value_from!(&'a str => Text, i64 => Int8, i32 => Int4, bool => Bool, NaiveDate => Date, DateTime<Utc> => Timestamptz);

/// One named part: its SQL, naming its values `{name}`, and the values by name.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// What the part is called in errors and in a replay's overrides (`registration`).
    name: &'static str,
    sql: &'static str,
    values: Vec<(&'static str, Value<'a>)>,
}

impl<'a> Part<'a> {
    /// A part with values, bound with [`Part::value`].
    pub fn new(name: &'static str, sql: &'static str) -> Self {
        Self {
            name,
            sql,
            values: Vec::new(),
        }
    }

    /// Text with no values: a separator, a part that only reads the others.
    pub fn text(sql: &'static str) -> Self {
        Self::new("", sql)
    }

    /// The value the part's `{name}` stands for.
    pub fn value(mut self, name: &'static str, value: impl Into<Value<'a>>) -> Self {
        self.values.push((name, value.into()));
        self
    }

    /// The part's text split at its names: `(text before, Some(name))`, the last with `None`.
    fn pieces(&self) -> impl Iterator<Item = Result<(&'static str, Option<&'static str>), String>> {
        let mut rest = Some(self.sql);
        std::iter::from_fn(move || {
            let sql = rest.take()?;
            let Some(open) = sql.find('{') else {
                return Some(Ok((sql, None)));
            };
            let Some(close) = sql[open..].find('}') else {
                return Some(Err(format!("parte {}: '{{' sem '}}'", self.name)));
            };
            rest = Some(&sql[open + close + 1..]);
            Some(Ok((&sql[..open], Some(&sql[open + 1..open + close]))))
        })
    }

    fn lookup(&self, name: &str) -> Result<(usize, &Value<'a>), String> {
        self.values
            .iter()
            .enumerate()
            .find(|(_, (n, _))| *n == name)
            .map(|(i, (_, v))| (i, v))
            .ok_or_else(|| format!("parte {}: {{{name}}} sem valor", self.name))
    }

    /// Walks the text, handing `visit` each stretch of text and each value where its name
    /// stands; every value must be used.
    fn walk<'s>(&'s self, mut visit: impl FnMut(Piece<'s, 'a>) -> Result<(), String>) -> Result<(), String> {
        let mut used = vec![false; self.values.len()];
        for piece in self.pieces() {
            let (before, name) = piece?;
            visit(Piece::Text(before))?;
            if let Some(name) = name {
                let (index, value) = self.lookup(name)?;
                used[index] = true;
                visit(Piece::Value(name, value))?;
            }
        }
        match used.iter().position(|u| !u) {
            Some(unused) => Err(format!(
                "parte {}: valor {} nunca usado",
                self.name, self.values[unused].0
            )),
            None => Ok(()),
        }
    }
}

/// What a part's walk meets: text, or a value under its name.
enum Piece<'s, 'a> {
    Text(&'static str),
    Value(&'s str, &'s Value<'a>),
}

/// A statement: its parts, in order.
#[derive(Debug, Clone, Default)]
pub struct Composed<'a> {
    parts: Vec<Part<'a>>,
}

impl<'a> Composed<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn part(mut self, part: Part<'a>) -> Self {
        self.parts.push(part);
        self
    }

    pub fn text(self, sql: &'static str) -> Self {
        self.part(Part::text(sql))
    }

    /// The statement as text, each value written as a literal, except those named in `overrides`
    /// (`("registration.cpf", "lpad(:n::text, 11, '0')")`), written as given: a statement
    /// replayed outside the service (pgbench). An override that names no value is an error, so
    /// that a replay cannot drift from the statement it replays.
    #[cfg(feature = "testing")]
    pub fn replay(&self, overrides: &[(&str, &str)]) -> Result<String, String> {
        let mut out = String::new();
        let mut overridden = vec![false; overrides.len()];
        for part in &self.parts {
            part.walk(|piece| {
                match piece {
                    Piece::Text(text) => out.push_str(text),
                    Piece::Value(name, value) => {
                        let key = format!("{}.{name}", part.name);
                        match overrides.iter().position(|(k, _)| *k == key) {
                            Some(i) => {
                                overridden[i] = true;
                                out.push_str(overrides[i].1);
                            }
                            None => out.push_str(&literal(value)),
                        }
                    }
                }
                Ok(())
            })?;
        }
        match overridden.iter().position(|o| !o) {
            Some(i) => Err(format!("nenhum valor se chama {}", overrides[i].0)),
            None => Ok(out),
        }
    }
}

/// A value as an SQL literal of its type.
#[cfg(feature = "testing")]
fn literal(value: &Value<'_>) -> String {
    fn quoted(s: &str) -> String {
        format!("'{}'", s.replace('\'', "''"))
    }
    fn or_null<T>(v: Option<T>, ty: &str, f: impl FnOnce(T) -> String) -> String {
        match v {
            Some(v) => format!("{}::{ty}", f(v)),
            None => format!("NULL::{ty}"),
        }
    }
    match *value {
        Value::Text(v) => or_null(v, "text", quoted),
        Value::Int8(v) => or_null(v, "int8", |v| v.to_string()),
        Value::Int4(v) => or_null(v, "int4", |v| v.to_string()),
        Value::Bool(v) => or_null(v, "bool", |v| v.to_string()),
        Value::Date(v) => or_null(v, "date", |v| quoted(&v.to_string())),
        Value::Timestamptz(v) => or_null(v, "timestamptz", |v| quoted(&v.to_rfc3339())),
    }
}

impl QueryFragment<Pg> for Composed<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        for part in &self.parts {
            let walked = part.walk(|piece| {
                let (name, bound) = match piece {
                    Piece::Text(text) => {
                        out.push_sql(text);
                        return Ok(());
                    }
                    Piece::Value(name, value) => (
                        name,
                        match value {
                            Value::Text(v) => out.push_bind_param::<Nullable<Text>, _>(v),
                            Value::Int8(v) => out.push_bind_param::<Nullable<Int8>, _>(v),
                            Value::Int4(v) => out.push_bind_param::<Nullable<Int4>, _>(v),
                            Value::Bool(v) => out.push_bind_param::<Nullable<Bool>, _>(v),
                            Value::Date(v) => out.push_bind_param::<Nullable<Date>, _>(v),
                            Value::Timestamptz(v) => out.push_bind_param::<Nullable<Timestamptz>, _>(v),
                        },
                    ),
                };
                // A value that does not bind is named with its part in the statement's error.
                bound.map_err(|e| format!("parte {}: valor {name}: {e}", part.name))
            });
            walked.map_err(|message| DieselError::QueryBuilderError(message.into()))?;
        }
        Ok(())
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl QueryId for Composed<'_> {
    type QueryId = ();
    // Cached by its SQL text and bind types, like `prepared`'s constants.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Composed<'_> {
    type SqlType = Untyped;
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::query_builder::QueryBuilder;

    fn sql_of(c: &Composed<'_>) -> QueryResult<String> {
        let mut builder = diesel::pg::PgQueryBuilder::default();
        c.to_sql(&mut builder, &Pg)?;
        Ok(builder.finish())
    }

    #[test]
    fn each_name_becomes_the_next_placeholder_across_parts() {
        let c = Composed::new()
            .part(
                Part::new("a", "x AS (SELECT {one}, {two}, {one})")
                    .value("one", 1i64)
                    .value("two", "b"),
            )
            .text(", ")
            .part(Part::new("b", "y AS (SELECT {flag})").value("flag", true));
        assert_eq!(
            sql_of(&c).expect("composed"),
            "x AS (SELECT $1, $2, $3), y AS (SELECT $4)"
        );
    }

    #[test]
    fn a_name_without_a_value_or_a_value_without_its_name_fails_the_statement() {
        let missing = Composed::new().part(Part::new("a", "SELECT {one}"));
        assert!(sql_of(&missing).unwrap_err().to_string().contains("{one} sem valor"));
        let unused = Composed::new().part(Part::new("a", "SELECT 1").value("one", 1i64));
        assert!(
            sql_of(&unused)
                .unwrap_err()
                .to_string()
                .contains("valor one nunca usado")
        );
        let open = Composed::new().part(Part::new("a", "SELECT {one").value("one", 1i64));
        assert!(sql_of(&open).is_err());
    }

    #[cfg(feature = "testing")]
    #[test]
    fn a_replay_writes_literals_and_the_overrides_it_names() {
        let c = Composed::new().part(
            Part::new("a", "SELECT {name}, {n}, {none}, {cpf}")
                .value("name", "D'Ávila")
                .value("n", 3i32)
                .value("none", None::<i64>)
                .value("cpf", "x"),
        );
        assert_eq!(
            c.replay(&[("a.cpf", ":cpf")]).expect("replayed"),
            "SELECT 'D''Ávila'::text, 3::int4, NULL::int8, :cpf"
        );
        assert!(c.replay(&[("a.cfp", ":cpf")]).unwrap_err().contains("a.cfp"));
    }
}
