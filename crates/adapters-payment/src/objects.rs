//! Reading the platform's objects (Stripe's shapes) into the domain's few typed fields.

use chrono::{DateTime, Utc};
use domain::ecommerce::{PaidInvoice, PlatformSubscription, Refund};
use serde_json::Value;

fn timestamp(value: &Value) -> Option<DateTime<Utc>> {
    value.as_i64().and_then(|seconds| DateTime::from_timestamp(seconds, 0))
}

/// A subscription object as the platform answers it. The period's end is on the object before
/// the platform's 2025 API versions and on its items since (the pinned version's place); the
/// latest invoice's status is known only when the invoice was read with it (`expand`).
pub fn subscription(object: Value) -> Option<PlatformSubscription> {
    let id = object["id"].as_str()?.to_owned();
    let status = object["status"].as_str()?.to_owned();
    let current_period_end = timestamp(&object["current_period_end"])
        .or_else(|| timestamp(&object["items"]["data"][0]["current_period_end"]));
    let latest_invoice_status = object["latest_invoice"]["status"].as_str().map(str::to_owned);
    let latest_paid_invoice = if latest_invoice_status.as_deref() == Some("paid") {
        paid_invoice(&object["latest_invoice"])
    } else {
        None
    };
    Some(PlatformSubscription {
        id,
        status,
        current_period_end,
        latest_invoice_status,
        latest_paid_invoice,
        object,
    })
}

/// The subscription an invoice belongs to: `parent.subscription_details.subscription` since the
/// platform's 2025 API versions, `subscription` before; `None` for an invoice of no subscription.
pub fn invoice_subscription(invoice: &Value) -> Option<String> {
    invoice
        .pointer("/parent/subscription_details/subscription")
        .or_else(|| invoice.get("subscription"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A paid invoice with the PaymentIntent that paid it: in its `payments` list since the
/// platform's 2025 API versions, as `payment_intent` before; `None` for an invoice paid by no
/// PaymentIntent (nothing to refund on the platform).
pub fn paid_invoice(invoice: &Value) -> Option<PaidInvoice> {
    let payment_intent = invoice["payments"]["data"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["status"] == "paid" || p["status"].is_null())
        .and_then(|p| p.pointer("/payment/payment_intent"))
        .or_else(|| invoice.get("payment_intent"))
        .and_then(Value::as_str)?;
    // The subscription line's period is the cover paid (the invoice's own `period_start` and
    // `period_end` are the previous period's for a subscription invoice).
    let line = &invoice["lines"]["data"][0]["period"];
    let period = timestamp(&line["start"]).zip(timestamp(&line["end"]));
    Some(PaidInvoice {
        invoice_id: invoice["id"].as_str()?.to_owned(),
        amount: invoice["amount_paid"].as_i64()?,
        payment_intent: payment_intent.to_owned(),
        paid_at: timestamp(&invoice["status_transitions"]["paid_at"]),
        period,
    })
}

/// A refund object of the invoice's payment.
pub fn refund(refund: &Value, invoice_id: &str) -> Option<Refund> {
    Some(Refund {
        id: refund["id"].as_str()?.to_owned(),
        invoice_id: invoice_id.to_owned(),
        amount: refund["amount"].as_i64()?,
        status: refund["status"].as_str()?.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_period_end_is_read_from_the_items_or_the_object() {
        let on_items = json!({"id": "sub_1", "status": "active", "items": {"data": [{"current_period_end": 1_800_000_000}]},
            "latest_invoice": {"id": "in_1", "status": "paid"}});
        let read = subscription(on_items).unwrap();
        assert_eq!(read.current_period_end.unwrap().timestamp(), 1_800_000_000);
        assert_eq!(read.latest_invoice_status.as_deref(), Some("paid"));
        assert_eq!(
            read.latest_paid_invoice, None,
            "a paid invoice read without its payment is not one to enter"
        );
        let paid = json!({"id": "sub_1", "status": "active", "latest_invoice": {"id": "in_7", "status": "paid",
            "amount_paid": 4990, "payment_intent": "pi_7", "status_transitions": {"paid_at": 1_800_000_000}}});
        let read = subscription(paid).unwrap();
        assert_eq!(
            read.latest_paid_invoice.map(|i| (i.invoice_id, i.amount)),
            Some(("in_7".into(), 4990))
        );
        let open = json!({"id": "sub_1", "status": "past_due", "latest_invoice": {"id": "in_8", "status": "open",
            "amount_paid": 0, "payment_intent": "pi_8"}});
        assert_eq!(subscription(open).unwrap().latest_paid_invoice, None);
        let on_object =
            json!({"id": "sub_1", "status": "past_due", "current_period_end": 1_700_000_000, "latest_invoice": "in_1"});
        let read = subscription(on_object).unwrap();
        assert_eq!(read.current_period_end.unwrap().timestamp(), 1_700_000_000);
        assert_eq!(read.latest_invoice_status, None, "an invoice id alone tells no status");
        assert!(subscription(json!({"status": "active"})).is_none());
    }

    #[test]
    fn a_paid_invoice_is_refunded_through_its_payment_intent_in_either_api_version() {
        let new = json!({"id": "in_1", "amount_paid": 3990,
            "payments": {"data": [{"status": "paid", "payment": {"type": "payment_intent", "payment_intent": "pi_1"}}]}});
        assert_eq!(
            paid_invoice(&new),
            Some(PaidInvoice {
                invoice_id: "in_1".into(),
                amount: 3990,
                payment_intent: "pi_1".into(),
                paid_at: None,
                period: None,
            })
        );
        let with_period = json!({"id": "in_4", "amount_paid": 3990, "payment_intent": "pi_4",
            "status_transitions": {"paid_at": 1_800_000_000},
            "lines": {"data": [{"period": {"start": 1_800_000_000, "end": 1_802_592_000}}]}});
        let read = paid_invoice(&with_period).unwrap();
        assert_eq!(read.paid_at.map(|t| t.timestamp()), Some(1_800_000_000));
        assert_eq!(
            read.period.map(|(s, e)| (s.timestamp(), e.timestamp())),
            Some((1_800_000_000, 1_802_592_000))
        );
        let old = json!({"id": "in_2", "amount_paid": 100, "payment_intent": "pi_2"});
        assert_eq!(paid_invoice(&old).unwrap().payment_intent, "pi_2");
        assert_eq!(
            paid_invoice(&json!({"id": "in_3", "amount_paid": 0, "payment_intent": null})),
            None
        );
    }

    #[test]
    fn an_invoice_names_its_subscription_in_either_api_version() {
        assert_eq!(
            invoice_subscription(&json!({"parent": {"subscription_details": {"subscription": "sub_new"}}})).as_deref(),
            Some("sub_new")
        );
        assert_eq!(
            invoice_subscription(&json!({"subscription": "sub_old"})).as_deref(),
            Some("sub_old")
        );
        assert_eq!(
            invoice_subscription(&json!({"subscription": null, "parent": null})),
            None
        );
    }
}
