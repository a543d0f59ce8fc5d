//! The analyst's queue (issue 45): the proposals in analysis still undecided, the overdue first,
//! then by deadline, each with whom it is assigned to and where its request for documents stands.

use crate::validation::{Violations, codes};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};

/// The default page, and the most a page holds.
pub const DEFAULT_LIMIT: i64 = 50;
pub const MAX_LIMIT: i64 = 200;

/// Whose proposals the queue shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assignment {
    Anyone,
    /// Assigned to this back-office user (the console's "minhas": the signed-in user).
    To(String),
    /// Assigned to no one yet.
    Nobody,
}

/// A position in the queue's order: after it come the rows with a greater `(not overdue,
/// deadline, proposal)`, so that a page is one range of the queue's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueCursor {
    pub overdue: bool,
    pub deadline: DateTime<Utc>,
    pub proposal_id: i64,
}

impl QueueCursor {
    /// An opaque token: the position, base64url-encoded.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!(
            "{}:{}:{}",
            u8::from(self.overdue),
            self.deadline.timestamp_micros(),
            self.proposal_id
        ))
    }

    /// `None` for anything [`Self::encode`] did not write.
    pub fn decode(token: &str) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(token.trim()).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let mut parts = text.split(':');
        let overdue = match parts.next()? {
            "1" => true,
            "0" => false,
            _ => return None,
        };
        let deadline = DateTime::from_timestamp_micros(parts.next()?.parse().ok()?)?;
        let proposal_id = parts.next()?.parse().ok().filter(|id: &i64| *id > 0)?;
        parts.next().is_none().then_some(Self {
            overdue,
            deadline,
            proposal_id,
        })
    }
}

/// A checked request for a page of the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueQuery {
    pub assignment: Assignment,
    pub after: Option<QueueCursor>,
    pub limit: i64,
}

impl QueueQuery {
    /// The console's filters: `assigned` (`todas`, blank, `minhas` or `sem_analista`), `cursor`
    /// and `limit` (1 to 200, 50 when blank); `me` is the signed-in user. Every bad value named.
    pub fn parse(query: &[(String, String)], me: &str) -> Result<Self, Violations> {
        let given = |name: &str| {
            query
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.trim())
                .filter(|v| !v.is_empty())
        };
        let mut v = Violations::new();
        let assignment = match given("assigned") {
            None | Some("todas") => Assignment::Anyone,
            Some("minhas") => Assignment::To(me.to_owned()),
            Some("sem_analista") => Assignment::Nobody,
            Some(_) => {
                v.add(
                    "assigned",
                    codes::INVALID_VALUE,
                    "assigned deve ser todas, minhas ou sem_analista",
                );
                Assignment::Anyone
            }
        };
        let after = match given("cursor") {
            None => None,
            Some(token) => {
                let cursor = QueueCursor::decode(token);
                if cursor.is_none() {
                    v.add(
                        "cursor",
                        codes::INVALID_VALUE,
                        "cursor inválido: use o da página anterior",
                    );
                }
                cursor
            }
        };
        let limit = match given("limit") {
            None => DEFAULT_LIMIT,
            Some(raw) => match raw.parse::<i64>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
                _ => {
                    v.add(
                        "limit",
                        codes::INVALID_VALUE,
                        format!("limit deve ser um inteiro de 1 a {MAX_LIMIT}"),
                    );
                    DEFAULT_LIMIT
                }
            },
        };
        v.into_result().map(|()| Self {
            assignment,
            after,
            limit,
        })
    }
}

/// Where a proposal's latest request for documents stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingState {
    None,
    /// Asked, waiting for the seller (the clock is suspended).
    Open,
    /// Answered: the analyst has the documents to read.
    Answered,
}

/// One proposal in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueEntry {
    pub proposal_id: i64,
    pub identifier: String,
    pub customer_name: String,
    pub product_name: String,
    pub value_cents: i64,
    pub received_at: DateTime<Utc>,
    pub deadline: DateTime<Utc>,
    pub tacit: bool,
    pub suspended_since: Option<DateTime<Utc>>,
    pub overdue: bool,
    pub analyst: Option<String>,
    pub pending: PendingState,
}

impl QueueEntry {
    pub fn position(&self) -> QueueCursor {
        QueueCursor {
            overdue: self.overdue,
            deadline: self.deadline,
            proposal_id: self.proposal_id,
        }
    }
}

/// A page of the queue, with where the next one starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuePage {
    pub entries: Vec<QueueEntry>,
    pub next: Option<QueueCursor>,
    /// The back-office users a proposal may be assigned to.
    pub analysts: Vec<String>,
}

/// A file of an answer, with its content (the analyst downloads it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFileContent {
    pub name: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn a_cursor_reads_back_what_it_wrote_and_nothing_else() {
        let cursor = QueueCursor {
            overdue: true,
            deadline: DateTime::from_timestamp_micros(1_790_000_000_123_456).unwrap_or_default(),
            proposal_id: 42,
        };
        assert_eq!(QueueCursor::decode(&cursor.encode()), Some(cursor));
        let wrong = ["2:1:1", "1:1:0", "1:1:1:1"].map(|t| URL_SAFE_NO_PAD.encode(t));
        for bad in ["", "abc"].into_iter().chain(wrong.iter().map(String::as_str)) {
            assert_eq!(QueueCursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_filters_are_read_and_every_bad_one_named() {
        let mine = QueueQuery::parse(&query(&[("assigned", "minhas"), ("limit", "10")]), "ana@demo.com.br");
        assert_eq!(
            mine,
            Ok(QueueQuery {
                assignment: Assignment::To("ana@demo.com.br".to_owned()),
                after: None,
                limit: 10
            })
        );
        let blank = QueueQuery::parse(&query(&[("assigned", ""), ("limit", " ")]), "x");
        assert_eq!(
            blank.map(|q| (q.assignment, q.limit)),
            Ok((Assignment::Anyone, DEFAULT_LIMIT))
        );
        let unassigned = QueueQuery::parse(&query(&[("assigned", "sem_analista")]), "x");
        assert_eq!(unassigned.map(|q| q.assignment), Ok(Assignment::Nobody));
        let bad = QueueQuery::parse(
            &query(&[("assigned", "outras"), ("cursor", "???"), ("limit", "201")]),
            "x",
        )
        .err()
        .unwrap_or_default();
        let fields: Vec<&str> = bad.errors().iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["assigned", "cursor", "limit"]);
    }
}
