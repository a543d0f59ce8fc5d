//! Recording where a contract's refunds to pay go (`PUT /proposal/{identificador}/refund-destination`):
//! the seller that owns the proposal or the back office records the customer's Pix key or
//! account, and the customer is told by e-mail what is owed, by when, and where it will be paid,
//! so that a destination they did not give is noticed by them.

use crate::access::{AccessError, Operation, ScopeError, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::formats::{instant, reais};
use crate::mail::{MailKind, MailMessage, MailOutbox, RefundDestinationNotice};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::refunds::destination::{PIX_KEY_HOLDER, PixKey, RefundDestination, owed_line};
use crate::refunds::ports::RefundDestinationStore;
use crate::refunds::{RefundChannel, RefundRecord, TO_PAY};
use crate::store::StoreError;
use crate::validation::Violations;
use crate::values::Email;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// What recording did: the destination, and the contract's refunds still to pay there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedDestination {
    pub identifier: String,
    pub destination: RefundDestination,
    pub owed: Vec<RefundRecord>,
    pub recorded_by: String,
    pub at: DateTime<Utc>,
}

#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    /// A CPF key that is not the customer's.
    #[error("dados inválidos")]
    Invalid(Violations),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<ScopeError> for DestinationError {
    fn from(e: ScopeError) -> Self {
        match e {
            ScopeError::Store(e) => DestinationError::Store(e),
            ScopeError::Access(e) => DestinationError::Access(e),
        }
    }
}

#[derive(Clone)]
pub struct RefundDestinationService {
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub store: Arc<dyn RefundDestinationStore>,
    pub mail: Arc<dyn MailOutbox>,
    pub clock: Arc<dyn Clock>,
}

impl RefundDestinationService {
    /// Records the contract's destination (read by `RefundDestinationBody`), replacing the one
    /// before; a CPF key must be the customer's own.
    pub async fn record(
        &self,
        principal: &Principal,
        identifier: &str,
        destination: RefundDestination,
    ) -> Result<RecordedDestination, DestinationError> {
        authorize(principal, Operation::CancelProposal)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        let detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(DestinationError::NotFound)?;
        let person = &detail.customer.person;
        if let RefundDestination::Pix(PixKey::Cpf(cpf)) = &destination
            && cpf.as_str() != person.cpf
        {
            let mut v = Violations::new();
            v.add(
                "pixKey",
                PIX_KEY_HOLDER,
                "a chave Pix de CPF deve ser a do próprio cliente da proposta",
            );
            return Err(DestinationError::Invalid(v));
        }
        let at = self.clock.now();
        self.store
            .record(detail.proposal.id, &destination, &principal.email, at)
            .await?;
        tracing::info!(kind = destination.kind(), "refund destination recorded");
        let owed: Vec<RefundRecord> = detail
            .refunds
            .iter()
            .filter(|r| r.channel == RefundChannel::ToPay && r.status == TO_PAY)
            .cloned()
            .collect();
        match person.email.as_deref().and_then(|e| Email::parse(e).ok()) {
            Some(to) => self.mail.enqueue(MailMessage {
                to,
                kind: MailKind::RefundDestination(RefundDestinationNotice {
                    customer_name: person.social_name.clone().unwrap_or_else(|| person.full_name.clone()),
                    identifier: detail.proposal.identifier.clone(),
                    product: detail.product_name.clone(),
                    destination: destination.described(),
                    owed: owed.iter().map(owed_line).collect(),
                    total: (!owed.is_empty()).then(|| reais(owed.iter().map(|r| r.amount).sum())),
                    at: instant(at),
                }),
            }),
            None => tracing::warn!("customer without a usable e-mail: the refund destination was not mailed"),
        }
        Ok(RecordedDestination {
            identifier: detail.proposal.identifier.clone(),
            destination,
            owed,
            recorded_by: principal.email.clone(),
            at,
        })
    }
}
