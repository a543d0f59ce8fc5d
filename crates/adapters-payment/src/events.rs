//! Inbound platform events: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`
//! under the endpoint's secret, within a tolerance of 300 s.

use crate::objects;
use chrono::{DateTime, Utc};
use domain::ecommerce::{PaymentEvent, PaymentEventError};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

pub const TOLERANCE_SECS: i64 = 300;

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The header a sender puts on `body` at `timestamp` (for tests and the sandbox).
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac(secret, timestamp, body).finalize().into_bytes())
    )
}

/// The most `v1` signatures a header may carry: a rotation needs two; more is refused unread.
pub const MAX_SIGNATURES: usize = 5;

/// The longest header read: a timestamp and `MAX_SIGNATURES` signatures fit well within it.
const MAX_HEADER_BYTES: usize = 1024;

/// Verifies the signature (any `v1` may match, as during a secret's rotation) and reads the event.
/// Whatever the header holds, the work is bounded: its length and its number of signatures are
/// capped, and the MAC is computed once and compared (in constant time) with each signature. The
/// age is judged after the signature, so that a forged header is told apart from a genuine but
/// late event (401 and 400).
pub fn verify(
    secret: &[u8],
    headers: &[(String, String)],
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<PaymentEvent, PaymentEventError> {
    let header = headers
        .iter()
        .find(|(n, _)| n == "stripe-signature")
        .map(|(_, v)| v.as_str())
        .filter(|h| h.len() <= MAX_HEADER_BYTES)
        .ok_or(PaymentEventError::BadSignature)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", s)) if signatures.len() < MAX_SIGNATURES => signatures.push(s),
            Some(("v1", _)) => return Err(PaymentEventError::BadSignature),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(PaymentEventError::BadSignature)?;
    let expected = mac(secret, timestamp, body).finalize();
    let valid = signatures.iter().any(|s| {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(s, &mut bytes).is_ok()
            && hmac::digest::CtOutput::<Hmac<Sha256>>::new(bytes.into()) == expected
    });
    if !valid {
        return Err(PaymentEventError::BadSignature);
    }
    if (now.timestamp() - timestamp).abs() > TOLERANCE_SECS {
        return Err(PaymentEventError::Stale);
    }
    parse(body)
}

fn text(value: &Value, pointer: &str) -> Result<String, PaymentEventError> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| PaymentEventError::Malformed(format!("{pointer} ausente")))
}

