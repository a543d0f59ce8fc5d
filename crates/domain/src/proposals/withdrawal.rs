//! The right of regret (Código de Defesa do Consumidor, art. 49; for insurance sold remotely,
//! Resolução CNSP 408/2021): a sale made outside the store may be undone within 7 days, with every
//! amount paid returned. The seller that owns the proposal or the back office asks for it
//! (`POST /proposal/{identificador}/withdraw`); everything received goes back "monetariamente
//! atualizado" (CDC art. 49, sole paragraph: corrected by the IPCA like every refund, the card up
//! to what it was charged and the rest to pay), the collection stops (the subscription, or the
//! PSP's charges and recurrence), and the proposal moves to `CANCELADO` with the reason
//! `ARREPENDIMENTO`, under a protocol, which the customer receives by e-mail. The money and the
//! record are [`SettlementService`]'s, as for the refusal and the cancellation.

use crate::access::{AccessError, Operation, Scope, authorize, scope_of};
use crate::auth::model::Principal;
use crate::ecommerce::{PaymentError, Refund};
use crate::proposals::lifecycle::{StatusEvent, Trigger, check};
use crate::proposals::model::ProposalDetail;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationFinisher, OperationId, OperationKind, PendingOperation, RecoveryOutcome,
    end_failed,
};
use crate::proposals::requests::Protocol;
use crate::proposals::settlement::{End, SettlementError, SettlementService};
use crate::refunds::RefundChannel;
use crate::refunds::ports::IndexError;
use crate::store::StoreError;
use crate::values::ProposalStatus;
use chrono::NaiveDate;

use crate::proposals::regret::concluded_at;
pub use crate::proposals::regret::{WITHDRAWAL_DAYS, WITHDRAWAL_REASON, last_day, within_regret};

