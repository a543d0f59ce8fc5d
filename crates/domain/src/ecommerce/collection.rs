//! When the shop collects the premium (issue 67, decision 271). Lei 15.040/2024 art. 19 §2: "É
//! vedado o recebimento do prêmio antes de formado o contrato, salvo o caso de cobertura
//! provisória". A product sold at route 16 therefore either declares provisional cover (the
//! card is charged at the sale and the cover runs from that payment until the insurer accepts or
//! refuses) or collects only at acceptance: the platform's subscription is created held (a trial
//! the platform does not charge), the insurer's `APROVADO` ends the hold under the proposal's
//! claim ([`OperationKind::Collection`]) and the platform charges the first invoice then; a
//! refusal, a withdrawal or a cancellation cancels the held subscription with nothing collected.

pub use crate::premium_collection::{HELD_STATUS, HOLD_DAYS, PremiumCollection, ProvisionalCover, collection_clause};

use crate::clock::Clock;
use crate::ecommerce::{PaymentError, PaymentGateway, PlatformSubscription};
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_if_failed,
};
use crate::store::StoreError;
use crate::values::ProposalStatus;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// Who the history and the operations' record name for a collection at acceptance.
pub const COLLECTION_ACTOR: &str = "sistema:cobranca-aceite";

/// How many accepted contracts one pass collects at most.
const PASS_LIMIT: i64 = 500;

/// An accepted shop's contract whose subscription is still held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldSubscription {
    pub proposal_id: i64,
    pub identifier: String,
    pub proposal_status: ProposalStatus,
    /// The platform's id of the subscription.
    pub subscription: String,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CollectionStore: Send + Sync {
    /// Accepted (`APROVADO`) contracts whose subscription is held, oldest acceptance first.
    async fn held_after_acceptance(&self, limit: i64) -> Result<Vec<HeldSubscription>, StoreError>;
    /// The proposal's held subscription, whatever the proposal's status (the worker finishing a
    /// collection reads it again).
    async fn held_of(&self, proposal_id: i64) -> Result<Option<HeldSubscription>, StoreError>;
    /// Stores the platform's state of the subscription after the collection (the paid invoice
    /// enters the ledger, partners are told the payment's change) and ends `operation`, in one
    /// transaction. False when the operation was ended already (nothing stored).
    async fn record_collection(
        &self,
        platform: &PlatformSubscription,
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

#[derive(Debug, thiserror::Error)]
pub enum CollectionError {
    #[error(transparent)]
    Payment(#[from] PaymentError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a operação de cobrança foi encerrada por outro processo")]
    OperationEnded,
}

/// What one pass collected.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CollectionPass {
    /// The identifiers of the contracts whose first premium was charged (the platform's answer
    /// recorded, paid or not: a refused card is the platform's dunning's from here on).
    pub collected: Vec<String>,
    /// Left for a later pass (another operation held the proposal, the platform did not answer).
    pub deferred: usize,
}

/// The collection at acceptance.
#[derive(Clone)]
pub struct CollectionService {
    pub store: Arc<dyn CollectionStore>,
    pub gateway: Arc<dyn PaymentGateway>,
    pub claims: Arc<dyn OperationClaims>,
    pub clock: Arc<dyn Clock>,
}

/// The idempotency key of a proposal's collection: asked again (the worker finishing it), the
/// platform answers the first answer.
fn collection_key(proposal_id: i64) -> String {
    format!("collect-at-acceptance-{proposal_id}")
}

impl CollectionService {
    /// One pass: every accepted contract whose subscription is still held has it charged now,
    /// each under its proposal's claim.
    #[tracing::instrument(skip_all)]
    pub async fn run(&self) -> Result<CollectionPass, StoreError> {
        let mut pass = CollectionPass::default();
        for held in self.store.held_after_acceptance(PASS_LIMIT).await? {
            let operation = NewOperation {
                id: OperationId::new(),
                proposal_id: held.proposal_id,
                kind: OperationKind::Collection,
                expected: held.proposal_status,
                requested_by: COLLECTION_ACTOR.to_owned(),
                reason: Some(OperationKind::Collection.label().to_owned()),
                reason_category: None,
                target: None,
                at: self.clock.now(),
            };
            match self.claims.claim(&operation).await {
                Ok(()) => {}
                Err(ClaimError::Store(e)) => return Err(e),
                Err(other) => {
                    tracing::info!(%other, "collection at acceptance deferred");
                    pass.deferred += 1;
                    continue;
                }
            }
            let collected = self.collect(&held, operation.id).await;
            end_if_failed(self.claims.as_ref(), operation.id, &collected, self.clock.now()).await;
            match collected {
                Ok(_) => pass.collected.push(held.identifier),
                Err(CollectionError::Store(e)) => return Err(e),
                Err(error) => {
                    tracing::warn!(%error, "first premium not collected: tried again on the next pass");
                    pass.deferred += 1;
                }
            }
        }
        Ok(pass)
    }

    /// The hold ended at the platform (which charges the first invoice) and its answer recorded.
    async fn collect(
        &self,
        held: &HeldSubscription,
        operation: OperationId,
    ) -> Result<PlatformSubscription, CollectionError> {
        let platform = self
            .gateway
            .end_hold(&held.subscription, &collection_key(held.proposal_id))
            .await?;
        if !self
            .store
            .record_collection(&platform, operation, self.clock.now())
            .await?
        {
            return Err(CollectionError::OperationEnded);
        }
        tracing::info!(subscription = %platform.id, status = %platform.status, "first premium collected at acceptance");
        Ok(platform)
    }
}

#[async_trait]
impl OperationFinisher for CollectionService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[OperationKind::Collection]
    }

    /// A collection whose request died: asked again with the same key (the platform answers
    /// what it did the first time), or ended as failed when nothing is held any more.
    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        let held = self
            .store
            .held_of(operation.proposal_id)
            .await
            .map_err(|e| e.to_string())?;
        let Some(held) = held else {
            self.claims
                .fail(operation.id, "nenhuma assinatura retida", self.clock.now())
                .await
                .map_err(|e| e.to_string())?;
            return Ok(RecoveryOutcome::Failed);
        };
        match self.collect(&held, operation.id).await {
            Ok(_) => Ok(RecoveryOutcome::Finished),
            Err(CollectionError::Payment(PaymentError::Invalid(reason))) => {
                self.claims
                    .fail(operation.id, &reason, self.clock.now())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(error) => Err(error.to_string()),
        }
    }
}

#[cfg(test)]
#[path = "collection_tests.rs"]
mod tests;
