//! The sandbox payment platform: Stripe-shaped ids and objects, no outside account. Its objects live
//! in PostgreSQL (the `SandboxLedger` port), so it behaves the same across restarts and instances,
//! and an idempotency key answers what it created the first time.
//!
//! SetupIntents succeed at once with a test card. The documented test values: a customer whose
//! e-mail contains `recusado` has the card declined (as Stripe's test card 4000 0000 0000 0002
//! does); one whose e-mail contains `reembolso-negado` has refunds refused.
//!
//! Each subscription has invoices (the first paid at creation). A payment fails or succeeds on
//! demand ([`SandboxGateway::fail_payment`], [`SandboxGateway::pay_invoice`]), as the platform's
//! monthly charge would, and the events it would send are answered signed, for the service to
//! take in through its own callback's use case.

use crate::events;
use async_trait::async_trait;
use chrono::{DateTime, Months, Utc};
use domain::ecommerce::{
    EcommerceCustomer, PaidInvoice, PaymentError, PaymentEvent, PaymentEventError, PaymentGateway,
    PlatformSubscription, Refund, SetupIntent, SubscriptionRequest,
};
use domain::sandbox::SandboxLedger;
use rand::Rng;
use serde_json::{Value, json};
use std::sync::Arc;

pub const DECLINING_EMAIL_MARK: &str = "recusado";
/// A customer whose e-mail contains this has every refund refused.
pub const REFUSING_REFUNDS_EMAIL_MARK: &str = "reembolso-negado";

/// An event the sandbox platform sends: its body and its `Stripe-Signature`.
#[derive(Debug, Clone)]
pub struct SandboxEvent {
    pub kind: String,
    pub body: Vec<u8>,
    pub signature: String,
}

/// Ids of events the sandbox made itself; any other signed event is a tester playing the platform.
const OWN_EVENT_PREFIX: &str = "evt_sandbox";

pub struct SandboxGateway {
    ledger: Arc<dyn SandboxLedger>,
    webhook_secret: Vec<u8>,
}

fn id(prefix: &str) -> String {
    format!("{prefix}_sandbox{}", uuid::Uuid::new_v4().simple())
}

fn unavailable(e: domain::store::StoreError) -> PaymentError {
    PaymentError::Unavailable(e.to_string())
}

impl SandboxGateway {
    pub fn new(ledger: Arc<dyn SandboxLedger>, webhook_secret: &[u8]) -> Self {
        Self {
            ledger,
            webhook_secret: webhook_secret.to_vec(),
        }
    }

    async fn object(&self, id: &str) -> Result<Option<Value>, PaymentError> {
        self.ledger.get(id).await.map_err(unavailable)
    }

    async fn stored_subscription(&self, id: &str) -> Result<Value, PaymentError> {
        match self.object(id).await? {
            Some(object) if object["object"] == "subscription" => Ok(object),
            _ => Err(PaymentError::Invalid(format!("No such subscription: '{id}'"))),
        }
    }

    /// The event the platform sends about `object`, signed with the endpoint's secret.
    fn event(&self, kind: &str, object: &Value, now: DateTime<Utc>) -> SandboxEvent {
        let body = json!({"id": id(OWN_EVENT_PREFIX), "object": "event", "type": kind, "created": now.timestamp(),
            "livemode": false, "data": {"object": object}})
        .to_string()
        .into_bytes();
        SandboxEvent {
            kind: kind.to_owned(),
            signature: events::sign(&self.webhook_secret, now.timestamp(), &body),
            body,
        }
    }

    /// The subscription's next charge fails: a new open invoice, the subscription `past_due`.
    /// Answers the events the platform sends (`invoice.payment_failed`, then
    /// `customer.subscription.updated`).
    pub async fn fail_payment(&self, subscription_id: &str) -> Result<Vec<SandboxEvent>, PaymentError> {
        let mut subscription = self.stored_subscription(subscription_id).await?;
        if subscription["status"] == "canceled" {
            return Err(PaymentError::Invalid(format!("assinatura {subscription_id} cancelada")));
        }
        let now = Utc::now();
        let amount = subscription["plan"]["amount"].as_i64().unwrap_or(0);
        let mut invoice = invoice_object(subscription_id, &subscription["customer"], amount, now);
        invoice["status"] = json!("open");
        invoice["amount_paid"] = json!(0);
        invoice["attempt_count"] = json!(1);
        invoice["billing_reason"] = json!("subscription_cycle");
        invoice["payments"] = json!({"object": "list", "data": [], "has_more": false});
        let invoice_id = self.put(&invoice).await?;
        subscription["status"] = json!("past_due");
        subscription["latest_invoice"] = json!(invoice_id);
        self.ledger
            .replace(subscription_id, subscription.clone())
            .await
            .map_err(unavailable)?;
        Ok(vec![
            self.event("invoice.payment_failed", &invoice, now),
            self.event("customer.subscription.updated", &subscription, now),
        ])
    }

