//! Stripe over reqwest: the three calls this service needs, by hand (the generated Stripe crates
//! cost minutes of build time). Form-encoded bodies with bracketed keys, a pinned `Stripe-Version`,
//! an `Idempotency-Key` on every POST (the same on its retries), connect timeout 5 s and request
//! timeout 30 s, and up to 3 retries with jittered backoff (0.5 s, 1 s, 2 s, capped at 5 s) on
//! connection errors, timeouts, 429, 5xx or `Stripe-Should-Retry: true`; never on other 4xx.

use crate::{events, objects};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use domain::ecommerce::{
    EcommerceCustomer, PaidInvoice, PaymentError, PaymentEvent, PaymentEventError, PaymentGateway,
    PlatformSubscription, Refund, SetupIntent, SubscriptionRequest,
};
use observability::outbound;
use rand::Rng;
use serde_json::Value;
use std::time::Duration;

/// The API version the objects answered here are read with.
pub const STRIPE_VERSION: &str = "2025-08-27.basil";

#[derive(Clone)]
pub struct StripeSettings {
    pub base_url: String,
    pub secret_key: String,
    pub webhook_secret: Vec<u8>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub backoff: Vec<Duration>,
    pub max_backoff: Duration,
}

impl StripeSettings {
    pub fn new(base_url: &str, secret_key: &str, webhook_secret: &[u8]) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
            webhook_secret: webhook_secret.to_vec(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(30),
            backoff: vec![
                Duration::from_millis(500),
                Duration::from_secs(1),
                Duration::from_secs(2),
            ],
            max_backoff: Duration::from_secs(5),
        }
    }
}

pub struct StripeGateway {
    settings: StripeSettings,
    http: reqwest::Client,
}

enum Attempt {
    Done(Value),
    /// 404: the platform knows no such object.
    Missing(String),
    Retry(PaymentError),
    Fail(PaymentError),
}

/// A call: a form POST (with its idempotency key) or a GET with its query.
enum Call<'a> {
    Post {
        form: &'a [(String, String)],
        idempotency_key: &'a str,
    },
    Get {
        query: &'a [(&'a str, &'a str)],
    },
    Delete,
}

fn error_message(body: &Value) -> String {
    body.pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("erro sem mensagem")
        .to_owned()
}

impl StripeGateway {
    pub fn new(settings: StripeSettings) -> Result<Self, PaymentError> {
        let http = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| PaymentError::Unavailable(e.to_string()))?;
        Ok(Self { settings, http })
    }

    async fn attempt(&self, path: &str, call: &Call<'_>) -> Attempt {
        let url = format!("{}{}", self.settings.base_url, path);
        let request = match call {
            Call::Post { form, idempotency_key } => self
                .http
                .post(url)
                .header("Idempotency-Key", *idempotency_key)
                .form(form),
            Call::Get { query } => self.http.get(url).query(query),
            Call::Delete => self.http.delete(url),
        }
        .bearer_auth(&self.settings.secret_key)
        .header("Stripe-Version", STRIPE_VERSION);
        let response = outbound::send("stripe", request).await;
        let response = match response {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Attempt::Retry(PaymentError::Timeout),
            Err(e) => {
                return Attempt::Retry(PaymentError::Unavailable(if e.is_connect() {
                    "conexão recusada".into()
                } else {
                    "falha de rede".into()
                }));
            }
        };
        let status = response.status();
        let should_retry = response
            .headers()
            .get("stripe-should-retry")
            .and_then(|v| v.to_str().ok())
            .map(|v| v == "true");
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if status.is_success() {
            return Attempt::Done(body);
        }
        if status == reqwest::StatusCode::NOT_FOUND {
            return Attempt::Missing(error_message(&body));
        }
        let error = match status.as_u16() {
            402 => PaymentError::Declined(error_message(&body)),
            429 => PaymentError::RateLimited,
            s if s >= 500 => PaymentError::Unavailable(format!("{status}")),
            _ => PaymentError::Invalid(error_message(&body)),
        };
        let retry = match should_retry {
            Some(flag) => flag,
            None => matches!(error, PaymentError::RateLimited | PaymentError::Unavailable(_)),
        };
        if retry {
            Attempt::Retry(error)
        } else {
            Attempt::Fail(error)
        }
    }

    async fn post(
        &self,
        path: &str,
        form: Vec<(String, String)>,
        idempotency_key: &str,
    ) -> Result<Value, PaymentError> {
        let call = Call::Post {
            form: &form,
            idempotency_key,
        };
        self.send(path, &call)
            .await?
            .ok_or_else(|| PaymentError::Invalid(format!("{path} inexistente")))
    }

    /// A GET: `None` when the platform knows no such object.
    async fn get(&self, path: &str, query: &[(&str, &str)]) -> Result<Option<Value>, PaymentError> {
        self.send(path, &Call::Get { query }).await
    }

    async fn send(&self, path: &str, call: &Call<'_>) -> Result<Option<Value>, PaymentError> {
        let mut waits = self.settings.backoff.iter();
        loop {
            match self.attempt(path, call).await {
                Attempt::Done(value) => return Ok(Some(value)),
                Attempt::Missing(message) => {
                    tracing::info!(path, %message, "stripe: no such object");
                    return Ok(None);
                }
                Attempt::Fail(error) => return Err(error),
                Attempt::Retry(error) => {
                    let Some(wait) = waits.next() else { return Err(error) };
                    let wait = (*wait).min(self.settings.max_backoff);
                    let jitter = rand::thread_rng().gen_range(0..=wait.as_millis() as u64 / 4);
                    tracing::warn!(path, %error, "stripe: retrying with the same idempotency key");
                    tokio::time::sleep(wait + Duration::from_millis(jitter)).await;
                }
            }
        }
    }
}

