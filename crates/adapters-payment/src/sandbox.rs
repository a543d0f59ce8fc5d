//! The sandbox payment platform: Stripe-shaped ids and objects, no outside account. Its objects live
//! in PostgreSQL (the `SandboxLedger` port), so it behaves the same across restarts and instances,
//! and an idempotency key answers what it created the first time.
//!
//! SetupIntents succeed at once with a test card. The documented test value that declines: a
//! customer whose e-mail contains `recusado` (as Stripe's test card 4000 0000 0000 0002 does).

use crate::events;
use async_trait::async_trait;
use chrono::{DateTime, Months, Utc};
use domain::ecommerce::{
    EcommerceCustomer, PaymentError, PaymentEvent, PaymentEventError, PaymentGateway, PlatformSubscription,
    SetupIntent, SubscriptionRequest,
};
use domain::store::StoreError;
use rand::Rng;
use serde_json::{Value, json};
use std::sync::Arc;

/// Storage of the sandbox payment platform's objects, so that it behaves the same across restarts
/// and instances (PostgreSQL's is `adapters_postgres::PgSandboxLedger`). A port of this adapter, not
/// of the domain: only the sandbox needs it.
#[async_trait]
pub trait SandboxLedger: Send + Sync {
    /// Stores `object` under `id` unless `(kind, idempotency_key)` was stored before, in which case
    /// answers the earlier object.
    async fn put_once(
        &self,
        kind: &str,
        idempotency_key: &str,
        id: &str,
        object: serde_json::Value,
    ) -> Result<serde_json::Value, StoreError>;
    async fn get(&self, id: &str) -> Result<Option<serde_json::Value>, StoreError>;
    /// Replaces the stored object with this id (what an update through the platform's API does).
    async fn replace(&self, id: &str, object: serde_json::Value) -> Result<(), StoreError>;
}
pub const DECLINING_EMAIL_MARK: &str = "recusado";

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
        let object = subscription_object(request, Utc::now());
        let id = object["id"].as_str().unwrap_or_default().to_owned();
        let stored = self
            .ledger
            .put_once("subscription", &request.idempotency_key, &id, object)
            .await
            .map_err(unavailable)?;
        Ok(PlatformSubscription {
            id: stored["id"].as_str().unwrap_or_default().to_owned(),
            status: stored["status"].as_str().unwrap_or_default().to_owned(),
            object: stored,
        })
    }

    fn verify_event(
        &self,
        headers: &[(String, String)],
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<PaymentEvent, PaymentEventError> {
        events::verify(&self.webhook_secret, headers, body, now)
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