    /// The subscription's open invoice is paid (the customer updated the card): the invoice
    /// `paid`, the subscription `active` again. Answers `invoice.paid`, then
    /// `customer.subscription.updated`.
    pub async fn pay_invoice(&self, subscription_id: &str) -> Result<Vec<SandboxEvent>, PaymentError> {
        let mut subscription = self.stored_subscription(subscription_id).await?;
        let invoice_id = subscription["latest_invoice"].as_str().unwrap_or_default().to_owned();
        let Some(mut invoice) = self.object(&invoice_id).await?.filter(|i| i["status"] == "open") else {
            return Err(PaymentError::Invalid(format!(
                "assinatura {subscription_id} sem fatura em aberto"
            )));
        };
        let now = Utc::now();
        invoice["status"] = json!("paid");
        invoice["amount_paid"] = invoice["amount_due"].clone();
        invoice["payments"] = payments_of(now);
        self.ledger
            .replace(&invoice_id, invoice.clone())
            .await
            .map_err(unavailable)?;
        subscription["status"] = json!("active");
        self.ledger
            .replace(subscription_id, subscription.clone())
            .await
            .map_err(unavailable)?;
        Ok(vec![
            self.event("invoice.paid", &invoice, now),
            self.event("customer.subscription.updated", &subscription, now),
        ])
    }

    /// Every subscription of the sandbox platform, oldest first.
    pub async fn subscriptions(&self) -> Result<Vec<Value>, PaymentError> {
        self.ledger.find("subscription", json!({})).await.map_err(unavailable)
    }

    /// Stores a new object under its own id.
    async fn put(&self, object: &Value) -> Result<String, PaymentError> {
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        let kind = object["object"].as_str().unwrap_or_default().to_owned();
        self.ledger
            .put_once(&kind, &id, &id, object.clone())
            .await
            .map_err(unavailable)?;
        Ok(id)
    }

    /// A signed `customer.subscription.*` event the sandbox did not make is a tester playing the
    /// platform (the sandbox has no dashboard to change a subscription in): the sandbox takes the
    /// status it announces as its own first, so that the service, which reads the subscription
    /// back after every event, reads what the tester announced.
    async fn adopt_announced_status(&self, body: &[u8], event: &PaymentEvent) -> Result<(), PaymentEventError> {
        let PaymentEvent::SubscriptionTouched {
            event_id,
            kind,
            subscription_id,
        } = event
        else {
            return Ok(());
        };
        if event_id.starts_with(OWN_EVENT_PREFIX) || !kind.starts_with("customer.subscription.") {
            return Ok(());
        }
        let announced: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let Some(status) = announced.pointer("/data/object/status").and_then(Value::as_str) else {
            return Ok(());
        };
        // Once per event: the same event delivered again (the service ignores it) must not take
        // the sandbox back to what it announced then.
        let nonce = uuid::Uuid::new_v4().to_string();
        let adopted = self
            .ledger
            .put_once(
                "adopted_event",
                event_id,
                &format!("adopted_{event_id}"),
                json!({"nonce": nonce}),
            )
            .await
            .map_err(|e| PaymentEventError::Malformed(e.to_string()))?;
        if adopted["nonce"] != nonce.as_str() {
            return Ok(());
        }
        let stored = self
            .object(subscription_id)
            .await
            .map_err(|e| PaymentEventError::Malformed(e.to_string()))?;
        if let Some(mut subscription) = stored.filter(|s| s["object"] == "subscription") {
            subscription["status"] = json!(status);
            self.ledger
                .replace(subscription_id, subscription)
                .await
                .map_err(|e| PaymentEventError::Malformed(e.to_string()))?;
        }
        Ok(())
    }
}

