//! How the Pix client reaches a PSP: over HTTPS with the payee's certificate (mutual TLS, as the
//! Manual de Segurança do Pix requires) and an OAuth2 token of client credentials, or, in
//! development, the sandbox PSP in process (`SandboxPsp`, beside this module).

use super::schema::Method;
use async_trait::async_trait;
use domain::billing::pix::PixError;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// One call of the API Pix: the path below the API's base, its query and its JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct PixRequest {
    pub method: Method,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Option<Value>,
}

/// The PSP's answer: its status and JSON body (`None` when it had none).
#[derive(Debug, Clone, PartialEq)]
pub struct PixAnswer {
    pub status: u16,
    pub body: Option<Value>,
}

/// An OAuth2 access token and how long it lasts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessToken {
    pub value: String,
    pub lasts: Duration,
}

#[async_trait]
pub trait PixTransport: Send + Sync {
    /// A token for the payee's client credentials (`grant_type=client_credentials`).
    async fn token(&self) -> Result<AccessToken, PixError>;
    /// Sends one call with the token as its bearer.
    async fn send(&self, token: &str, request: &PixRequest) -> Result<PixAnswer, PixError>;
}

/// What reaching a real PSP takes (`PIX_*`).
#[derive(Clone)]
pub struct PixSettings {
    /// The API's base, e.g. `https://pix.psp.com.br/api/v2` (`PIX_API_BASE`).
    pub base_url: String,
    /// The token endpoint (`PIX_TOKEN_URL`; by default `{PIX_API_BASE}/oauth/token`).
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    /// The payee's certificate and its private key, PEM (`PIX_CERT_FILE`, `PIX_KEY_FILE`).
    pub certificate_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
    /// Certificate authorities to trust for the PSP's server besides the public ones (PEM,
    /// `PIX_CA_FILE`): a PSP whose chain is ICP-Brasil's or its own.
    pub ca_pem: Option<Vec<u8>>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
}

/// HTTPS with the payee's certificate: every connection presents it, so the PSP knows the caller
/// before any token is read.
pub struct HttpsTransport {
    settings: PixSettings,
    http: reqwest::Client,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

fn unavailable(error: reqwest::Error) -> PixError {
    if error.is_timeout() {
        PixError::Timeout
    } else {
        PixError::Unavailable(error.without_url().to_string())
    }
}

impl HttpsTransport {
    pub fn new(settings: PixSettings) -> Result<Self, PixError> {
        let mut pem = settings.certificate_pem.clone();
        pem.push(b'\n');
        pem.extend_from_slice(&settings.key_pem);
        let identity = reqwest::Identity::from_pem(&pem)
            .map_err(|e| PixError::Unauthorized(format!("certificado ou chave do recebedor ilegível: {e}")))?;
        let mut builder = reqwest::Client::builder().use_rustls_tls().identity(identity);
        if let Some(pem) = &settings.ca_pem {
            let authorities = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| PixError::Unauthorized(format!("autoridades certificadoras ilegíveis: {e}")))?;
            if authorities.is_empty() {
                return Err(PixError::Unauthorized(
                    "nenhuma autoridade certificadora no arquivo".into(),
                ));
            }
            for authority in authorities {
                builder = builder.add_root_certificate(authority);
            }
        }
        let http = builder
            .https_only(true)
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.timeout)
            .build()
            // Only the TLS material can make this build fail: a key that does not read or match.
            .map_err(|e| PixError::Unauthorized(format!("certificado ou chave do recebedor inválidos: {e}")))?;
        Ok(Self { settings, http })
    }
}

#[async_trait]
impl PixTransport for HttpsTransport {
    async fn token(&self) -> Result<AccessToken, PixError> {
        let response = self
            .http
            .post(&self.settings.token_url)
            .basic_auth(&self.settings.client_id, Some(&self.settings.client_secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .map_err(unavailable)?;
        let status = response.status();
        if status.is_client_error() {
            return Err(PixError::Unauthorized(format!(
                "o PSP recusou as credenciais ({status})"
            )));
        }
        if !status.is_success() {
            return Err(PixError::Unavailable(format!("token: {status}")));
        }
        let answer: TokenAnswer = response
            .json()
            .await
            .map_err(|e| PixError::Malformed(format!("token: {e}")))?;
        Ok(AccessToken {
            value: answer.access_token,
            lasts: Duration::from_secs(answer.expires_in.unwrap_or(300)),
        })
    }

    async fn send(&self, token: &str, request: &PixRequest) -> Result<PixAnswer, PixError> {
        let url = format!("{}{}", self.settings.base_url.trim_end_matches('/'), request.path);
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
        };
        let mut builder = self.http.request(method, url).bearer_auth(token).query(&request.query);
        if let Some(body) = &request.body {
            builder = builder.json(body);
        }
        let response = builder.send().await.map_err(unavailable)?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(unavailable)?;
        let body = if bytes.is_empty() {
            None
        } else {
            Some(serde_json::from_slice(&bytes).map_err(|e| PixError::Malformed(format!("{status}: {e}")))?)
        };
        Ok(PixAnswer { status, body })
    }
}
