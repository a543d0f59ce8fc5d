//! Inbound callbacks in the Envelope API's model: a JSON body signed with
//! `Content-Hmac: sha256=<hex HMAC-SHA256 of the raw body>` under the account's webhook secret.
//!
//! ```json
//! {"event": {"name": "sign" | "refusal" | "deadline" | "auto_close" | "close",
//!   "occurred_at": "2026-11-22T10:00:00-03:00",
//!   "data": {"signer": {"key": "<signer id>", "auths": ["whatsapp"], "address": "203.0.113.7",
//!     "user_agent": "Mozilla/5.0 ...", "latitude": "-23.5", "longitude": "-46.6"}}},
//!  "envelope": {"key": "<envelope id>"}}
//! ```
//! A party's event names its signer (our request key); a closing event names the envelope (our
//! document key). The same callback delivered twice carries the same body: its SHA-256 is the
//! event id.

use chrono::{DateTime, Utc};
use domain::signature::{CallbackError, ProviderEvent, ProviderEventKind, SignerEvidence};
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
        Some("auto_close" | "close") => ProviderEventKind::Closed,
        other => return Err(CallbackError::Malformed(format!("evento desconhecido: {other:?}"))),
    };
    let signer = &event["data"]["signer"];
    let key = if kind == ProviderEventKind::Closed {
        json["envelope"]["key"].as_str().or(json["envelope"]["id"].as_str())
    } else {
        signer["key"].as_str()
    };
    let key = key.ok_or_else(|| {
        CallbackError::Malformed(if kind == ProviderEventKind::Closed {
            "envelope.key ausente".into()
        } else {
            "event.data.signer.key ausente".into()
        })
    })?;
    let at = event["occurred_at"]
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| CallbackError::Malformed("occurred_at ausente ou inválido".into()))?;
    let details = signer_details(key, signer);
    Ok(ProviderEvent {
        event_id: hex::encode(Sha256::digest(body)),
        request_key: details.request_key,
        kind,
        at,
        latitude: details.latitude,
        longitude: details.longitude,
        ip: details.ip,
        user_agent: details.user_agent,
        authentication: details.authentication,
    })
}

/// A reported detail as text: the provider sends coordinates as strings or numbers.
fn text(value: &Value) -> Option<String> {
    value
        .as_str()
        .map(str::to_owned)
        .or_else(|| value.as_f64().map(|n| n.to_string()))
        .filter(|t| !t.trim().is_empty())
}

/// The envelope's record of a signature (its `sign` event, as `GET /envelopes/{id}/events`
/// lists it: `attributes.name` and `attributes.data.signer`, the same signer as a callback's).
pub fn signer_evidence(event: &Value) -> Option<SignerEvidence> {
    let attributes = &event["attributes"];
    if attributes["name"] != "sign" {
        return None;
    }
    let signer = &attributes["data"]["signer"];
    Some(signer_details(signer["key"].as_str()?, signer))
}

/// What a signer object (a callback's or an envelope event's) tells of how and where it signed.
fn signer_details(key: &str, signer: &Value) -> SignerEvidence {
    SignerEvidence {
        request_key: key.to_owned(),
        authentication: text(&signer["auths"][0]),
        ip: text(&signer["address"]),
        user_agent: text(&signer["user_agent"]),
        latitude: text(&signer["latitude"]),
        longitude: text(&signer["longitude"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelopes_sign_events_are_read_as_evidence_and_others_skipped() {
        let sign = serde_json::json!({"id": "e1", "type": "events", "attributes": {"name": "sign", "data": {"signer": {
            "key": "k1", "auths": ["sms"], "address": "198.51.100.4", "latitude": -23.5, "longitude": "-46.6"}}}});
        let read = signer_evidence(&sign).unwrap();
        assert_eq!(read.request_key, "k1");
        assert_eq!(read.authentication.as_deref(), Some("sms"));
        assert_eq!(read.ip.as_deref(), Some("198.51.100.4"));
        assert_eq!(read.latitude.as_deref(), Some("-23.5"));
        assert_eq!(read.user_agent, None, "not reported, not guessed");
        let upload = serde_json::json!({"attributes": {"name": "upload", "data": {}}});
        assert_eq!(signer_evidence(&upload), None);
    }

    const SECRET: &[u8] = b"segredo-compartilhado";

    fn body() -> Vec<u8> {
        br#"{"event":{"name":"sign","occurred_at":"2026-11-22T10:00:00-03:00","data":{"signer":{"key":"k1","auths":["whatsapp"],"address":"203.0.113.7","user_agent":"Mozilla/5.0","latitude":"-23.5","longitude":-46.6}}},"envelope":{"key":"env-1"}}"#.to_vec()
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
        assert_eq!(event.ip.as_deref(), Some("203.0.113.7"));
        assert_eq!(event.user_agent.as_deref(), Some("Mozilla/5.0"));
        assert_eq!(event.authentication.as_deref(), Some("whatsapp"));
        assert_eq!(event.at.to_rfc3339(), "2026-11-22T13:00:00+00:00");
        assert_eq!(event.event_id.len(), 64);
    }

    #[test]
    fn a_closing_event_names_the_envelope() {
        let closed = br#"{"event":{"name":"auto_close","occurred_at":"2026-11-22T10:05:00-03:00","data":{}},"envelope":{"key":"env-1"}}"#;
        let event = parse(SECRET, &headers(sign(SECRET, closed)), closed).unwrap();
        assert_eq!(event.kind, ProviderEventKind::Closed);
        assert_eq!(event.request_key, "env-1");
        let nameless = br#"{"event":{"name":"close","occurred_at":"2026-11-22T10:05:00-03:00","data":{}}}"#;
        assert!(matches!(
            parse(SECRET, &headers(sign(SECRET, nameless)), nameless),
            Err(CallbackError::Malformed(why)) if why.contains("envelope")
        ));
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