/// Whether `id` may be put in a path: the platform's ids are letters, digits and `_`; anything else
/// (a `/`, `?` or `..` from an event's body) names no object of it.
fn is_object_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 255 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn pair(key: &str, value: impl Into<String>) -> (String, String) {
    (key.to_owned(), value.into())
}

fn text(value: &Value, key: &str) -> Result<String, PaymentError> {
    value[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| PaymentError::Invalid(format!("resposta sem {key}")))
}

#[async_trait]
impl PaymentGateway for StripeGateway {
    async fn ensure_customer(
        &self,
        customer: &EcommerceCustomer,
        idempotency_key: &str,
    ) -> Result<String, PaymentError> {
        let mut form = vec![
            pair("name", customer.full_name.clone()),
            pair("metadata[customer_id]", customer.id.to_string()),
        ];
        if let Some(email) = &customer.email {
            form.push(pair("email", email.clone()));
        }
        if let Some(phone) = &customer.cell_phone {
            form.push(pair("phone", format!("+55{phone}")));
        }
        text(&self.post("/v1/customers", form, idempotency_key).await?, "id")
    }

    async fn redact_customer(&self, platform_customer: &str) -> Result<(), PaymentError> {
        // An empty value unsets a field, and an empty `metadata` every key of it.
        let form = ["name", "email", "phone", "description", "metadata"]
            .into_iter()
            .map(|field| pair(field, ""))
            .collect();
        self.post(
            &format!("/v1/customers/{platform_customer}"),
            form,
            &format!("redact-{platform_customer}"),
        )
        .await
        .map(|_| ())
    }

    async fn create_setup_intent(
        &self,
        platform_customer: &str,
        idempotency_key: &str,
    ) -> Result<SetupIntent, PaymentError> {
        let form = vec![
            pair("customer", platform_customer),
            pair("usage", "off_session"),
            pair("payment_method_types[0]", "card"),
        ];
        let intent = self.post("/v1/setup_intents", form, idempotency_key).await?;
        Ok(SetupIntent {
            id: text(&intent, "id")?,
            client_secret: text(&intent, "client_secret")?,
            status: text(&intent, "status")?,
            payment_method: intent["payment_method"].as_str().map(str::to_owned),
        })
    }

    async fn create_subscription(&self, request: &SubscriptionRequest) -> Result<PlatformSubscription, PaymentError> {
        let mut form = vec![
            pair("customer", request.platform_customer.clone()),
            pair("items[0][price]", request.price_id.clone()),
            pair("default_payment_method", request.payment_method.clone()),
            pair("off_session", "true"),
            // A refused card fails the call (402) instead of leaving an incomplete subscription.
            pair("payment_behavior", "error_if_incomplete"),
            pair("metadata[proposal]", request.proposal_identifier.clone()),
            // The first invoice with its payment: the ledger enters it paid.
            pair("expand[0]", "latest_invoice.payments"),
        ];
        // Held until the acceptance: a trial, which the platform does not charge (its first
        // invoice is of zero), ended by `end_hold` (decision 271).
        if let Some(until) = request.hold_until {
            form.push(pair("trial_end", until.timestamp().to_string()));
        }
        let object = self.post("/v1/subscriptions", form, &request.idempotency_key).await?;
        objects::subscription(object).ok_or_else(|| PaymentError::Invalid("resposta sem id ou status".into()))
    }

