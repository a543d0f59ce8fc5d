//! The back office's moves of a proposal and the cancellation at the customer's request.

use super::{SigningError, SigningService, refusal, transition};
use crate::access::{Operation, authorize};
use crate::auth::model::Principal;
use crate::proposals::lifecycle::{StatusChange, StatusEvent, TransitionError, Trigger, check};
use crate::proposals::model::ProposalDetail;
use crate::proposals::operations::{OperationId, OperationKind};
use crate::proposals::reasons::{self, GivenReason, StatedReason};
use crate::proposals::requests::{Cancellation, CustomerRequest, NewCustomerRequest, Protocol, RequestKind};
use crate::signature::ChangeStatusError;
use crate::values::{ProposalStatus, ReasonCategory};

impl SigningService {
    /// The back office approves, rejects or cancels. A cancellation closes the envelope, under the
    /// proposal's claim; any move is refused while another operation on the proposal is pending.
    pub async fn change_status(
        &self,
        principal: &Principal,
        identifier: &str,
        to: ProposalStatus,
        reason: Option<String>,
        category: Option<ReasonCategory>,
    ) -> Result<StatusEvent, SigningError> {
        authorize(principal, Operation::ChangeStatus)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        check(from, to, Trigger::BackOffice)?;
        let category = reasons::of_decision(to, category);
        let operation = if to == ProposalStatus::Cancelled {
            let operation = self
                .claim(
                    &detail,
                    OperationKind::StatusChange,
                    from,
                    &principal.email,
                    GivenReason {
                        words: reason.clone(),
                        category,
                    },
                    Some(to),
                )
                .await
                .map_err(|e| refusal(e, |current| transition(current, to)))?;
            let closed = self.close_envelope(detail.proposal.id).await;
            self.end_if_failed(operation, &closed).await;
            closed?;
            Some(operation)
        } else {
            None
        };
        let change = StatusChange {
            proposal_id: detail.proposal.id,
            from,
            to,
            changed_by: principal.email.clone(),
            reason,
            reason_category: category,
            at: self.clock.now(),
            operation,
        };
        match self.signatures.change_status(&change).await {
            Ok(event) => Ok(event),
            // Another change won the race: judge the move again from where it is now.
            Err(ChangeStatusError::Conflict { current }) => Err(TransitionError { from: current, to }.into()),
            Err(other) => Err(other.into()),
        }
    }

    /// Cancels a proposal at the customer's request: the seller that owns it (whoever sees it:
    /// another seller's is not found) or the back office, while it is not signed. The proposal is
    /// claimed first (nothing else touches it meanwhile), then the provider's envelope is
    /// cancelled, so that no party can sign after; a provider that fails leaves the proposal as it
    /// was. The request is kept under a new protocol, with the status change, its event (with the
    /// reason), its history and the operation's end, in one transaction.
    #[tracing::instrument(skip_all)]
    pub async fn cancel(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: String,
    ) -> Result<Cancellation, SigningError> {
        authorize(principal, Operation::CancelProposal)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        check(from, ProposalStatus::Cancelled, Trigger::Cancellation)
            .map_err(|_| SigningError::NotCancellable { status: from })?;
        let operation = self
            .claim(
                &detail,
                OperationKind::Cancellation,
                from,
                &principal.email,
                GivenReason {
                    words: Some(reason.clone()),
                    category: reasons::of_cancellation(principal),
                },
                None,
            )
            .await
            .map_err(|e| refusal(e, |status| SigningError::NotCancellable { status }))?;
        let stated = StatedReason {
            words: reason,
            category: reasons::of_cancellation(principal),
        };
        let cancelled = self
            .close_and_record(&detail, from, operation, &principal.email, stated)
            .await;
        self.end_if_failed(operation, &cancelled).await;
        let cancellation = cancelled?;
        tracing::info!(protocol = %cancellation.protocol, "proposal cancelled at the customer's request");
        Ok(cancellation)
    }

    /// The cancellation's effect and record: the envelope closed, then the request, the move and
    /// the operation's end in one transaction.
    pub(super) async fn close_and_record(
        &self,
        detail: &ProposalDetail,
        from: ProposalStatus,
        operation: OperationId,
        by: &str,
        reason: StatedReason,
    ) -> Result<Cancellation, SigningError> {
        self.close_envelope(detail.proposal.id).await?;
        let at = self.clock.now();
        let StatedReason {
            words: reason,
            category,
        } = reason;
        let change = StatusChange {
            proposal_id: detail.proposal.id,
            from,
            to: ProposalStatus::Cancelled,
            changed_by: by.to_owned(),
            reason: Some(reason.clone()),
            reason_category: category,
            at,
            operation: Some(operation),
        };
        let request = NewCustomerRequest {
            kind: RequestKind::Cancellation,
            reason,
            requested_by: by.to_owned(),
            at,
            day: at.with_timezone(&crate::contract::formats::brasilia()).date_naive(),
        };
        match self.requests.record(&change, &request).await {
            Ok((event, protocol)) => Ok(Cancellation {
                identifier: detail.proposal.identifier.clone(),
                protocol,
                event,
            }),
            // A signature won the race: judged from where it is now.
            Err(ChangeStatusError::Conflict { current }) => Err(SigningError::NotCancellable { status: current }),
            Err(other) => Err(other.into()),
        }
    }

    /// A customer's request found by its protocol (the back office).
    pub async fn customer_request(
        &self,
        principal: &Principal,
        protocol: &Protocol,
    ) -> Result<CustomerRequest, SigningError> {
        authorize(principal, Operation::ReadCustomerRequests)?;
        self.requests.find(protocol).await?.ok_or(SigningError::UnknownProtocol)
    }
}
