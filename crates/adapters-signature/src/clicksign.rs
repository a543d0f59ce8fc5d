//! Clicksign (API v1) over reqwest: the real `SignatureProvider`.
//!
//! Its model is the spec's: a document, one signer per party, a list entry per signer that carries
//! its `request_signature_key`, sign links `/sign/{request_signature_key}`, notification by SMS or
//! WhatsApp, and callbacks signed with `Content-Hmac`. Requests time out after 30 s (the PDF travels
//! as base64) and are retried with backoff on connection errors, timeouts, 429 (honouring the
//! rate-limit reset header) and 5xx; never on other 4xx. The API has no idempotency key: the use
//! case saves each step's result before the next, so a retried send resumes.

use crate::callback;
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use domain::signature::{CallbackError, PartyKeys, PartyRole, ProviderError, ProviderEvent, SignatureProvider, Signer};
use domain::values::ShippingType;
use observability::outbound;
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Clone)]
pub struct ClicksignSettings {
    /// `https://app.clicksign.com` (or `https://sandbox.clicksign.com`).
    pub base_url: String,
    pub access_token: String,
    pub callback_secret: Vec<u8>,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Waits before each retry; their number is the number of retries.
    pub backoff: Vec<Duration>,
    /// The longest wait a 429's reset header may ask for.
    pub max_rate_limit_wait: Duration,
}

impl ClicksignSettings {
    pub fn new(base_url: &str, access_token: &str, callback_secret: &[u8]) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            access_token: access_token.to_owned(),
            callback_secret: callback_secret.to_vec(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            backoff: vec![
                Duration::from_millis(500),
                Duration::from_secs(1),
                Duration::from_secs(2),
            ],
            max_rate_limit_wait: Duration::from_secs(30),
        }
    }
}

pub struct ClicksignProvider {
    settings: ClicksignSettings,
    http: reqwest::Client,
}

/// What one attempt says about trying again.
enum Attempt {
    Done(Value),
    Retry { wait: Option<Duration>, why: String },
    Fail(ProviderError),
}

impl ClicksignProvider {
    pub fn new(settings: ClicksignSettings) -> Result<Self, ProviderError> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.connect_timeout)
            .build()
            .map_err(|e| ProviderError::Unavailable(e.to_string()))?;
        Ok(Self { settings, http })
    }

    async fn attempt(&self, path: &str, body: &Value) -> Attempt {
        let url = format!("{}{}", self.settings.base_url, path);
        let request = self
            .http
            .post(&url)
            .query(&[("access_token", &self.settings.access_token)])
            .json(body);
        let response = outbound::send("clicksign", request).await;
        let response = match response {
            Ok(r) => r,
            Err(e) => {
                return Attempt::Retry {
                    wait: None,
                    why: if e.is_timeout() {
                        "tempo esgotado".into()
                    } else {
                        "conexão falhou".into()
                    },
                };
            }
        };
        let status = response.status();
        if status.as_u16() == 429 {
            let wait = reset_wait(response.headers());
            return Attempt::Retry {
                wait,
                why: "limite de requisições (429)".into(),
            };
        }
        if status.is_server_error() {
            return Attempt::Retry {
                wait: None,
                why: format!("erro do provedor ({status})"),
            };
        }
        let text = response.text().await.unwrap_or_default();
        if !status.is_success() {
            return Attempt::Fail(ProviderError::Rejected(format!(
                "{status}: {}",
                text.chars().take(300).collect::<String>()
            )));
        }
        match serde_json::from_str(&text) {
            Ok(value) => Attempt::Done(value),
            // 202 answers (notifications) may have no body.
            Err(_) if text.trim().is_empty() => Attempt::Done(Value::Null),
            Err(e) => Attempt::Fail(ProviderError::Rejected(format!("resposta ilegível: {e}"))),
        }
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, ProviderError> {
        let mut retries = self.settings.backoff.iter();
        loop {
            match self.attempt(path, &body).await {
                Attempt::Done(value) => return Ok(value),
                Attempt::Fail(error) => return Err(error),
                Attempt::Retry { wait, why } => {
                    let Some(backoff) = retries.next() else {
                        return Err(ProviderError::Unavailable(why));
                    };
                    let wait = wait.map_or(*backoff, |w| w.min(self.settings.max_rate_limit_wait));
                    tracing::warn!(path, %why, wait_ms = wait.as_millis() as u64, "clicksign: retrying");
                    tokio::time::sleep(jitter(wait)).await;
                }
            }
        }
    }
}

