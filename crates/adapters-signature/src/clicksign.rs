//! Clicksign's Envelope API (v3, JSON:API) over reqwest: the real `SignatureProvider`.
//!
//! Sending is: create an envelope (`POST /api/v3/envelopes`, closing at the signing deadline,
//! `deadline_at`, and reminding every `remind_interval` days), add the sealed PDF to it
//! (`/documents`), add the four signers (`/signers`), give each a qualification requirement
//! (`action: agree`, the client signing as `sign`, the entities as `party`) and an authentication
//! requirement (`action: provide_evidence`: the client by the proposal's channel, SMS or WhatsApp;
//! the entities by `api`), open it (`PATCH status: running`) and notify (`/notifications`). Our
//! keys are the provider's ids: the envelope's is the document key, each signer's its request key.
//! When the envelope closes, its document's signed file is downloaded. Cancelling a proposal
//! cancels its envelope (`PATCH status: canceled`).
//!
//! Requests time out after 30 s (the PDF travels as base64) and are retried with backoff on
//! connection errors, timeouts, 429 (honouring `Retry-After` or the rate-limit reset) and 5xx;
//! never on another 4xx, whose JSON:API `errors` are read into the refusal. The API has no
//! idempotency key: the use case saves each step's result before the next, so a retried send
//! resumes.

use crate::callback;
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use domain::signature::{
    CallbackError, EnvelopeState, PartyKeys, PartyRole, ProviderError, ProviderEvent, SignatureProvider, Signer,
    SignerEvidence,
};
use domain::values::ShippingType;
use observability::outbound;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

const JSON_API: &str = "application/vnd.api+json";

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
    /// Days between the envelope's reminders to the parties who have not signed (1, 2, 3, 7 or
    /// 14, as the API accepts); `None`: no reminders.
    pub remind_interval: Option<u8>,
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
            remind_interval: Some(3),
        }
    }
}

pub struct ClicksignProvider {
    settings: ClicksignSettings,
    http: reqwest::Client,
}

/// What one attempt says about trying again.
enum Attempt<T> {
    Done(T),
    Retry { wait: Option<Duration>, why: String },
    Fail(ProviderError),
}

/// A JSON:API error answer's details, joined (`errors[].detail`, else `title`, else `code`).
fn error_details(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let details: Vec<String> = parsed
        .as_ref()
        .and_then(|v| v["errors"].as_array())
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| {
                    let text = e["detail"].as_str().or(e["title"].as_str()).or(e["code"].as_str())?;
                    let field = e["source"]["pointer"]
                        .as_str()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default();
                    Some(format!("{text}{field}"))
                })
                .collect()
        })
        .unwrap_or_default();
    if details.is_empty() {
        body.chars().take(300).collect()
    } else {
        details.join("; ")
    }
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

    /// One request, classified; `body` is JSON:API (`None` for a GET), the answer raw bytes.
    async fn attempt(&self, method: &Method, url: &str, body: Option<&Value>, api: bool) -> Attempt<Vec<u8>> {
        let mut request = self.http.request(method.clone(), url);
        if api {
            request = request
                .header(reqwest::header::AUTHORIZATION, &self.settings.access_token)
                .header(reqwest::header::ACCEPT, JSON_API);
        }
        if let Some(body) = body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, JSON_API)
                .body(body.to_string());
        }
        let response = match outbound::send("clicksign", request).await {
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
            return Attempt::Retry {
                wait: reset_wait(response.headers()),
                why: "limite de requisições (429)".into(),
            };
        }
        if status.is_server_error() {
            return Attempt::Retry {
                wait: None,
                why: format!("erro do provedor ({status})"),
            };
        }
        let bytes = match response.bytes().await {
            Ok(b) => b.to_vec(),
            Err(e) if e.is_timeout() => {
                return Attempt::Retry {
                    wait: None,
                    why: "tempo esgotado".into(),
                };
            }
            Err(_) => {
                return Attempt::Retry {
                    wait: None,
                    why: "resposta interrompida".into(),
                };
            }
        };
        if !status.is_success() {
            return Attempt::Fail(ProviderError::Rejected(format!(
                "{status}: {}",
                error_details(&String::from_utf8_lossy(&bytes))
            )));
        }
        Attempt::Done(bytes)
    }

    async fn call(&self, method: Method, url: &str, body: Option<Value>, api: bool) -> Result<Vec<u8>, ProviderError> {
        let mut retries = self.settings.backoff.iter();
        loop {
            match self.attempt(&method, url, body.as_ref(), api).await {
                Attempt::Done(bytes) => return Ok(bytes),
                Attempt::Fail(error) => return Err(error),
                Attempt::Retry { wait, why } => {
                    let Some(backoff) = retries.next() else {
                        return Err(ProviderError::Unavailable(why));
                    };
                    let wait = wait.map_or(*backoff, |w| w.min(self.settings.max_rate_limit_wait));
                    tracing::warn!(%method, %why, wait_ms = wait.as_millis() as u64, "clicksign: retrying");
                    tokio::time::sleep(jitter(wait)).await;
                }
            }
        }
    }

    /// A JSON:API call to the Envelope API; an empty answer (202, 204) reads as null.
    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> Result<Value, ProviderError> {
        let url = format!("{}/api/v3{path}", self.settings.base_url);
        self.api_at(method, &url, body).await
    }

    /// [`Self::api`] at a whole URL of the Envelope API (a page's `links.next`).
    async fn api_at(&self, method: Method, url: &str, body: Option<Value>) -> Result<Value, ProviderError> {
        let bytes = self.call(method, url, body, true).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&bytes).map_err(|e| ProviderError::Rejected(format!("resposta ilegível: {e}")))
    }

    async fn create(
        &self,
        path: &str,
        kind: &str,
        attributes: Value,
        relationships: Option<Value>,
    ) -> Result<String, ProviderError> {
        let mut data = json!({"type": kind, "attributes": attributes});
        if let Some(relationships) = relationships {
            data["relationships"] = relationships;
        }
        id_of(&self.api(Method::POST, path, Some(json!({"data": data}))).await?)
    }

    /// The envelope's first (only) document: its id and, once signed, the signed file's link.
    async fn document_of(&self, envelope: &str) -> Result<(String, Option<String>), ProviderError> {
        let answer = self
            .api(Method::GET, &format!("/envelopes/{envelope}/documents"), None)
            .await?;
        let document = &answer["data"][0];
        let id = document["id"]
            .as_str()
            .ok_or_else(|| ProviderError::Rejected("envelope sem documento".into()))?;
        let signed = document["links"]["files"]["signed"].as_str().map(str::to_owned);
        Ok((id.to_owned(), signed))
    }
}