/// A paid invoice's payments list (the platform's 2025 shape): one PaymentIntent.
fn payments_of(now: DateTime<Utc>) -> Value {
    json!({"object": "list", "has_more": false, "data": [{"id": id("inpay"), "object": "invoice_payment",
        "status": "paid", "created": now.timestamp(), "payment": {"type": "payment_intent", "payment_intent": id("pi")}}]})
}

/// A paid invoice of the subscription for `amount` cents, paying a month from `now`.
fn invoice_object(subscription_id: &str, customer: &Value, amount: i64, now: DateTime<Utc>) -> Value {
    let period_end = now.checked_add_months(Months::new(1)).unwrap_or(now).timestamp();
    json!({"id": id("in"), "object": "invoice", "status": "paid", "customer": customer, "currency": "brl",
        "amount_due": amount, "amount_paid": amount, "amount_remaining": 0, "attempt_count": 1,
        "billing_reason": "subscription_create", "created": now.timestamp(), "livemode": false,
        "status_transitions": {"finalized_at": now.timestamp(), "paid_at": now.timestamp(), "marked_uncollectible_at": null, "voided_at": null},
        "lines": {"object": "list", "has_more": false, "data": [{"id": id("il"), "object": "line_item", "amount": amount,
            "currency": "brl", "period": {"start": now.timestamp(), "end": period_end}}]},
        "parent": {"type": "subscription_details", "subscription_details": {"subscription": subscription_id, "metadata": {}}},
        "payments": payments_of(now)})
}

