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
