//! The spec's response envelope `{status, message, document, rowsAffected, data?}`, typed by what
//! `document` holds (`D`) and what `data` holds (`T`).

use serde::Serialize;

/// The type of an envelope part that is always empty (`document: []`, no `data`).
#[derive(Debug, Serialize)]
pub enum Nothing {}

#[derive(Debug, Serialize)]
pub struct Envelope<D: Serialize = Nothing, T: Serialize = Nothing> {
    pub status: &'static str,
    pub message: String,
    pub document: Vec<D>,
    #[serde(rename = "rowsAffected")]
    pub rows_affected: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<T>,
}

impl<T: Serialize> Envelope<Nothing, T> {
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

impl<D: Serialize> Envelope<D, Nothing> {
    /// A success whose records travel in `document`.
    pub fn list(message: impl Into<String>, document: Vec<D>, rows_affected: Vec<i64>) -> Self {
        Self {
            status: "success",
            message: message.into(),
            document,
            rows_affected,
            data: None,
        }
    }

    /// The same records with `data` beside them (a list's page and where the next one starts).
    pub fn with_data<T: Serialize>(self, data: T) -> Envelope<D, T> {
        Envelope {
            status: self.status,
            message: self.message,
            document: self.document,
            rows_affected: self.rows_affected,
            data: Some(data),
        }
    }
}

impl Envelope {
    /// A success with only a message.
    pub fn message(message: impl Into<String>) -> Self {
        Self::list(message, Vec::new(), Vec::new())
    }
}

impl<D: Serialize, T: Serialize> Envelope<D, T> {
    /// The same answer reporting how many records it wrote.
    pub fn with_rows_affected(self, rows_affected: Vec<i64>) -> Self {
        Self { rows_affected, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_shape_serialises_as_the_spec_writes_it() {
        let data = serde_json::to_value(Envelope::data("ok", json!({"a": 1}))).unwrap();
        assert_eq!(
            data,
            json!({"status": "success", "message": "ok", "document": [], "rowsAffected": [], "data": {"a": 1}})
        );
        let list = serde_json::to_value(Envelope::list("ok", vec![1, 2], vec![2])).unwrap();
        assert_eq!(
            list,
            json!({"status": "success", "message": "ok", "document": [1, 2], "rowsAffected": [2]})
        );
        let message = serde_json::to_value(Envelope::message("ok").with_rows_affected(vec![1])).unwrap();
        assert_eq!(
            message,
            json!({"status": "success", "message": "ok", "document": [], "rowsAffected": [1]})
        );
    }
}