/// A withdrawal as answered: its protocol, the status move and the refunds made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withdrawal {
    pub identifier: String,
    pub protocol: Protocol,
    pub event: StatusEvent,
    pub refunds: Vec<Refund>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WithdrawalError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    /// Only a concluded sale (signed, or paid online) not yet finished otherwise is undone.
    #[error("a proposta está {status}: o arrependimento vale para a venda concluída (EM ANÁLISE ou APROVADO)")]
    NotWithdrawable { status: ProposalStatus },
    #[error("a proposta não tem venda concluída: nem todas as partes assinaram e não há assinatura recorrente")]
    NotConcluded,
    #[error("o prazo de arrependimento terminou em {}: 7 dias corridos (horário de Brasília) após a conclusão da venda", last_day.format("%d/%m/%Y"))]
    DeadlinePassed { last_day: NaiveDate },
    /// The platform refused a refund: nothing of the withdrawal was recorded and the subscription
    /// is still live.
    #[error("a plataforma de pagamento recusou o reembolso da fatura {invoice}: {reason}")]
    RefundRefused { invoice: String, reason: String },
    /// Another operation with an outside effect is pending on the proposal.
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    OperationInProgress { kind: OperationKind },
    #[error(transparent)]
    Payment(#[from] PaymentError),
    /// The PSP failed to stop a Pix contract's collection or to give a Pix back: nothing was
    /// recorded.
    #[error(transparent)]
    Pix(#[from] crate::billing::pix::PixError),
    /// The IPCA's source did not answer: nothing was refunded.
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<SettlementError> for WithdrawalError {
    fn from(e: SettlementError) -> Self {
        match e {
            SettlementError::Access(a) => WithdrawalError::Access(a),
            SettlementError::NotFound => WithdrawalError::NotFound,
            SettlementError::Transition(t) => WithdrawalError::NotWithdrawable { status: t.from },
            SettlementError::NotCancellable { status } => WithdrawalError::NotWithdrawable { status },
            SettlementError::OperationInProgress { kind } => WithdrawalError::OperationInProgress { kind },
            SettlementError::RefundRefused { invoice, reason } => WithdrawalError::RefundRefused { invoice, reason },
            SettlementError::Index(e) => WithdrawalError::Index(e),
            SettlementError::Payment(e) => WithdrawalError::Payment(e),
            SettlementError::Pix(e) => WithdrawalError::Pix(e),
            SettlementError::Store(e) => WithdrawalError::Store(e),
            // The withdrawal's own judgement comes before the settlement, which never answers these.
            other @ (SettlementError::Signing(_)
            | SettlementError::Invalid(_)
            | SettlementError::WithinRegret { .. }) => {
                WithdrawalError::Store(StoreError::Unavailable(other.to_string()))
            }
        }
    }
}

impl From<crate::access::ScopeError> for WithdrawalError {
    fn from(e: crate::access::ScopeError) -> Self {
        match e {
            crate::access::ScopeError::Access(a) => WithdrawalError::Access(a),
            crate::access::ScopeError::Store(s) => WithdrawalError::Store(s),
        }
    }
}

#[derive(Clone)]
pub struct WithdrawalService {
    /// The ends that return money: its stores, platform, PSP, index, mail and clock (the 7 days
    /// are judged by it; in development, one the sandbox can move forward).
    pub settlement: SettlementService,
}

impl WithdrawalService {
    /// Undoes a concluded sale within the right of regret. The proposal is claimed first, so that
    /// no other operation or move touches it while the money goes back; then the money (every
    /// payment received returned, corrected, each under a key of its own, so that a retry or the
    /// worker finishing the operation refunds nothing twice), then the collection stopped, then
    /// the proposal, the protocol, the refunds, the subscription's state and the operation's end
    /// in one transaction; the customer is told by e-mail after it commits. A refund the platform
    /// refuses stops it before anything is recorded.
    #[tracing::instrument(skip_all)]
    pub async fn withdraw(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: Option<String>,
    ) -> Result<Withdrawal, WithdrawalError> {
        authorize(principal, Operation::CancelProposal)?;
        let s = &self.settlement;
        let scope = scope_of(principal, s.partners.as_ref()).await?;
        let detail = s
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(WithdrawalError::NotFound)?;
        let proposal = &detail.proposal;
        let from = proposal.status;
        check(from, ProposalStatus::Cancelled, Trigger::Withdrawal)
            .map_err(|_| WithdrawalError::NotWithdrawable { status: from })?;
        let moments = s.requests.sale_moments(proposal.id).await?;
        let concluded_at = concluded_at(proposal.flow, &moments).ok_or(WithdrawalError::NotConcluded)?;
        let now = s.clock.now();
        if !within_regret(concluded_at, now) {
            return Err(WithdrawalError::DeadlinePassed {
                last_day: last_day(concluded_at),
            });
        }
        let operation = NewOperation {
            id: OperationId::new(),
            proposal_id: proposal.id,
            kind: OperationKind::Withdrawal,
            expected: from,
            requested_by: principal.email.clone(),
            reason: reason.clone(),
            reason_category: None,
            target: None,
            at: now,
        };
        match s.claims.claim(&operation).await {
            Ok(()) => {}
            Err(ClaimError::InProgress { kind }) => return Err(WithdrawalError::OperationInProgress { kind }),
            Err(ClaimError::Moved { current }) => return Err(WithdrawalError::NotWithdrawable { status: current }),
            Err(ClaimError::Store(e)) => return Err(e.into()),
        }
        let withdrawn = self.settle(&detail, operation.id, &principal.email, reason).await;
        if let Err(error) = &withdrawn {
            end_failed(s.claims.as_ref(), operation.id, &error.to_string(), s.clock.now()).await;
        }
        let withdrawal = withdrawn?;
        tracing::info!(protocol = %withdrawal.protocol, refunds = withdrawal.refunds.len(), "sale withdrawn within the right of regret");
        Ok(withdrawal)
    }

    /// The withdrawal's effects and record, under its claim: by the request, or by the worker
    /// finishing an operation whose request died (the same keys: the platform answers the refunds
    /// it made and the subscription it cancelled).
    async fn settle(
        &self,
        detail: &ProposalDetail,
        operation: OperationId,
        by: &str,
        reason: Option<String>,
    ) -> Result<Withdrawal, WithdrawalError> {
        let reason = reason.unwrap_or_else(|| WITHDRAWAL_REASON.to_owned());
        let settled = self
            .settlement
            .settle(detail, End::Withdrawal, operation, by, &reason, None)
            .await?;
        let protocol = settled.protocol.ok_or_else(|| {
            WithdrawalError::Store(StoreError::Unavailable(
                "arrependimento registrado sem protocolo".into(),
            ))
        })?;
        // The answer lists the money moved now (the card's and the Pix's refunds); what the
        // finance team pays is in route 7's `data.refunds`.
        let refunds = settled
            .refunds
            .into_iter()
            .filter(|r| matches!(r.channel, RefundChannel::Platform | RefundChannel::Pix))
            .map(|r| Refund {
                id: r.id,
                invoice_id: r.invoice_id.unwrap_or_default(),
                amount: r.amount,
                status: r.status,
            })
            .collect();
        Ok(Withdrawal {
            identifier: detail.proposal.identifier.clone(),
            protocol,
            event: settled.event,
            refunds,
        })
    }

    /// The worker's end of a withdrawal whose request died: refunds and cancellation asked again
    /// under the same keys, then recorded. The deadline is not judged again: the customer asked in
    /// time. A refund the platform refuses ends the operation as failed (what it refunded before
    /// is found by `reconcile payments`).
    async fn finish_withdrawal(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, WithdrawalError> {
        let s = &self.settlement;
        let detail = s
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await?
            .ok_or(WithdrawalError::NotFound)?;
        match self
            .settle(&detail, operation.id, &operation.requested_by, operation.reason.clone())
            .await
        {
            Ok(_) => Ok(RecoveryOutcome::Finished),
            Err(WithdrawalError::RefundRefused { invoice, reason }) => {
                let why = format!("reembolso da fatura {invoice} recusado: {reason}");
                s.claims.fail(operation.id, &why, s.clock.now()).await?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other),
        }
    }
}

#[async_trait::async_trait]
impl OperationFinisher for WithdrawalService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[OperationKind::Withdrawal]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        self.finish_withdrawal(operation).await.map_err(|e| e.to_string())
    }
}

/// The development clock, now kept in the database for every instance (moved to [`crate::clock`]).
pub use crate::clock::ShiftedClock;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    #[test]
    fn the_shifted_clock_runs_ahead_by_whole_days() {
        let clock = ShiftedClock::default();
        let before = clock.now();
        clock.set_days_ahead(8);
        assert_eq!(clock.days_ahead(), 8);
        assert!(clock.now() - before >= chrono::Duration::days(8));
        clock.set_days_ahead(0);
        assert!(clock.now() - before < chrono::Duration::days(1));
    }
}
