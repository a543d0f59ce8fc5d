//! What the sandbox provider's signing pages do (development only): show a party its proposal and
//! document, and sign as it. A party's click becomes the event a real provider would send, handed to
//! the same use case as a verified callback; the request key is the party's credential, as a
//! provider's link is.

use domain::access::Scope;
use domain::clock::Clock;
use domain::proposals::ports::ProposalStore;
use domain::proposals::signing::{SigningError, SigningService};
use domain::signature::{PartyEventOutcome, PartyRole, ProviderEvent, ProviderEventKind, SignatureStore};
use domain::values::{PartyStatus, ProposalStatus};
use std::sync::Arc;

#[derive(Clone)]
pub struct SandboxSigningPages {
    pub signing: SigningService,
    pub signatures: Arc<dyn SignatureStore>,
    pub proposals: Arc<dyn ProposalStore>,
    pub clock: Arc<dyn Clock>,
}

impl SandboxSigningPages {
    /// The proposal identifier, the party and its status for a request key.
    pub async fn party(&self, request_key: &str) -> Result<(String, PartyRole, PartyStatus), SigningError> {
        self.signatures
            .party_of_key(request_key)
            .await?
            .ok_or(SigningError::UnknownKey)
    }

    /// The party signs: the event the provider would report, with the address and browser the
    /// page was used from, recorded by the signing use case. A proposal cancelled or expired
    /// after the link went out refuses it, as a closed envelope would.
    pub async fn sign(
        &self,
        request_key: &str,
        ip: Option<String>,
        user_agent: Option<String>,
    ) -> Result<PartyEventOutcome, SigningError> {
        let event = ProviderEvent {
            event_id: format!("sandbox-sign-{request_key}"),
            request_key: request_key.to_owned(),
            kind: ProviderEventKind::Signed,
            at: self.clock.now(),
            latitude: None,
            longitude: None,
            ip,
            user_agent,
            authentication: Some("sandbox".to_owned()),
        };
        match self.signing.record(&event).await? {
            PartyEventOutcome::Ignored {
                status: ProposalStatus::Expired,
            } => Err(SigningError::Expired),
            PartyEventOutcome::Ignored { .. } => Err(SigningError::Cancelled),
            outcome => Ok(outcome),
        }
    }

    /// The document the party is asked to sign: the bytes sealed when it was sent; once every
    /// party signed, the signed version with its evidence page.
    pub async fn document(&self, request_key: &str) -> Result<Vec<u8>, SigningError> {
        let (identifier, _, _) = self.party(request_key).await?;
        let detail = self
            .proposals
            .detail(&identifier, Scope::Everything)
            .await?
            .ok_or(SigningError::NotFound)?;
        if let Some(signed) = self.signatures.signed(detail.proposal.id).await? {
            return Ok(signed.pdf);
        }
        let sealed = self.signatures.sealed(detail.proposal.id).await?;
        sealed.map(|s| s.pdf).ok_or(SigningError::NotSent)
    }
}
