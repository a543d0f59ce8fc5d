//! The spec's response envelope `{status, message, document, rowsAffected, data?}`.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct Envelope<T: Serialize = Value> {
    pub status: &'static str,
    pub message: String,
    pub document: Vec<Value>,
    #[serde(rename = "rowsAffected")]
    pub rows_affected: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<T>,
}

impl<T: Serialize> Envelope<T> {
    /// A success with `data` and empty `document` and `rowsAffected`.
    pub fn data(message: impl Into<String>, data: T) -> Self {
        Self {
            status: "success",
            message: message.into(),
            document: Vec::new(),
            rows_affected: Vec::new(),
            data: Some(data),
        }
    }
}

impl<T: Serialize> Envelope<T> {
    /// The same answer reporting how many records it wrote.
    pub fn with_rows_affected(self, rows_affected: Vec<i64>) -> Self {
        Self { rows_affected, ..self }
    }
}

impl Envelope<Value> {
    /// A success whose records travel in `document`.
    pub fn list(message: impl Into<String>, document: Vec<Value>, rows_affected: Vec<i64>) -> Self {
        Self {
            status: "success",
            message: message.into(),
            document,
            rows_affected,
            data: None,
        }
    }

    pub fn message(message: impl Into<String>) -> Self {
        Self {
            status: "success",
            message: message.into(),
            document: Vec::new(),
            rows_affected: Vec::new(),
            data: None,
        }
    }
}