fn parse(body: &[u8]) -> Result<PaymentEvent, PaymentEventError> {
    let json: Value = serde_json::from_slice(body).map_err(|e| PaymentEventError::Malformed(e.to_string()))?;
    let event_id = text(&json, "/id")?;
    let kind = text(&json, "/type")?;
    let object = &json["data"]["object"];
    Ok(match kind.as_str() {
        "setup_intent.succeeded" => PaymentEvent::SetupIntentSucceeded {
            event_id,
            setup_intent: text(object, "/id")?,
            platform_customer: text(object, "/customer")?,
            payment_method: text(object, "/payment_method")?,
        },
        "customer.subscription.created" | "customer.subscription.updated" | "customer.subscription.deleted" => {
            PaymentEvent::SubscriptionTouched {
                event_id,
                subscription_id: text(object, "/id")?,
                kind,
            }
        }
        "invoice.paid" | "invoice.payment_failed" => match objects::invoice_subscription(object) {
            Some(subscription_id) => PaymentEvent::SubscriptionTouched {
                event_id,
                subscription_id,
                kind,
            },
            // An invoice of no subscription is not a sale of this service.
            None => PaymentEvent::Ignored { event_id, kind },
        },
        _ => PaymentEvent::Ignored { event_id, kind },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_teste";

    fn event() -> Vec<u8> {
        br#"{"id":"evt_1","type":"customer.subscription.deleted","data":{"object":{"id":"sub_1","status":"canceled"}}}"#
            .to_vec()
    }

    fn headers(value: String) -> Vec<(String, String)> {
        vec![("stripe-signature".into(), value)]
    }

    #[test]
    fn a_signed_fresh_event_is_read() {
        let now = Utc::now();
        let parsed = verify(SECRET, &headers(sign(SECRET, now.timestamp(), &event())), &event(), now).unwrap();
        assert!(
            matches!(parsed, PaymentEvent::SubscriptionTouched { ref subscription_id, ref kind, .. }
                if subscription_id == "sub_1" && kind == "customer.subscription.deleted")
        );
    }

    #[test]
    fn invoice_events_name_their_subscription_and_other_kinds_are_ignored() {
        let paid = br#"{"id":"evt_2","type":"invoice.paid","data":{"object":{"id":"in_1","parent":{"subscription_details":{"subscription":"sub_9"}}}}}"#;
        assert_eq!(
            parse(paid).unwrap(),
            PaymentEvent::SubscriptionTouched {
                event_id: "evt_2".into(),
                kind: "invoice.paid".into(),
                subscription_id: "sub_9".into()
            }
        );
        let one_off =
            br#"{"id":"evt_3","type":"invoice.payment_failed","data":{"object":{"id":"in_2","subscription":null}}}"#;
        assert!(matches!(parse(one_off).unwrap(), PaymentEvent::Ignored { .. }));
        let other = br#"{"id":"evt_4","type":"charge.refunded","data":{"object":{"id":"ch_1"}}}"#;
        assert!(matches!(parse(other).unwrap(), PaymentEvent::Ignored { ref kind, .. } if kind == "charge.refunded"));
    }

    #[test]
    fn a_bad_or_stale_signature_is_refused() {
        let now = Utc::now();
        assert_eq!(
            verify(
                SECRET,
                &headers(sign(b"outro", now.timestamp(), &event())),
                &event(),
                now
            ),
            Err(PaymentEventError::BadSignature)
        );
        assert_eq!(verify(SECRET, &[], &event(), now), Err(PaymentEventError::BadSignature));
        let old = now.timestamp() - TOLERANCE_SECS - 1;
        assert_eq!(
            verify(SECRET, &headers(sign(SECRET, old, &event())), &event(), now),
            Err(PaymentEventError::Stale)
        );
        let rotated = format!("{},v1=00ff", sign(SECRET, now.timestamp(), &event()));
        assert!(
            verify(SECRET, &headers(rotated), &event(), now).is_ok(),
            "one matching v1 is enough"
        );
    }

    #[test]
    fn a_header_with_too_many_signatures_or_too_long_is_refused_unread() {
        let now = Utc::now();
        let good = sign(SECRET, now.timestamp(), &event());
        // The attack of the sign-in issue: thousands of v1 entries, each once an HMAC of the body.
        let flood = format!("{good}{}", ",v1=00".repeat(12_000));
        assert_eq!(
            verify(SECRET, &headers(flood), &event(), now),
            Err(PaymentEventError::BadSignature)
        );
        let many = format!("{}{good}", "v1=00,".repeat(MAX_SIGNATURES));
        assert_eq!(
            verify(SECRET, &headers(many), &event(), now),
            Err(PaymentEventError::BadSignature),
            "a valid signature past the cap is not looked at"
        );
        let within = format!("{}{good}", "v1=00,".repeat(MAX_SIGNATURES - 1));
        assert!(verify(SECRET, &headers(within), &event(), now).is_ok());
    }

    #[test]
    fn a_forged_header_is_a_bad_signature_whatever_its_age() {
        let now = Utc::now();
        let old = now.timestamp() - TOLERANCE_SECS - 1;
        let forged = format!("t={old},v1={}", "ab".repeat(32));
        assert_eq!(
            verify(SECRET, &headers(forged), &event(), now),
            Err(PaymentEventError::BadSignature)
        );
    }
}
