//! The operations whose request died, finished by the recovery pass.

use super::{SigningError, SigningService};
use crate::access::Scope;
use crate::proposals::lifecycle::StatusChange;
use crate::proposals::operations::{OperationFinisher, OperationKind, PendingOperation, RecoveryOutcome};
use crate::proposals::reasons::StatedReason;
use crate::values::ProposalStatus;

impl SigningService {
    /// The worker's end of an operation whose request died: the same steps again, each answered
    /// by the provider as the first time (the envelope saved before the next step; a cancelled
    /// envelope cancels again), then the record. A proposal no longer where the operation found
    /// it (the operation held it, so only a deletion) ends it as failed.
    pub(super) async fn finish_operation(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, SigningError> {
        let detail = self
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await?
            .ok_or(SigningError::NotFound)?;
        let from = detail.proposal.status;
        let by = operation.requested_by.as_str();
        match (operation.kind, from) {
            (OperationKind::Sending, ProposalStatus::New) => {
                self.first_send(&detail, operation.id, by, true).await?;
            }
            // A resend died after (or before) its notification: one notification is enough.
            (OperationKind::Sending, _) => {
                self.claims
                    .finish(operation.id, "reenvio encerrado pelo worker", self.clock.now())
                    .await?;
            }
            (OperationKind::Cancellation, _) => {
                let reason = StatedReason {
                    words: operation.reason.clone().unwrap_or_else(|| "cancelamento".to_owned()),
                    category: operation.reason_category,
                };
                self.close_and_record(&detail, from, operation.id, by, reason).await?;
            }
            (OperationKind::StatusChange, _) => {
                self.close_envelope(detail.proposal.id).await?;
                let change = StatusChange {
                    proposal_id: detail.proposal.id,
                    from,
                    to: operation.target.unwrap_or(ProposalStatus::Cancelled),
                    changed_by: by.to_owned(),
                    reason: operation.reason.clone(),
                    reason_category: operation.reason_category,
                    at: self.clock.now(),
                    operation: Some(operation.id),
                };
                self.signatures.change_status(&change).await?;
            }
            (
                OperationKind::Subscription
                | OperationKind::Withdrawal
                | OperationKind::Refusal
                | OperationKind::ContractCancellation
                | OperationKind::PixRecurrence
                | OperationKind::PixCharge
                | OperationKind::LateRefund
                | OperationKind::DefaultEnd
                | OperationKind::Averbacao
                | OperationKind::AverbacaoCancel
                | OperationKind::TermEnd
                | OperationKind::Collection,
                _,
            ) => {
                return Err(SigningError::OperationInProgress { kind: operation.kind });
            }
        }
        Ok(RecoveryOutcome::Finished)
    }
}

#[async_trait::async_trait]
impl OperationFinisher for SigningService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[
            OperationKind::Sending,
            OperationKind::Cancellation,
            OperationKind::StatusChange,
        ]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        match self.finish_operation(operation).await {
            Ok(outcome) => Ok(outcome),
            // A move the state machine refuses now cannot be finished: ended as failed.
            Err(SigningError::Transition(_) | SigningError::NotCancellable { .. } | SigningError::NotFound) => {
                self.claims
                    .fail(operation.id, "a proposta não admite mais a operação", self.clock.now())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other.to_string()),
        }
    }
}