/// The price's amount in cents: sandbox price ids end in it (`price_sandbox_3990`).
fn amount_of(price_id: &str) -> i64 {
    price_id.rsplit('_').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// A subscription with every member of Stripe's object.
fn subscription_object(request: &SubscriptionRequest, now: DateTime<Utc>) -> Value {
    let subscription = id("sub");
    let product = format!("prod_{}", request.price_id);
    let created = now.timestamp();
    let period_end = now.checked_add_months(Months::new(1)).unwrap_or(now).timestamp();
    let amount = amount_of(&request.price_id);
    let plan = json!({
        "id": request.price_id, "object": "plan", "active": true, "amount": amount, "amount_decimal": amount.to_string(),
        "billing_scheme": "per_unit", "created": created, "currency": "brl", "interval": "month", "interval_count": 1,
        "livemode": false, "metadata": {}, "meter": null, "nickname": null, "product": product, "tiers_mode": null,
        "transform_usage": null, "trial_period_days": null, "usage_type": "licensed"
    });
    let price = json!({
        "id": request.price_id, "object": "price", "active": true, "billing_scheme": "per_unit", "created": created, "currency": "brl",
        "custom_unit_amount": null, "livemode": false, "lookup_key": null, "metadata": {}, "nickname": null, "product": product,
        "recurring": {"interval": "month", "interval_count": 1, "meter": null, "trial_period_days": null, "usage_type": "licensed"},
        "tax_behavior": "unspecified", "tiers_mode": null, "transform_quantity": null, "type": "recurring",
        "unit_amount": amount, "unit_amount_decimal": amount.to_string()
    });
    let item = json!({
        "id": id("si"), "object": "subscription_item", "created": created, "current_period_start": created, "current_period_end": period_end,
        "plan": plan, "price": price, "quantity": 1, "subscription": subscription, "tax_rates": [], "discounts": [], "metadata": {},
        "billing_thresholds": null
    });
    json!({
        "id": subscription, "object": "subscription", "application": null, "application_fee_percent": null,
        "automatic_tax": {"disabled_reason": null, "enabled": false, "liability": null},
        "billing_cycle_anchor": created, "billing_cycle_anchor_config": null, "billing_mode": {"type": "classic"},
        "billing_thresholds": null, "cancel_at": null, "cancel_at_period_end": false, "canceled_at": null,
        "cancellation_details": {"comment": null, "feedback": null, "reason": null},
        "collection_method": "charge_automatically", "created": created, "currency": "brl", "customer": request.platform_customer,
        "days_until_due": null, "default_payment_method": request.payment_method, "default_source": null, "default_tax_rates": [],
        "description": null, "discounts": [], "ended_at": null,
        "invoice_settings": {"account_tax_ids": null, "issuer": {"type": "self"}},
        "items": {"object": "list", "data": [item], "has_more": false, "total_count": 1, "url": format!("/v1/subscription_items?subscription={subscription}")},
        "latest_invoice": id("in"), "livemode": false, "metadata": {"proposal": request.proposal_identifier},
        "next_pending_invoice_item_invoice": null, "on_behalf_of": null, "pause_collection": null,
        "payment_settings": {"payment_method_options": null, "payment_method_types": null, "save_default_payment_method": "off"},
        "pending_invoice_item_interval": null, "pending_setup_intent": null, "pending_update": null, "plan": plan, "quantity": 1,
        "schedule": null, "start_date": created, "status": "active", "test_clock": null, "transfer_data": null, "trial_end": null,
        "trial_settings": {"end_behavior": {"missing_payment_method": "create_invoice"}}, "trial_start": null
    })
}

#[async_trait]
impl PaymentGateway for SandboxGateway {
    async fn ensure_customer(
        &self,
        customer: &EcommerceCustomer,
        idempotency_key: &str,
    ) -> Result<String, PaymentError> {
        let object = json!({"id": id("cus"), "object": "customer", "name": customer.full_name, "email": customer.email, "phone": customer.cell_phone});
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        let stored = self
            .ledger
            .put_once("customer", idempotency_key, &id, object)
            .await
            .map_err(unavailable)?;
        stored["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| PaymentError::Unavailable("objeto sem id".into()))
    }

    async fn redact_customer(&self, platform_customer: &str) -> Result<(), PaymentError> {
        let Some(mut customer) = self.ledger.get(platform_customer).await.map_err(unavailable)? else {
            return Err(PaymentError::Invalid(format!(
                "cliente {platform_customer} inexistente"
            )));
        };
        for field in ["name", "email", "phone", "description"] {
            customer[field] = serde_json::Value::Null;
        }
        customer["metadata"] = json!({});
        self.ledger
            .replace(platform_customer, customer)
            .await
            .map_err(unavailable)
    }

    async fn create_setup_intent(
        &self,
        platform_customer: &str,
        idempotency_key: &str,
    ) -> Result<SetupIntent, PaymentError> {
        let intent = id("seti");
        let method = id("pm");
        // The secret is answered once and never kept, not even by the sandbox.
        let secret: String = rand::thread_rng()
            .sample_iter(&rand::distributions::Alphanumeric)
            .take(24)
            .map(char::from)
            .collect();
        let object = json!({"id": intent, "object": "setup_intent", "customer": platform_customer, "status": "succeeded", "payment_method": method, "usage": "off_session"});
        let stored = self
            .ledger
            .put_once("setup_intent", idempotency_key, &intent, object)
            .await
            .map_err(unavailable)?;
        let stored_id = stored["id"].as_str().unwrap_or_default().to_owned();
        Ok(SetupIntent {
            client_secret: format!("{stored_id}_secret_{secret}"),
            id: stored_id,
            status: stored["status"].as_str().unwrap_or("succeeded").to_owned(),
            payment_method: stored["payment_method"].as_str().map(str::to_owned),
        })
    }

    async fn create_subscription(&self, request: &SubscriptionRequest) -> Result<PlatformSubscription, PaymentError> {
        let customer = self.ledger.get(&request.platform_customer).await.map_err(unavailable)?;
        let Some(customer) = customer else {
            return Err(PaymentError::Invalid(format!(
                "No such customer: '{}'",
                request.platform_customer
            )));
        };
        if customer["email"]
            .as_str()
            .is_some_and(|e| e.contains(DECLINING_EMAIL_MARK))
        {
            return Err(PaymentError::Declined("Your card was declined. (card_declined)".into()));
        }
        let now = Utc::now();
        let mut object = subscription_object(request, now);
        if let Some(until) = request.hold_until {
            // Held until the acceptance: a trial, as the platform makes it (decision 271).
            object["status"] = json!(domain::ecommerce::collection::HELD_STATUS);
            object["trial_start"] = json!(now.timestamp());
            object["trial_end"] = json!(until.timestamp());
        }
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        let stored = self
            .ledger
            .put_once("subscription", &request.idempotency_key, &id, object)
            .await
            .map_err(unavailable)?;
        let stored_id = stored["id"].as_str().unwrap_or_default().to_owned();
        // The first invoice, paid, under the id the subscription names (once, however often asked).
        let invoice_id = stored["latest_invoice"].as_str().unwrap_or_default().to_owned();
        let invoice = match self.object(&invoice_id).await? {
            Some(invoice) => invoice,
            None => {
                let held = stored["status"] == domain::ecommerce::collection::HELD_STATUS;
                let amount = if held { 0 } else { amount_of(&request.price_id) };
                let mut invoice = invoice_object(&stored_id, &stored["customer"], amount, now);
                invoice["id"] = json!(invoice_id);
                if held {
                    // The trial's invoice: of zero, paid by no payment.
                    invoice["payments"] = json!({"object": "list", "data": [], "has_more": false});
                }
                self.put(&invoice).await?;
                invoice
            }
        };
        let mut subscription = crate::objects::subscription(stored)
            .ok_or_else(|| PaymentError::Unavailable("objeto sem id ou status".into()))?;
        subscription.latest_invoice_status = Some("paid".into());
        // As the platform answers with `expand[]=latest_invoice.payments`.
        subscription.latest_paid_invoice = crate::objects::paid_invoice(&invoice);
        Ok(subscription)
    }

    async fn end_hold(
        &self,
        subscription_id: &str,
        idempotency_key: &str,
    ) -> Result<PlatformSubscription, PaymentError> {
        let mut subscription = self.stored_subscription(subscription_id).await?;
        if subscription["status"] == domain::ecommerce::collection::HELD_STATUS {
            // The trial ends now: the first period invoiced and paid with the saved card, the
            // period counted from now (as the platform does when a trial ends early).
            let now = Utc::now();
            let amount = subscription["plan"]["amount"].as_i64().unwrap_or(0);
            let mut invoice = invoice_object(subscription_id, &subscription["customer"], amount, now);
            invoice["billing_reason"] = json!("subscription_update");
            let invoice_id = invoice["id"].as_str().unwrap_or_default().to_owned();
            let stored = self
                .ledger
                .put_once("invoice", idempotency_key, &invoice_id, invoice)
                .await
                .map_err(unavailable)?;
            let period_end = now.checked_add_months(Months::new(1)).unwrap_or(now).timestamp();
            subscription["status"] = json!("active");
            subscription["trial_end"] = json!(now.timestamp());
            subscription["billing_cycle_anchor"] = json!(now.timestamp());
            subscription["latest_invoice"] = stored["id"].clone();
            subscription["items"]["data"][0]["current_period_start"] = json!(now.timestamp());
            subscription["items"]["data"][0]["current_period_end"] = json!(period_end);
            self.ledger
                .replace(subscription_id, subscription)
                .await
                .map_err(unavailable)?;
        }
        self.subscription(subscription_id)
            .await?
            .ok_or_else(|| PaymentError::Invalid(format!("No such subscription: '{subscription_id}'")))
    }

    async fn subscription(&self, id: &str) -> Result<Option<PlatformSubscription>, PaymentError> {
        let Some(mut object) = self.object(id).await?.filter(|o| o["object"] == "subscription") else {
            return Ok(None);
        };
        // Read with its latest invoice, as the platform's `expand[]=latest_invoice` answers it.
        if let Some(invoice) = match object["latest_invoice"].as_str() {
            Some(invoice_id) => self.object(invoice_id).await?,
            None => None,
        } {
            object["latest_invoice"] = invoice;
        }
        Ok(crate::objects::subscription(object))
    }

    async fn cancel_subscription(&self, id: &str) -> Result<PlatformSubscription, PaymentError> {
        let mut subscription = self.stored_subscription(id).await?;
        if subscription["status"] != "canceled" {
            let now = Utc::now().timestamp();
            subscription["status"] = json!("canceled");
            subscription["canceled_at"] = json!(now);
            subscription["ended_at"] = json!(now);
            subscription["cancellation_details"]["reason"] = json!("cancellation_requested");
            self.ledger
                .replace(id, subscription.clone())
                .await
                .map_err(unavailable)?;
        }
        crate::objects::subscription(subscription).ok_or_else(|| PaymentError::Unavailable("objeto sem id".into()))
    }

    async fn paid_invoices(&self, subscription_id: &str) -> Result<Vec<PaidInvoice>, PaymentError> {
        let invoices = self
            .ledger
            .find(
                "invoice",
                json!({"status": "paid", "parent": {"subscription_details": {"subscription": subscription_id}}}),
            )
            .await
            .map_err(unavailable)?;
        Ok(invoices.iter().filter_map(crate::objects::paid_invoice).collect())
    }

    async fn refund(&self, invoice: &PaidInvoice, amount: i64, idempotency_key: &str) -> Result<Refund, PaymentError> {
        if amount <= 0 || amount > invoice.amount {
            // The platform's own answer to a refund above the charge.
            return Err(PaymentError::Invalid(format!(
                "Refund amount ({amount}) is greater than charge amount ({}) (amount_too_large)",
                invoice.amount
            )));
        }
        let stored = self.object(&invoice.invoice_id).await?;
        let customer = match stored.as_ref().and_then(|i| i["customer"].as_str()) {
            Some(customer) => self.object(customer).await?,
            None => None,
        };
        if customer
            .as_ref()
            .and_then(|c| c["email"].as_str())
            .is_some_and(|e| e.contains(REFUSING_REFUNDS_EMAIL_MARK))
        {
            return Err(PaymentError::Declined(
                "Refund declined by the card issuer. (refund_declined)".into(),
            ));
        }
        let object = json!({"id": id("re"), "object": "refund", "amount": amount, "currency": "brl",
            "payment_intent": invoice.payment_intent, "reason": "requested_by_customer", "status": "succeeded",
            "created": Utc::now().timestamp(), "metadata": {"invoice": invoice.invoice_id}});
        let new_id = object["id"].as_str().unwrap_or_default().to_owned();
        let stored = self
            .ledger
            .put_once("refund", idempotency_key, &new_id, object)
            .await
            .map_err(unavailable)?;
        crate::objects::refund(&stored, &invoice.invoice_id)
            .ok_or_else(|| PaymentError::Unavailable("reembolso sem id".into()))
    }

    async fn refunds(&self, invoice: &PaidInvoice) -> Result<Vec<Refund>, PaymentError> {
        let refunds = self
            .ledger
            .find("refund", json!({"payment_intent": invoice.payment_intent}))
            .await
            .map_err(unavailable)?;
        Ok(refunds
            .iter()
            .filter_map(|refund| crate::objects::refund(refund, &invoice.invoice_id))
            .collect())
    }

    async fn verify_event(
        &self,
        headers: &[(String, String)],
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<PaymentEvent, PaymentEventError> {
        let event = events::verify(&self.webhook_secret, headers, body, now)?;
        self.adopt_announced_status(body, &event).await?;
        Ok(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The top-level members the spec lists for the recurring subscription record.
    const SPEC_MEMBERS: [&str; 46] = [
        "id",
        "object",
        "status",
        "customer",
        "currency",
        "collection_method",
        "created",
        "start_date",
        "billing_cycle_anchor",
        "cancel_at",
        "canceled_at",
        "ended_at",
        "trial_start",
        "trial_end",
        "cancel_at_period_end",
        "cancellation_details",
        "default_payment_method",
        "latest_invoice",
        "livemode",
        "metadata",
        "quantity",
        "plan",
        "items",
        "billing_mode",
        "automatic_tax",
        "invoice_settings",
        "payment_settings",
        "trial_settings",
        "application",
        "application_fee_percent",
        "billing_cycle_anchor_config",
        "billing_thresholds",
        "days_until_due",
        "default_source",
        "default_tax_rates",
        "description",
        "discounts",
        "next_pending_invoice_item_invoice",
        "on_behalf_of",
        "pause_collection",
        "pending_invoice_item_interval",
        "pending_setup_intent",
        "pending_update",
        "schedule",
        "test_clock",
        "transfer_data",
    ];

    #[test]
    fn the_subscription_has_every_member_of_the_platforms_object() {
        let request = SubscriptionRequest {
            platform_customer: "cus_1".into(),
            price_id: "price_sandbox_3990".into(),
            payment_method: "pm_1".into(),
            idempotency_key: "k".into(),
            proposal_identifier: "p".into(),
            hold_until: None,
        };
        let object = subscription_object(&request, Utc::now());
        assert_eq!(object["currency"], "brl");
        assert_eq!(object["status"], "active");
        assert_eq!(object["plan"]["amount"], 3990);
        assert_eq!(object["items"]["data"][0]["price"]["unit_amount"], 3990);
        assert!(object["created"].is_i64() && object["trial_end"].is_null());
        let mut members: Vec<&str> = object.as_object().unwrap().keys().map(String::as_str).collect();
        members.sort_unstable();
        let mut expected = SPEC_MEMBERS.to_vec();
        expected.sort_unstable();
        assert_eq!(members, expected);
    }
}
