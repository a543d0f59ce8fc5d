//! Retries that never create twice: a client that repeats a creating `POST` with the same
//! `Idempotency-Key` (after a time-out, say) gets the first answer again instead of a second
//! record. Keys belong to a user and live 24 hours; the request they were first used with is
//! remembered by its fingerprint (method, path and body), so the same key with another request is
//! refused rather than answered with something else's result.
//!
//! Only successful answers are kept: a refused request (a 4xx, a 5xx) creates nothing, and its
//! key is released so that the client may correct the request and send it again with the same key.

use crate::store::StoreError;
use crate::validation::Rejection;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;
use std::time::Duration;

/// The request header, as the IETF draft (`draft-ietf-httpapi-idempotency-key-header`) names it.
pub const HEADER: &str = "Idempotency-Key";
pub const INVALID_KEY: &str = "chave_idempotencia_invalida";
pub const REUSED_KEY: &str = "chave_idempotencia_reutilizada";
pub const FORGOTTEN_KEY: &str = "chave_idempotencia_esquecida";

/// A key as clients send it: 1 to 255 visible ASCII characters (a UUID is the usual choice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// From the header's raw bytes (anything but visible ASCII is refused).
    pub fn parse(value: &[u8]) -> Result<Self, Rejection> {
        let well_formed = (1..=255).contains(&value.len()) && value.iter().all(u8::is_ascii_graphic);
        match std::str::from_utf8(value) {
            Ok(text) if well_formed => Ok(Self(text.to_owned())),
            _ => Err(Rejection::new(
                INVALID_KEY,
                "Idempotency-Key deve ter de 1 a 255 caracteres ASCII visíveis (por exemplo, um UUID)",
            )),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The SHA-256 (hex) of what identifies a request: method, path with query, and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint(pub String);

impl Fingerprint {
    pub fn of(method: &str, path_and_query: &str, body: &[u8]) -> Self {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        // Each part after its length: no two different requests run together into one text.
        for part in [method.as_bytes(), path_and_query.as_bytes(), body] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        Self(hex::encode(hash.finalize()))
    }
}

/// A kept answer: replayed as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// What the store says of a key when a request arrives with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// First use (or the key expired, or its earlier request died): run the request.
    Fresh,
    /// The same request finished before: answer what it answered.
    Replay(StoredAnswer),
    /// The key was used with another request.
    OtherRequest,
    /// The same key's request is running now (another instance, another connection).
    InFlight,
    /// The key's answer was erased with the personal data it held (anonymisation): it can no
    /// longer be replayed, and the key is not reused for another run.
    Forgotten,
}

/// The people an answer concerns: every CPF written in the request or in its answer (any string
/// member, masked or not, at any depth). The store keeps them as keyed digests only, so that
/// anonymising a CPF finds every kept answer about it.
pub fn subjects(request: &[u8], answer: &[u8]) -> Vec<crate::values::Cpf> {
    fn walk(value: &serde_json::Value, found: &mut Vec<crate::values::Cpf>) {
        match value {
            serde_json::Value::String(text) => {
                if let Ok(cpf) = crate::values::Cpf::parse(text)
                    && !found.contains(&cpf)
                {
                    found.push(cpf);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            serde_json::Value::Object(members) => members.values().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for bytes in [request, answer] {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
            walk(&value, &mut found);
        }
    }
    found
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdempotencyPolicy {
    /// How long a key is remembered.
    pub retention: Duration,
    /// How long a claimed key blocks others before its request is taken for dead (longer than
    /// any request lasts: the provider calls time out after 30 s, with retries).
    pub lease: Duration,
}

impl Default for IdempotencyPolicy {
    fn default() -> Self {
        Self {
            retention: Duration::from_secs(24 * 3600),
            lease: Duration::from_secs(120),
        }
    }
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait IdempotencyStore: Send + Sync {
    /// Claims `key` for `user_id`'s request atomically: among concurrent claims of one key, one is
    /// `Fresh` and the others `InFlight`. A key older than `expired_before` counts as new; a
    /// running claim older than `abandoned_before` is taken over.
    async fn claim(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        expired_before: DateTime<Utc>,
        abandoned_before: DateTime<Utc>,
    ) -> Result<Claim, StoreError>;
    /// Keeps the answer of the claimed request (sealed: it may hold secrets and personal data),
    /// with the people it concerns.
    async fn complete(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        answer: &StoredAnswer,
        subjects: &[crate::values::Cpf],
    ) -> Result<(), StoreError>;
    /// Forgets a claim whose request created nothing.
    async fn release(&self, user_id: i64, key: &IdempotencyKey) -> Result<(), StoreError>;
}

/// The use case the HTTP edge runs around a creating request that carries a key.
#[derive(Clone)]
pub struct Idempotency {
    pub store: Arc<dyn IdempotencyStore>,
    pub clock: Arc<dyn crate::clock::Clock>,
    pub policy: IdempotencyPolicy,
}

fn ago(now: DateTime<Utc>, age: Duration) -> DateTime<Utc> {
    now - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::MAX)
}

impl Idempotency {
    pub async fn begin(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
    ) -> Result<Claim, StoreError> {
        let now = self.clock.now();
        self.store
            .claim(
                user_id,
                key,
                fingerprint,
                ago(now, self.policy.retention),
                ago(now, self.policy.lease),
            )
            .await
    }

    /// Releases the key of a request that ended without an answer to keep; a failure to release
    /// only delays a retry until the claim's lease ends, so it is logged, not raised.
    pub async fn abandon(&self, user_id: i64, key: &IdempotencyKey) {
        if let Err(cause) = self.store.release(user_id, key).await {
            tracing::warn!(%cause, "idempotency key not released");
        }
    }

    /// Keeps a successful answer with the people it and its request concern; releases the key
    /// of any other.
    pub async fn finish(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        request: &[u8],
        answer: StoredAnswer,
    ) -> Result<(), StoreError> {
        if (200..300).contains(&answer.status) {
            let concerned = subjects(request, &answer.body);
            self.store.complete(user_id, key, &answer, &concerned).await
        } else {
            self.store.release(user_id, key).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_of_bounded_length() {
        assert!(IdempotencyKey::parse(b"8e0f4a2c-1b7d-4e3f-9a6b-2c5d8e1f0a3b").is_ok());
        for bad in ["", " ", "chave com espaço", "ção", &"a".repeat(256)] {
            assert_eq!(
                IdempotencyKey::parse(bad.as_bytes()).unwrap_err().code,
                INVALID_KEY,
                "{bad:?}"
            );
        }
        assert!(IdempotencyKey::parse(&[0xff, 0x41]).is_err());
        assert!(IdempotencyKey::parse("a".repeat(255).as_bytes()).is_ok());
    }

    #[test]
    fn every_cpf_in_the_request_or_the_answer_is_a_subject_once() {
        let request = br#"{"cliente": {"cpf": "529.982.247-25", "nome": "Ana"}}"#;
        let answer =
            br#"[{"cpf": "52998224725", "conjuge": {"cpf": "12345678909"}, "n": 52998224725, "x": "00000000000"}]"#;
        let found: Vec<String> = subjects(request, answer)
            .iter()
            .map(|c| c.as_str().to_owned())
            .collect();
        assert_eq!(found, ["52998224725", "12345678909"]);
        assert!(subjects(b"not json", b"").is_empty());
    }

    #[test]
    fn the_fingerprint_tells_requests_apart_by_method_path_and_body() {
        let base = Fingerprint::of("POST", "/proposal/create", b"{\"a\":1}");
        assert_eq!(base, Fingerprint::of("POST", "/proposal/create", b"{\"a\":1}"));
        assert_ne!(base, Fingerprint::of("POST", "/proposal/create", b"{\"a\":2}"));
        assert_ne!(base, Fingerprint::of("POST", "/customer/create", b"{\"a\":1}"));
        assert_ne!(
            Fingerprint::of("POST", "/a", b"\nb"),
            Fingerprint::of("POST", "/a\n", b"b"),
            "the lengths keep the parts apart"
        );
    }
}
