//! The sandbox provider: no outside account, no state of its own. Keys are random; the envelope is a key and nothing more; links point to
//! the service's own page `/sandbox/sign/:key`, whose button signs through the same use case as a
//! provider callback; notifications are only logged. Callbacks are verified like the real ones.

use crate::callback;
use async_trait::async_trait;
use domain::signature::{
    CallbackError, EnvelopeState, PartyKeys, ProviderError, ProviderEvent, SignatureProvider, Signer, SignerEvidence,
};
use domain::values::ShippingType;

pub struct SandboxProvider {
    /// The service's public base URL: links are built from it, never from a request.
    public_url: String,
    callback_secret: Vec<u8>,
}

impl SandboxProvider {
    pub fn new(public_url: &str, callback_secret: &[u8]) -> Self {
        Self {
            public_url: public_url.trim_end_matches('/').to_owned(),
            callback_secret: callback_secret.to_vec(),
        }
    }

    fn key(prefix: &str) -> String {
        format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
    }
}

#[async_trait]
impl SignatureProvider for SandboxProvider {
    fn name(&self) -> &'static str {
        "Sandbox (desenvolvimento)"
    }

    /// The sandbox keeps nothing beyond what its page reported with each signature.
    /// The sandbox keeps no envelopes: none to find.
    async fn find_envelope(&self, _identifier: &str) -> Result<Option<String>, ProviderError> {
        Ok(None)
    }

    /// The sandbox keeps no envelopes: nothing to compare.
    async fn envelope_state(&self, _document_key: &str) -> Result<Option<EnvelopeState>, ProviderError> {
        Ok(None)
    }

    async fn signing_evidence(&self, _document_key: &str) -> Result<Vec<SignerEvidence>, ProviderError> {
        Ok(Vec::new())
    }

    async fn upload_document(
        &self,
        identifier: &str,
        pdf: &[u8],
        deadline: chrono::DateTime<chrono::Utc>,
    ) -> Result<String, ProviderError> {
        tracing::info!(identifier, bytes = pdf.len(), %deadline, "sandbox: document received");
        Ok(Self::key("doc"))
    }

    async fn add_signers(
        &self,
        _document_key: &str,
        signers: &[Signer],
        _channel: ShippingType,
    ) -> Result<PartyKeys, ProviderError> {
        if signers.len() != 4 {
            return Err(ProviderError::Rejected(format!(
                "esperados 4 signatários, recebidos {}",
                signers.len()
            )));
        }
        Ok(PartyKeys {
            client: Self::key("req"),
            association: Self::key("req"),
            federation: Self::key("req"),
            enterprise: Self::key("req"),
        })
    }

    async fn notify(
        &self,
        _document_key: &str,
        _request_key: &str,
        channel: ShippingType,
    ) -> Result<(), ProviderError> {
        tracing::info!(channel = channel.as_str(), "sandbox: signing link notified");
        Ok(())
    }

    /// Nothing to close: a signature on the sandbox page after the cancellation reaches the use
    /// case as a late one, which changes nothing.
    async fn cancel_envelope(&self, document_key: &str) -> Result<(), ProviderError> {
        tracing::info!(document_key, "sandbox: envelope cancelled");
        Ok(())
    }

    /// The sandbox keeps no documents: the signed version is the service's own.
    async fn signed_copy(&self, _document_key: &str) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(None)
    }

    fn sign_url(&self, request_key: &str) -> String {
        format!("{}/sandbox/sign/{request_key}", self.public_url)
    }

    fn parse_callback(&self, headers: &[(String, String)], body: &[u8]) -> Result<ProviderEvent, CallbackError> {
        callback::parse(&self.callback_secret, headers, body)
    }
}
