//! The acceptance clock's use cases: a product's policy (the command line's `catalog
//! acceptance`) and the sweep every instance and the worker run (`acceptance sweep` runs one pass).

use super::pending::PendingAnswerInput;
use super::ports::{AcceptanceStore, PendingResumed, PendingStoreError, TacitMove};
use super::queue::{PendingFileContent, QueuePage, QueueQuery};
use super::{AcceptancePolicy, SWEEP_ACTOR, Settled, SweepReport, TACIT_ACCEPTANCE};
use crate::access::{AccessError, Operation, ScopeError, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::proposals::lifecycle::{self, StatusChange, Trigger};
use crate::proposals::ports::PartnerDirectory;
use crate::store::StoreError;
use crate::values::ProposalStatus;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AcceptanceError {
    #[error("produto {0} não encontrado")]
    ProductNotFound(i32),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a request for documents or its answer was not recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PendingError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Recorded(#[from] PendingStoreError),
}

impl From<ScopeError> for PendingError {
    fn from(e: ScopeError) -> Self {
        match e {
            ScopeError::Access(e) => PendingError::Access(e),
            ScopeError::Store(e) => PendingError::Recorded(PendingStoreError::Store(e)),
        }
    }
}

/// Clocks settled per transaction: each batch is a short claim.
pub const SWEEP_BATCH: i64 = 500;

#[derive(Clone)]
pub struct AcceptanceService {
    pub store: Arc<dyn AcceptanceStore>,
    /// Whom a seller represents (the answer is the proposal's seller's).
    pub partners: Arc<dyn PartnerDirectory>,
    pub clock: Arc<dyn Clock>,
}

impl AcceptanceService {
    /// Sets a product's policy; proposals already in analysis keep the clock they started with.
    pub async fn set_policy(
        &self,
        product_code: i32,
        policy: AcceptancePolicy,
        changed_by: &str,
    ) -> Result<AcceptancePolicy, AcceptanceError> {
        if self.store.set_policy(product_code, &policy, changed_by).await? {
            Ok(policy)
        } else {
            Err(AcceptanceError::ProductNotFound(product_code))
        }
    }

    pub async fn policy(&self, product_code: i32) -> Result<AcceptancePolicy, AcceptanceError> {
        self.store
            .policy(product_code)
            .await?
            .ok_or(AcceptanceError::ProductNotFound(product_code))
    }

    /// One pass: every clock due now is settled, in batches, until none is left. A proposal
    /// whose product accepts by silence becomes `APROVADO` (reason `ACEITE_TACITO`); any other is
    /// overdue.
    pub async fn sweep(&self) -> Result<SweepReport, AcceptanceError> {
        let now = self.clock.now();
        // The move is the machine's edge for tacit acceptance; the store fills in each proposal.
        lifecycle::check(
            ProposalStatus::InAnalysis,
            ProposalStatus::Approved,
            Trigger::TacitAcceptance,
        )
        .map_err(|e| StoreError::Unexpected(e.to_string()))?;
        let tacit = TacitMove {
            change: StatusChange {
                proposal_id: 0,
                from: ProposalStatus::InAnalysis,
                to: ProposalStatus::Approved,
                changed_by: SWEEP_ACTOR.to_owned(),
                reason_category: None,
                reason: Some(TACIT_ACCEPTANCE.to_owned()),
                at: now,
                operation: None,
            },
        };
        let mut report = SweepReport::default();
        loop {
            let batch = self.store.settle_due(now, SWEEP_BATCH, &tacit).await?;
            let full = batch.len() as i64 >= SWEEP_BATCH;
            for settled in batch {
                match settled {
                    Settled::Accepted { identifier } => {
                        tracing::info!(%identifier, "proposal accepted by silence at its deadline");
                        report.accepted.push(identifier);
                    }
                    Settled::Overdue { identifier } => {
                        tracing::warn!(%identifier, "proposal overdue: its deadline passed undecided");
                        report.overdue.push(identifier);
                    }
                }
            }
            if !full {
                return Ok(report);
            }
        }
    }

    /// `POST /proposal/{identificador}/pending/{id}/answer`: the proposal's seller answers; the
    /// clock runs again, its deadline moved by the time it stood.
    pub async fn answer_pending(
        &self,
        principal: &Principal,
        identifier: &str,
        pending_id: i64,
        answer: PendingAnswerInput,
    ) -> Result<PendingResumed, PendingError> {
        authorize(principal, Operation::AnswerPending)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        Ok(self
            .store
            .answer_pending(
                identifier,
                scope,
                pending_id,
                &answer,
                &principal.email,
                self.clock.now(),
            )
            .await?)
    }

    /// The analyst's queue (the back office's): the proposals in analysis, the overdue first.
    pub async fn queue(&self, principal: &Principal, query: &QueueQuery) -> Result<QueuePage, PendingError> {
        authorize(principal, Operation::AnalyseProposals)?;
        Ok(self.store.queue(query).await.map_err(PendingStoreError::from)?)
    }

    /// Assigns a proposal in analysis to a back-office user (`None`: to no one).
    pub async fn assign(
        &self,
        principal: &Principal,
        identifier: &str,
        analyst: Option<&str>,
    ) -> Result<(), PendingError> {
        authorize(principal, Operation::AnalyseProposals)?;
        let analyst = analyst.map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned);
        Ok(self
            .store
            .assign(identifier, analyst, &principal.email, self.clock.now())
            .await?)
    }

    /// A file the seller sent with an answer: to the back office and to the proposal's seller.
    pub async fn pending_file(
        &self,
        principal: &Principal,
        identifier: &str,
        file_id: i64,
    ) -> Result<PendingFileContent, PendingError> {
        authorize(principal, Operation::ReadProposal)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        Ok(self.store.pending_file(identifier, scope, file_id).await?)
    }

    /// How many proposals are overdue now (the metric and its alert).
    pub async fn overdue_count(&self) -> Result<i64, AcceptanceError> {
        Ok(self.store.overdue_count().await?)
    }
}
