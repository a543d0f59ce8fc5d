//! Inbound callbacks, in the provider's model: a JSON body signed with
//! `Content-Hmac: sha256=<hex HMAC-SHA256 of the raw body>` under a shared secret.
//!
//! ```json
//! {"event": {"name": "sign" | "refusal" | "deadline", "occurred_at": "2026-11-22T10:00:00Z",
//!   "data": {"signer": {"request_signature_key": "...", "latitude": "-23.5", "longitude": "-46.6"}}}}
//! ```
//! The same callback delivered twice carries the same body: its SHA-256 is the event id.

use chrono::{DateTime, Utc};
use domain::signature::{CallbackError, ProviderEvent, ProviderEventKind};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// The header value a sender puts on `body` (for tests and the sandbox).
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = HmacSha256::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Verifies the signature in constant time and reads the event.
pub fn parse(secret: &[u8], headers: &[(String, String)], body: &[u8]) -> Result<ProviderEvent, CallbackError> {
    let header = headers
        .iter()
        .find(|(name, _)| name == "content-hmac")
        .map(|(_, v)| v.as_str())
        .ok_or(CallbackError::BadSignature)?;
    let expected = header
        .strip_prefix("sha256=")
        .and_then(|h| hex::decode(h).ok())
        .ok_or(CallbackError::BadSignature)?;
    let mut mac = HmacSha256::new_from_slice(secret).map_err(|_| CallbackError::BadSignature)?;
    mac.update(body);
    mac.verify_slice(&expected).map_err(|_| CallbackError::BadSignature)?;

    let json: Value = serde_json::from_slice(body).map_err(|e| CallbackError::Malformed(e.to_string()))?;
    let event = &json["event"];
    let kind = match event["name"].as_str() {
        Some("sign") => ProviderEventKind::Signed,
        Some("refusal") => ProviderEventKind::Refused,
        Some("deadline") => ProviderEventKind::Expired,
        other => return Err(CallbackError::Malformed(format!("evento desconhecido: {other:?}"))),
    };
    let signer = &event["data"]["signer"];
    let request_key = signer["request_signature_key"]
        .as_str()
        .ok_or_else(|| CallbackError::Malformed("request_signature_key ausente".into()))?;
    let at = event["occurred_at"]
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| CallbackError::Malformed("occurred_at ausente ou inválido".into()))?;
    let text = |name: &str| {
        signer[name]
            .as_str()
            .map(str::to_owned)
            .or_else(|| signer[name].as_f64().map(|n| n.to_string()))
    };
    Ok(ProviderEvent {
        event_id: hex::encode(Sha256::digest(body)),
        request_key: request_key.to_owned(),
        kind,
        at,
        latitude: text("latitude"),
        longitude: text("longitude"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"segredo-compartilhado";

    fn body() -> Vec<u8> {
        br#"{"event":{"name":"sign","occurred_at":"2026-11-22T10:00:00Z","data":{"signer":{"request_signature_key":"k1","latitude":"-23.5","longitude":-46.6}}}}"#.to_vec()
    }

    fn headers(value: String) -> Vec<(String, String)> {
        vec![("content-hmac".into(), value)]
    }

    #[test]
    fn a_well_signed_callback_is_read() {
        let event = parse(SECRET, &headers(sign(SECRET, &body())), &body()).unwrap();
        assert_eq!(event.kind, ProviderEventKind::Signed);
        assert_eq!(event.request_key, "k1");
        assert_eq!(event.latitude.as_deref(), Some("-23.5"));
        assert_eq!(event.longitude.as_deref(), Some("-46.6"));
        assert_eq!(event.event_id.len(), 64);
    }

    #[test]
    fn a_forged_missing_or_other_key_signature_is_refused() {
        let mut tampered = body();
        tampered[20] ^= 1;
        assert_eq!(
            parse(SECRET, &headers(sign(SECRET, &body())), &tampered),
            Err(CallbackError::BadSignature)
        );
        assert_eq!(parse(SECRET, &[], &body()), Err(CallbackError::BadSignature));
        assert_eq!(
            parse(SECRET, &headers(sign(b"outro", &body())), &body()),
            Err(CallbackError::BadSignature)
        );
        assert_eq!(
            parse(SECRET, &headers("sha256=zz".into()), &body()),
            Err(CallbackError::BadSignature)
        );
    }

    #[test]
    fn a_well_signed_but_unreadable_body_is_malformed() {
        let junk = b"{\"event\":{\"name\":\"dance\"}}".to_vec();
        assert!(matches!(
            parse(SECRET, &headers(sign(SECRET, &junk)), &junk),
            Err(CallbackError::Malformed(_))
        ));
    }
}