    async fn end_hold(
        &self,
        subscription_id: &str,
        idempotency_key: &str,
    ) -> Result<PlatformSubscription, PaymentError> {
        if !is_object_id(subscription_id) {
            return Err(PaymentError::Invalid(format!(
                "assinatura {subscription_id} inexistente"
            )));
        }
        let current = self
            .subscription(subscription_id)
            .await?
            .ok_or_else(|| PaymentError::Invalid(format!("assinatura {subscription_id} inexistente")))?;
        if current.status != domain::ecommerce::collection::HELD_STATUS {
            return Ok(current);
        }
        // `trial_end=now` ends the trial: the platform invoices the first period and charges the
        // saved card at once; a refused card leaves the subscription `past_due` in its dunning
        // (`allow_incomplete`), as a monthly charge refused would.
        let form = vec![
            pair("trial_end", "now"),
            pair("off_session", "true"),
            pair("payment_behavior", "allow_incomplete"),
            pair("expand[0]", "latest_invoice.payments"),
        ];
        let object = self
            .post(&format!("/v1/subscriptions/{subscription_id}"), form, idempotency_key)
            .await?;
        objects::subscription(object).ok_or_else(|| PaymentError::Invalid("resposta sem id ou status".into()))
    }

    async fn subscription(&self, id: &str) -> Result<Option<PlatformSubscription>, PaymentError> {
        if !is_object_id(id) {
            return Ok(None);
        }
        let Some(object) = self
            .get(
                &format!("/v1/subscriptions/{id}"),
                // The latest invoice with its payment: a paid one enters the ledger.
                &[("expand[]", "latest_invoice"), ("expand[]", "latest_invoice.payments")],
            )
            .await?
        else {
            return Ok(None);
        };
        objects::subscription(object)
            .map(Some)
            .ok_or_else(|| PaymentError::Invalid("resposta sem id ou status".into()))
    }

    async fn cancel_subscription(&self, id: &str) -> Result<PlatformSubscription, PaymentError> {
        if !is_object_id(id) {
            return Err(PaymentError::Invalid(format!("assinatura {id} inexistente")));
        }
        match self.send(&format!("/v1/subscriptions/{id}"), &Call::Delete).await {
            Ok(Some(object)) => {
                objects::subscription(object).ok_or_else(|| PaymentError::Invalid("resposta sem id ou status".into()))
            }
            Ok(None) => Err(PaymentError::Invalid(format!("assinatura {id} inexistente"))),
            // The platform refuses to cancel what is cancelled already: that is done.
            Err(PaymentError::Invalid(message)) => match self.subscription(id).await? {
                Some(current) if current.status == "canceled" => Ok(current),
                _ => Err(PaymentError::Invalid(message)),
            },
            Err(other) => Err(other),
        }
    }

    async fn paid_invoices(&self, subscription_id: &str) -> Result<Vec<PaidInvoice>, PaymentError> {
        if !is_object_id(subscription_id) {
            return Ok(Vec::new());
        }
        // A subscription refunded within days of its start has one or two invoices: one page.
        let query = [
            ("subscription", subscription_id),
            ("status", "paid"),
            ("limit", "100"),
            ("expand[]", "data.payments"),
        ];
        let list = self.get("/v1/invoices", &query).await?.unwrap_or_default();
        Ok(list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(objects::paid_invoice)
            .collect())
    }

    async fn refund(&self, invoice: &PaidInvoice, amount: i64, idempotency_key: &str) -> Result<Refund, PaymentError> {
        let form = vec![
            pair("payment_intent", invoice.payment_intent.clone()),
            pair("amount", amount.to_string()),
            pair("reason", "requested_by_customer"),
            pair("metadata[invoice]", invoice.invoice_id.clone()),
        ];
        let object = self.post("/v1/refunds", form, idempotency_key).await?;
        let refund = objects::refund(&object, &invoice.invoice_id)
            .ok_or_else(|| PaymentError::Invalid("resposta sem id, valor ou status".into()))?;
        if matches!(refund.status.as_str(), "failed" | "canceled") {
            let reason = object["failure_reason"].as_str().unwrap_or("sem motivo informado");
            return Err(PaymentError::Declined(format!(
                "reembolso {} {}: {reason}",
                refund.id, refund.status
            )));
        }
        Ok(refund)
    }

    async fn refunds(&self, invoice: &PaidInvoice) -> Result<Vec<Refund>, PaymentError> {
        if !is_object_id(&invoice.payment_intent) {
            return Ok(Vec::new());
        }
        // A payment refunded in full has one refund, at most a few partial ones: one page.
        let query = [("payment_intent", invoice.payment_intent.as_str()), ("limit", "100")];
        let list = self.get("/v1/refunds", &query).await?.unwrap_or_default();
        Ok(list["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|refund| objects::refund(refund, &invoice.invoice_id))
            .collect())
    }

    async fn verify_event(
        &self,
        headers: &[(String, String)],
        body: &[u8],
        now: DateTime<Utc>,
    ) -> Result<PaymentEvent, PaymentEventError> {
        events::verify(&self.settings.webhook_secret, headers, body, now)
    }
}
