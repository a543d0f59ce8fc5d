//! The customer revokes the authorisation of the debits through the insurer (Resolução CMN
//! 4.790/2020, art. 9: the payer may cancel it with the bank or with the payee; either way no debit
//! is made after it). The seller who owns the proposal or the back office registers the request
//! under a protocol, like a cancellation; the authorisation is `revogada` from then on, so no
//! remessa carries another debit of the contract. A debit already at the bank (sent, its return
//! awaited) is answered by the bank as any other.

use crate::access::{AccessError, Operation, ScopeError, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::proposals::requests::{NewCustomerRequest, Protocol, RequestKind};
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// An authorisation's state, as kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorizationStatus {
    /// Debits are sent.
    Active,
    /// The bank refused it (no account, no agreement).
    Refused,
    /// The customer revoked it, at the bank or through the insurer.
    Revoked,
}

impl AuthorizationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "ativa",
            Self::Refused => "recusada",
            Self::Revoked => "revogada",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Active, Self::Refused, Self::Revoked]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// What revoking did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    pub identifier: String,
    pub protocol: Protocol,
    pub at: DateTime<Utc>,
}

/// What the store found when it went to revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevocationOutcome {
    Revoked(Protocol),
    /// The contract has no authorisation (not paid by débito em conta, or not accepted yet).
    NoAuthorization,
    /// It has one, no longer active.
    NotActive(AuthorizationStatus),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AuthorizationStore: Send + Sync {
    /// Under the authorisation's row lock: if it is active, marks it `revogada` with the reason
    /// and who registered it, and records the customer's request under a new protocol, in one
    /// transaction (the history tells both).
    async fn revoke(&self, proposal_id: i64, request: &NewCustomerRequest) -> Result<RevocationOutcome, StoreError>;
}

#[derive(Debug, thiserror::Error)]
pub enum RevocationError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    #[error("a proposta não tem autorização de débito em conta")]
    NoAuthorization,
    #[error("a autorização de débito em conta já está {}", .0.as_str())]
    NotActive(AuthorizationStatus),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<ScopeError> for RevocationError {
    fn from(e: ScopeError) -> Self {
        match e {
            ScopeError::Store(e) => RevocationError::Store(e),
            ScopeError::Access(e) => RevocationError::Access(e),
        }
    }
}

#[derive(Clone)]
pub struct RevocationService {
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub store: Arc<dyn AuthorizationStore>,
    pub clock: Arc<dyn Clock>,
}

impl RevocationService {
    /// Registers the customer's revocation of the contract's debit authorisation, with the
    /// reason they gave (read by the body: `DebitRevocationBody`).
    pub async fn revoke(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: String,
    ) -> Result<Revocation, RevocationError> {
        authorize(principal, Operation::CancelProposal)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        let detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(RevocationError::NotFound)?;
        let at = self.clock.now();
        let request = NewCustomerRequest {
            kind: RequestKind::DebitRevocation,
            reason,
            requested_by: principal.email.clone(),
            at,
            day: crate::billing::brasilia_day(at),
        };
        match self.store.revoke(detail.proposal.id, &request).await? {
            RevocationOutcome::Revoked(protocol) => {
                tracing::info!(%protocol, "debit authorisation revoked at the customer's request");
                Ok(Revocation {
                    identifier: detail.proposal.identifier.clone(),
                    protocol,
                    at,
                })
            }
            RevocationOutcome::NoAuthorization => Err(RevocationError::NoAuthorization),
            RevocationOutcome::NotActive(status) => Err(RevocationError::NotActive(status)),
        }
    }
}
