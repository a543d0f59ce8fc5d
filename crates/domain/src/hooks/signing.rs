//! Standard Webhooks signing: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the
//! bytes a `whsec_` secret encodes (<https://www.standardwebhooks.com/>).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;

const PREFIX: &str = "whsec_";

/// A subscription's signing secret, `whsec_` followed by base64 of 32 random bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret(String);

impl SigningSecret {
    pub fn from_key(key: [u8; 32]) -> Self {
        Self(format!("{PREFIX}{}", STANDARD.encode(key)))
    }

    /// A stored secret; `None` unless it has the `whsec_` form.
    pub fn parse(text: &str) -> Option<Self> {
        let encoded = text.strip_prefix(PREFIX)?;
        STANDARD.decode(encoded).ok().filter(|k| !k.is_empty())?;
        Some(Self(text.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    fn key(&self) -> Vec<u8> {
        // Checked at construction.
        STANDARD.decode(&self.0[PREFIX.len()..]).unwrap_or_default()
    }

    /// `v1,<base64 signature>` of one message.
    pub fn sign(&self, message_id: &str, timestamp: i64, body: &str) -> String {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key()) else {
            // HMAC takes keys of any length; this cannot happen.
            return String::new();
        };
        mac.update(message_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body.as_bytes());
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

impl fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningSecret(***)")
    }
}

/// The `webhook-signature` header: one signature per secret, space-separated (two while a rotated
/// secret is in its grace period).
pub fn signature_header(secrets: &[SigningSecret], message_id: &str, timestamp: i64, body: &str) -> String {
    secrets
        .iter()
        .map(|s| s.sign(message_id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification's reference libraries.
    #[test]
    fn matches_the_reference_vector() {
        let secret = SigningSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_have_the_whsec_form_and_hide_in_debug() {
        let secret = SigningSecret::from_key([7; 32]);
        assert!(secret.expose().starts_with("whsec_"));
        assert_eq!(secret.expose().len(), 6 + 44);
        assert_eq!(SigningSecret::parse(secret.expose()), Some(secret.clone()));
        assert_eq!(format!("{secret:?}"), "SigningSecret(***)");
        assert_eq!(SigningSecret::parse("segredo"), None);
        assert_eq!(SigningSecret::parse("whsec_!!"), None);
    }

    #[test]
    fn header_lists_one_signature_per_secret() {
        let a = SigningSecret::from_key([1; 32]);
        let b = SigningSecret::from_key([2; 32]);
        let header = signature_header(&[a.clone(), b.clone()], "msg_1", 10, "{}");
        let parts: Vec<&str> = header.split(' ').collect();
        assert_eq!(parts, [a.sign("msg_1", 10, "{}"), b.sign("msg_1", 10, "{}")]);
        assert_ne!(parts[0], parts[1]);
    }
}
