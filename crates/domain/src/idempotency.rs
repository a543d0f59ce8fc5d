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
    /// Keeps the answer of the claimed request.
    async fn complete(&self, user_id: i64, key: &IdempotencyKey, answer: &StoredAnswer) -> Result<(), StoreError>;
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

    /// Keeps a successful answer; releases the key of any other.
    pub async fn finish(&self, user_id: i64, key: &IdempotencyKey, answer: StoredAnswer) -> Result<(), StoreError> {
        if (200..300).contains(&answer.status) {
            self.store.complete(user_id, key, &answer).await
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
