//! Reading a JSON body field by field, so that a missing or mistyped field is reported with its path
//! beside the rule failures of the value types, all at once.

use crate::http::error::{ApiError, ErrorCode};
use domain::validation::{Violations, codes};
use serde_json::{Map, Value};

/// A JSON object being read, with the path of its fields (`customer.` for a nested one).
pub struct BodyReader<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
}

impl<'a> BodyReader<'a> {
    /// The body must be a JSON object; anything else is malformed (422).
    pub fn root(value: &'a Value) -> Result<Self, ApiError> {
        match value {
            Value::Object(map) => Ok(Self {
                map,
                prefix: String::new(),
            }),
            _ => Err(ApiError::with_message(
                ErrorCode::MalformedBody,
                "Corpo da requisição deve ser um objeto JSON.",
            )),
        }
    }

    pub fn path(&self, name: &str) -> String {
        format!("{}{}", self.prefix, name)
    }

    /// The field's value, null counted as absent.
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        self.present(name)
    }

    fn present(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// A required string.
    pub fn string(&self, v: &mut Violations, name: &str) -> Option<&'a str> {
        match self.present(name) {
            None => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                None
            }
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                v.add(self.path(name), codes::WRONG_TYPE, format!("{name} deve ser texto"));
                None
            }
        }
    }

    /// An optional string (absent or null is `None`).
    pub fn optional_string(&self, v: &mut Violations, name: &str) -> Option<&'a str> {
        match self.present(name)? {
            Value::String(s) => Some(s.as_str()),
            _ => {
                v.add(self.path(name), codes::WRONG_TYPE, format!("{name} deve ser texto"));
                None
            }
        }
    }

    /// An optional non-blank text, trimmed; blank counts as absent.
    pub fn optional_text(&self, v: &mut Violations, name: &str) -> Option<String> {
        self.optional_string(v, name)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }

    /// An optional boolean.
    pub fn optional_bool(&self, v: &mut Violations, name: &str) -> Option<bool> {
        match self.present(name)? {
            Value::Bool(b) => Some(*b),
            _ => {
                v.add(
                    self.path(name),
                    codes::WRONG_TYPE,
                    format!("{name} deve ser booleano (true ou false)"),
                );
                None
            }
        }
    }

    /// A required JSON integer (not a float, not a string).
    pub fn integer(&self, v: &mut Violations, name: &str) -> Option<i64> {
        match self.present(name) {
            None => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                None
            }
            Some(value) => self.as_integer(v, name, value),
        }
    }

    pub fn optional_integer(&self, v: &mut Violations, name: &str) -> Option<i64> {
        let value = self.present(name)?;
        self.as_integer(v, name, value)
    }

    fn as_integer(&self, v: &mut Violations, name: &str, value: &Value) -> Option<i64> {
        match value.as_i64() {
            Some(n) => Some(n),
            None => {
                v.add(
                    self.path(name),
                    codes::WRONG_TYPE,
                    format!("{name} deve ser um número inteiro"),
                );
                None
            }
        }
    }

    /// A required integer that fits a database `INTEGER` (codes of products, billing groups).
    pub fn code(&self, v: &mut Violations, name: &str) -> Option<i32> {
        let n = self.integer(v, name)?;
        match i32::try_from(n) {
            Ok(code) if code > 0 => Some(code),
            _ => {
                v.add(
                    self.path(name),
                    codes::INVALID_VALUE,
                    format!("{name} deve ser um inteiro positivo"),
                );
                None
            }
        }
    }

    /// A required text that may also be sent as a JSON number (`"123"` or `123`).
    pub fn string_or_number(&self, v: &mut Violations, name: &str) -> Option<String> {
        match self.present(name) {
            None => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                None
            }
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Some(Value::String(_)) => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} não pode ser vazio"));
                None
            }
            Some(Value::Number(n)) if n.is_u64() => Some(n.to_string()),
            Some(_) => {
                v.add(
                    self.path(name),
                    codes::WRONG_TYPE,
                    format!("{name} deve ser texto ou número inteiro não negativo"),
                );
                None
            }
        }
    }

    /// A required nested object, read with its own path prefix.
    pub fn object(&self, v: &mut Violations, name: &str) -> Option<BodyReader<'a>> {
        match self.present(name) {
            None => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                None
            }
            Some(value) => self.as_object(v, name, value),
        }
    }

    pub fn optional_object(&self, v: &mut Violations, name: &str) -> Option<BodyReader<'a>> {
        let value = self.present(name)?;
        self.as_object(v, name, value)
    }

    fn as_object(&self, v: &mut Violations, name: &str, value: &'a Value) -> Option<BodyReader<'a>> {
        match value {
            Value::Object(map) => Some(BodyReader {
                map,
                prefix: format!("{}.", self.path(name)),
            }),
            _ => {
                v.add(self.path(name), codes::WRONG_TYPE, format!("{name} deve ser um objeto"));
                None
            }
        }
    }

    /// A required array of objects, each read with its index in the path (`bank[0].`).
    pub fn objects(&self, v: &mut Violations, name: &str) -> Option<Vec<BodyReader<'a>>> {
        match self.present(name) {
            None => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                None
            }
            Some(Value::Array(items)) => {
                let mut readers = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::Object(map) => readers.push(BodyReader {
                            map,
                            prefix: format!("{}[{i}].", self.path(name)),
                        }),
                        _ => v.add(
                            format!("{}[{i}]", self.path(name)),
                            codes::WRONG_TYPE,
                            "deve ser um objeto",
                        ),
                    }
                }
                Some(readers)
            }
            Some(_) => {
                v.add(self.path(name), codes::WRONG_TYPE, format!("{name} deve ser uma lista"));
                None
            }
        }
    }

    /// A list of strings, each run through a value type's parser (errors name `name[i]`); an empty
    /// list is refused. `None` when absent (recorded as missing if `required`) or invalid.
    pub fn parse_list<T>(
        &self,
        v: &mut Violations,
        name: &str,
        required: bool,
        parse: impl Fn(&str) -> Result<T, domain::validation::Rejection>,
    ) -> Option<Vec<T>> {
        let items = match self.present(name) {
            None if required => {
                v.add(self.path(name), codes::REQUIRED, format!("{name} é obrigatório"));
                return None;
            }
            None => return None,
            Some(Value::Array(items)) if items.is_empty() => {
                v.add(
                    self.path(name),
                    codes::REQUIRED,
                    format!("{name} deve ter ao menos um item"),
                );
                return None;
            }
            Some(Value::Array(items)) => items,
            Some(_) => {
                v.add(self.path(name), codes::WRONG_TYPE, format!("{name} deve ser uma lista"));
                return None;
            }
        };
        let before = v.errors().len();
        let mut parsed = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{}[{i}]", self.path(name));
            match item {
                Value::String(text) => parsed.extend(v.check(&path, parse(text))),
                _ => v.add(path, codes::WRONG_TYPE, "deve ser texto"),
            }
        }
        (v.errors().len() == before).then_some(parsed)
    }

    /// Runs a value type's parser on a required string field.
    pub fn parse<T>(
        &self,
        v: &mut Violations,
        name: &str,
        parse: impl FnOnce(&str) -> Result<T, domain::validation::Rejection>,
    ) -> Option<T> {
        let raw = self.string(v, name)?;
        v.check(&self.path(name), parse(raw))
    }

    /// The same on an optional string field.
    pub fn parse_optional<T>(
        &self,
        v: &mut Violations,
        name: &str,
        parse: impl FnOnce(&str) -> Result<T, domain::validation::Rejection>,
    ) -> Option<T> {
        let raw = self.optional_string(v, name)?;
        v.check(&self.path(name), parse(raw))
    }

    /// A required string that must not be blank.
    pub fn text(&self, v: &mut Violations, name: &str) -> Option<&'a str> {
        let s = self.string(v, name)?;
        if s.trim().is_empty() {
            v.add(self.path(name), codes::REQUIRED, format!("{name} não pode ser vazio"));
            return None;
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_missing_and_mistyped_fields_with_their_paths() {
        let body = json!({"email": 12, "password": "   ", "aplicacao": null});
        let reader = BodyReader::root(&body).unwrap();
        let mut v = Violations::new();
        assert!(reader.string(&mut v, "email").is_none());
        assert!(reader.text(&mut v, "password").is_none());
        assert!(reader.string(&mut v, "aplicacao").is_none());
        let found: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            found,
            vec![
                ("email", codes::WRONG_TYPE),
                ("password", codes::REQUIRED),
                ("aplicacao", codes::REQUIRED)
            ]
        );
    }

    #[test]
    fn a_body_that_is_not_an_object_is_malformed() {
        assert_eq!(
            BodyReader::root(&json!([1, 2])).err().map(|e| e.code),
            Some(ErrorCode::MalformedBody)
        );
    }
}