/// Up to a tenth more, so that instances retrying together spread out.
fn jitter(wait: Duration) -> Duration {
    use rand::Rng;
    let extra = rand::thread_rng().gen_range(0..=wait.as_millis() as u64 / 10);
    wait + Duration::from_millis(extra)
}

/// The wait a 429 asks for: `Retry-After` seconds, or the `x-rate-limit-reset` instant (Unix seconds).
fn reset_wait(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    if let Some(seconds) = number("retry-after") {
        return Some(Duration::from_secs(seconds));
    }
    let reset = number("x-rate-limit-reset")?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now)))
}

fn key_at(value: &Value, pointer: &str) -> Result<String, ProviderError> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ProviderError::Rejected(format!("resposta sem {pointer}")))
}

#[async_trait]
impl SignatureProvider for ClicksignProvider {
    async fn upload_document(&self, identifier: &str, pdf: &[u8]) -> Result<String, ProviderError> {
        let body = json!({"document": {
            "path": format!("/propostas/{identifier}.pdf"),
            "content_base64": format!("data:application/pdf;base64,{}", STANDARD.encode(pdf)),
            "auto_close": true,
            "locale": "pt-BR",
        }});
        key_at(&self.post("/api/v1/documents", body).await?, "/document/key")
    }

    async fn add_signers(&self, document_key: &str, signers: &[Signer]) -> Result<PartyKeys, ProviderError> {
        let mut keys = Vec::new();
        for signer in signers {
            // The client signs with a code sent to the phone; the entities sign by API.
            let auths = if signer.role == PartyRole::Client {
                json!(["sms"])
            } else {
                json!(["api"])
            };
            let created = self
                .post(
                    "/api/v1/signers",
                    json!({"signer": {
                        "name": signer.name,
                        "email": signer.email,
                        "phone_number": signer.phone,
                        "documentation": signer.document,
                        "has_documentation": signer.role == PartyRole::Client,
                        "auths": auths,
                        "delivery": "none",
                    }}),
                )
                .await?;
            let signer_key = key_at(&created, "/signer/key")?;
            let sign_as = if signer.role == PartyRole::Client {
                "sign"
            } else {
                "party"
            };
            let listed = self
                .post(
                    "/api/v1/lists",
                    json!({"list": {"document_key": document_key, "signer_key": signer_key, "sign_as": sign_as}}),
                )
                .await?;
            keys.push((signer.role, key_at(&listed, "/list/request_signature_key")?));
        }
        let key = |role: PartyRole| {
            keys.iter()
                .find(|(r, _)| *r == role)
                .map(|(_, k)| k.clone())
                .ok_or_else(|| ProviderError::Rejected(format!("sem signatário {}", role.as_str())))
        };
        Ok(PartyKeys {
            client: key(PartyRole::Client)?,
            association: key(PartyRole::Association)?,
            federation: key(PartyRole::Federation)?,
            enterprise: key(PartyRole::Enterprise)?,
        })
    }

    async fn notify(&self, request_key: &str, channel: ShippingType) -> Result<(), ProviderError> {
        let path = match channel {
            ShippingType::Sms => "/api/v1/notify_by_sms",
            ShippingType::Whatsapp => "/api/v1/notify_by_whatsapp",
        };
        self.post(path, json!({"request_signature_key": request_key}))
            .await
            .map(|_| ())
    }

    fn sign_url(&self, request_key: &str) -> String {
        format!("{}/sign/{request_key}", self.settings.base_url)
    }

    fn parse_callback(&self, headers: &[(String, String)], body: &[u8]) -> Result<ProviderEvent, CallbackError> {
        callback::parse(&self.settings.callback_secret, headers, body)
    }
}