/// The name of a proposal's envelope, which a resumed send finds it by.
fn envelope_name(identifier: &str) -> String {
    format!("Proposta {identifier}")
}

/// The name as a query value (a space and the identifier's characters).
fn urlencoding_name(name: &str) -> String {
    url::form_urlencoded::byte_serialize(name.as_bytes()).collect()
}

fn id_of(answer: &Value) -> Result<String, ProviderError> {
    answer["data"]["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| ProviderError::Rejected("resposta sem data.id".into()))
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

fn channel_word(channel: ShippingType) -> &'static str {
    match channel {
        ShippingType::Sms => "sms",
        ShippingType::Whatsapp => "whatsapp",
    }
}

/// `000.000.000-00`, the form the API takes a signer's CPF in.
fn documentation(signer: &Signer) -> Option<String> {
    signer
        .document
        .as_deref()
        .filter(|d| d.len() == 11)
        .map(domain::contract::formats::cpf)
}

/// The most pages of an envelope's events read (four signatures and their notifications fit in
/// the first).
const MAX_EVENT_PAGES: usize = 20;

#[async_trait]
impl SignatureProvider for ClicksignProvider {
    fn name(&self) -> &'static str {
        "Clicksign"
    }

    async fn upload_document(
        &self,
        identifier: &str,
        pdf: &[u8],
        deadline: DateTime<Utc>,
    ) -> Result<String, ProviderError> {
        let mut attributes = json!({
            "name": envelope_name(identifier),
            "locale": "pt-BR",
            "auto_close": true,
            "block_after_refusal": true,
            "deadline_at": deadline.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        });
        if let Some(days) = self.settings.remind_interval {
            attributes["remind_interval"] = json!(days);
        }
        let envelope = self.create("/envelopes", "envelopes", attributes, None).await?;
        self.create(
            &format!("/envelopes/{envelope}/documents"),
            "documents",
            json!({
                "filename": format!("proposta-{identifier}.pdf"),
                "content_base64": format!("data:application/pdf;base64,{}", STANDARD.encode(pdf)),
            }),
            None,
        )
        .await?;
        Ok(envelope)
    }

    async fn add_signers(
        &self,
        document_key: &str,
        signers: &[Signer],
        channel: ShippingType,
    ) -> Result<PartyKeys, ProviderError> {
        let envelope = document_key;
        let (document, _) = self.document_of(envelope).await?;
        let mut keys = Vec::new();
        for signer in signers {
            let client = signer.role == PartyRole::Client;
            let signer_id = self
                .create(
                    &format!("/envelopes/{envelope}/signers"),
                    "signers",
                    json!({
                        "name": signer.name,
                        "email": signer.email,
                        "phone_number": signer.phone,
                        "has_documentation": documentation(signer).is_some(),
                        "documentation": documentation(signer),
                        "refusable": true,
                        "communicate_events": {
                            "signature_request": if client { channel_word(channel) } else { "none" },
                            "signature_reminder": "none",
                            "document_signed": if signer.email.is_some() { "email" } else { "none" },
                        },
                    }),
                    None,
                )
                .await?;
            let relationships = json!({
                "document": {"data": {"type": "documents", "id": document}},
                "signer": {"data": {"type": "signers", "id": signer_id}},
            });
            let requirements = format!("/envelopes/{envelope}/requirements");
            self.create(
                &requirements,
                "requirements",
                json!({"action": "agree", "role": if client { "sign" } else { "party" }}),
                Some(relationships.clone()),
            )
            .await?;
            self.create(
                &requirements,
                "requirements",
                json!({"action": "provide_evidence", "auth": if client { channel_word(channel) } else { "api" }}),
                Some(relationships),
            )
            .await?;
            keys.push((signer.role, signer_id));
        }
        self.api(
            Method::PATCH,
            &format!("/envelopes/{envelope}"),
            Some(json!({"data": {"id": envelope, "type": "envelopes", "attributes": {"status": "running"}}})),
        )
        .await?;
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

    /// The envelope's notification reaches its pending signers, each by the channel its
    /// `communicate_events` names (the client's: the proposal's `tipo_envio`).
    async fn notify(
        &self,
        document_key: &str,
        _request_key: &str,
        _channel: ShippingType,
    ) -> Result<(), ProviderError> {
        let body = json!({"data": {"type": "notifications", "attributes": {
            "message": "Sua proposta está pronta para assinatura.",
        }}});
        self.api(
            Method::POST,
            &format!("/envelopes/{document_key}/notifications"),
            Some(body),
        )
        .await
        .map(|_| ())
    }

    /// `PATCH status: canceled`. Refused when the envelope is cancelled already (a retried
    /// cancellation: the envelope is read back, and a cancelled one is what was asked for).
    async fn cancel_envelope(&self, document_key: &str) -> Result<(), ProviderError> {
        let path = format!("/envelopes/{document_key}");
        let body = json!({"data": {"id": document_key, "type": "envelopes", "attributes": {"status": "canceled"}}});
        match self.api(Method::PATCH, &path, Some(body)).await {
            Ok(_) => Ok(()),
            Err(ProviderError::Rejected(why)) => {
                let envelope = self.api(Method::GET, &path, None).await?;
                if envelope["data"]["attributes"]["status"] == "canceled" {
                    Ok(())
                } else {
                    Err(ProviderError::Rejected(why))
                }
            }
            Err(other) => Err(other),
        }
    }

    async fn find_envelope(&self, identifier: &str) -> Result<Option<String>, ProviderError> {
        let name = envelope_name(identifier);
        let query = format!("/envelopes?filter[name]={}", urlencoding_name(&name));
        let found = self.api(Method::GET, &query, None).await?;
        for envelope in found["data"].as_array().into_iter().flatten() {
            let open = matches!(envelope["attributes"]["status"].as_str(), Some("draft" | "running"));
            // The filter matches by part of the name: only this proposal's own.
            let ours = envelope["attributes"]["name"].as_str() == Some(name.as_str());
            if let (true, true, Some(id)) = (open, ours, envelope["id"].as_str())
                && self.document_of(id).await.is_ok()
            {
                return Ok(Some(id.to_owned()));
            }
        }
        Ok(None)
    }

    async fn envelope_state(&self, document_key: &str) -> Result<Option<EnvelopeState>, ProviderError> {
        let envelope = self
            .api(Method::GET, &format!("/envelopes/{document_key}"), None)
            .await?;
        match envelope["data"]["attributes"]["status"].as_str() {
            Some("draft" | "running") => Ok(Some(EnvelopeState::Open)),
            Some("closed") => Ok(Some(EnvelopeState::Closed)),
            Some("canceled") => Ok(Some(EnvelopeState::Cancelled)),
            other => Err(ProviderError::Rejected(format!(
                "estado de envelope desconhecido: {}",
                other.unwrap_or("ausente")
            ))),
        }
    }

    fn sign_url(&self, request_key: &str) -> String {
        format!("{}/sign/{request_key}", self.settings.base_url)
    }

    async fn signed_copy(&self, document_key: &str) -> Result<Option<Vec<u8>>, ProviderError> {
        let (_, signed) = self.document_of(document_key).await?;
        let Some(link) = signed else { return Ok(None) };
        // The link is pre-signed storage: no token travels to it.
        let pdf = self.call(Method::GET, &link, None, false).await?;
        if !pdf.starts_with(b"%PDF-") {
            return Err(ProviderError::Rejected("arquivo assinado não é um PDF".into()));
        }
        Ok(Some(pdf))
    }

    fn parse_callback(&self, headers: &[(String, String)], body: &[u8]) -> Result<ProviderEvent, CallbackError> {
        callback::parse(&self.settings.callback_secret, headers, body)
    }

    /// The envelope's events (`GET /envelopes/{id}/events`): each `sign` names its signer with
    /// how it was authenticated and from where.
    /// Page after page (`links.next`, only within the API's own address: the token goes nowhere
    /// else), at most [`MAX_EVENT_PAGES`].
    async fn signing_evidence(&self, document_key: &str) -> Result<Vec<SignerEvidence>, ProviderError> {
        let api = format!("{}/api/v3/", self.settings.base_url);
        let mut url = format!("{api}envelopes/{document_key}/events");
        let mut evidence = Vec::new();
        for _ in 0..MAX_EVENT_PAGES {
            let page = self.api_at(Method::GET, &url, None).await?;
            evidence.extend(
                page["data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(callback::signer_evidence),
            );
            match page["links"]["next"].as_str() {
                Some(next) if next.starts_with(&api) => url = next.to_owned(),
                _ => break,
            }
        }
        Ok(evidence)
    }
}
