//! The right of regret (Código de Defesa do Consumidor, art. 49; for insurance sold remotely,
//! Resolução CNSP 408/2021): a sale made outside the store may be undone within 7 days, with every
//! amount paid returned. The seller that owns the proposal or the back office asks for it
//! (`POST /proposal/{identificador}/withdraw`); the subscription is cancelled at the platform,
//! every paid invoice is refunded in full, and the proposal moves to `CANCELADO` with the reason
//! `ARREPENDIMENTO`, under a protocol.

use crate::access::{AccessError, Operation, Scope, authorize, scope_of};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::contract::formats::brasilia;
use crate::ecommerce::{PaymentError, PaymentGateway, Refund};
use crate::proposals::lifecycle::{StatusChange, StatusEvent, Trigger, check};
use crate::proposals::model::Flow;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_failed,
};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::proposals::requests::{CustomerRequestStore, NewCustomerRequest, Protocol, RequestKind, SaleMoments};
use crate::signature::ChangeStatusError;
use crate::store::StoreError;
use crate::values::ProposalStatus;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::sync::Arc;

/// The calendar days (Brasília) after the sale's conclusion within which the customer may regret.
pub const WITHDRAWAL_DAYS: u64 = 7;

/// The reason every withdrawal's status move carries.
pub const WITHDRAWAL_REASON: &str = "ARREPENDIMENTO";

/// The last Brasília day on which a sale concluded at `concluded_at` may be undone: the day of the
/// conclusion counts as day 0, so a sale signed on the 24th may be undone until the end of the 1st.
pub fn last_day(concluded_at: DateTime<Utc>) -> NaiveDate {
    let day = concluded_at.with_timezone(&brasilia()).date_naive();
    day.checked_add_days(Days::new(WITHDRAWAL_DAYS))
        .unwrap_or(NaiveDate::MAX)
}

/// Whether `now` is still within the right of regret of a sale concluded at `concluded_at`.
pub fn within_regret(concluded_at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    now.with_timezone(&brasilia()).date_naive() <= last_day(concluded_at)
}

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
    /// The PSP failed to stop a Pix contract's collection: nothing was recorded.
    #[error(transparent)]
    Pix(#[from] crate::billing::pix::PixError),
    #[error(transparent)]
    Store(#[from] StoreError),
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
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub requests: Arc<dyn CustomerRequestStore>,
    pub gateway: Arc<dyn PaymentGateway>,
    pub claims: Arc<dyn OperationClaims>,
    /// A Pix contract's collection, stopped at the PSP by the withdrawal; `None` where no PSP is
    /// configured.
    pub pix: Option<crate::billing::pix_collection::PixRefunds>,
    /// The clock the 7 days are judged by (in development, one the sandbox can move forward).
    pub clock: Arc<dyn Clock>,
}

impl WithdrawalService {
    /// Undoes a concluded sale within the right of regret. The proposal is claimed first, so that
    /// no other operation or move touches it while the money goes back; then the money (every
    /// paid invoice refunded, each under a key of its own, so that a retry or the worker finishing
    /// the operation refunds nothing twice), then the subscription cancelled, then the proposal,
    /// the protocol, the refunds, the subscription's state and the operation's end in one
    /// transaction. A refund the platform refuses stops it before anything is recorded.
    #[tracing::instrument(skip_all)]
    pub async fn withdraw(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: Option<String>,
    ) -> Result<Withdrawal, WithdrawalError> {
        authorize(principal, Operation::CancelProposal)?;
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        let detail = self
            .proposals
            .detail(identifier, scope)
            .await?
            .ok_or(WithdrawalError::NotFound)?;
        let proposal = &detail.proposal;
        let from = proposal.status;
        check(from, ProposalStatus::Cancelled, Trigger::Withdrawal)
            .map_err(|_| WithdrawalError::NotWithdrawable { status: from })?;
        let moments = self.requests.sale_moments(proposal.id).await?;
        let concluded_at = concluded_at(proposal.flow, &moments).ok_or(WithdrawalError::NotConcluded)?;
        let now = self.clock.now();
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
            target: None,
            at: now,
        };
        match self.claims.claim(&operation).await {
            Ok(()) => {}
            Err(ClaimError::InProgress { kind }) => return Err(WithdrawalError::OperationInProgress { kind }),
            Err(ClaimError::Moved { current }) => return Err(WithdrawalError::NotWithdrawable { status: current }),
            Err(ClaimError::Store(e)) => return Err(e.into()),
        }
        let withdrawn = self
            .refund_and_record(
                proposal.id,
                &proposal.identifier,
                from,
                operation.id,
                &principal.email,
                reason,
            )
            .await;
        if let Err(error) = &withdrawn {
            end_failed(self.claims.as_ref(), operation.id, &error.to_string(), self.clock.now()).await;
        }
        let withdrawal = withdrawn?;
        tracing::info!(protocol = %withdrawal.protocol, refunds = withdrawal.refunds.len(), "sale withdrawn within the right of regret");
        Ok(withdrawal)
    }

    /// The withdrawal's effects and record, under its claim: by the request, or by the worker
    /// finishing an operation whose request died (the same keys: the platform answers the refunds
    /// it made and the subscription it cancelled).
    async fn refund_and_record(
        &self,
        proposal_id: i64,
        identifier: &str,
        from: ProposalStatus,
        operation: OperationId,
        by: &str,
        reason: Option<String>,
    ) -> Result<Withdrawal, WithdrawalError> {
        let moments = self.requests.sale_moments(proposal_id).await?;
        let (refunds, subscription) = match &moments.subscription {
            Some(subscription) => {
                let refunds = self.refund_all(proposal_id, &subscription.platform_id).await?;
                let cancelled = self.gateway.cancel_subscription(&subscription.platform_id).await?;
                (refunds, Some(cancelled))
            }
            None => (Vec::new(), None),
        };
        // A Pix contract: the PSP debits nothing more (its sent charges and its recurrence
        // cancelled there), as the subscription is cancelled.
        let pix_stopped = match &self.pix {
            Some(pix) => match pix.stop_collecting(proposal_id).await {
                Ok(recurrence) => recurrence.map(|r| (pix, r)),
                Err(crate::billing::pix_collection::PixCollectionError::Psp(e)) => return Err(e.into()),
                Err(crate::billing::pix_collection::PixCollectionError::Store(e)) => return Err(e.into()),
                Err(crate::billing::pix_collection::PixCollectionError::NotPix) => None,
            },
            None => None,
        };
        let now = self.clock.now();
        let change = StatusChange {
            proposal_id,
            from,
            to: ProposalStatus::Cancelled,
            changed_by: by.to_owned(),
            reason: Some(WITHDRAWAL_REASON.to_owned()),
            at: now,
            operation: Some(operation),
        };
        let request = NewCustomerRequest {
            kind: RequestKind::Withdrawal,
            reason: reason.unwrap_or_else(|| WITHDRAWAL_REASON.to_owned()),
            requested_by: by.to_owned(),
            at: now,
            day: now.with_timezone(&brasilia()).date_naive(),
        };
        match self
            .requests
            .record_withdrawal(&change, &request, &refunds, subscription)
            .await
        {
            Ok((event, protocol)) => {
                if let Some((pix, recurrence)) = &pix_stopped {
                    pix.record_stopped(recurrence, by, now).await;
                }
                Ok(Withdrawal {
                    identifier: identifier.to_owned(),
                    protocol,
                    event,
                    refunds,
                })
            }
            Err(ChangeStatusError::Conflict { current }) => Err(WithdrawalError::NotWithdrawable { status: current }),
            Err(ChangeStatusError::Busy { kind }) => Err(WithdrawalError::OperationInProgress { kind }),
            Err(ChangeStatusError::OperationEnded) => Err(WithdrawalError::OperationInProgress {
                kind: OperationKind::Withdrawal,
            }),
            Err(ChangeStatusError::Store(e)) => Err(e.into()),
        }
    }

    /// The worker's end of a withdrawal whose request died: refunds and cancellation asked again
    /// under the same keys, then recorded. The deadline is not judged again: the customer asked in
    /// time. A refund the platform refuses ends the operation as failed (what it refunded before
    /// is found by `reconcile payments`).
    async fn finish_withdrawal(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, WithdrawalError> {
        let detail = self
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await?
            .ok_or(WithdrawalError::NotFound)?;
        match self
            .refund_and_record(
                operation.proposal_id,
                &operation.identifier,
                detail.proposal.status,
                operation.id,
                &operation.requested_by,
                operation.reason.clone(),
            )
            .await
        {
            Ok(_) => Ok(RecoveryOutcome::Finished),
            Err(WithdrawalError::RefundRefused { invoice, reason }) => {
                let why = format!("reembolso da fatura {invoice} recusado: {reason}");
                self.claims.fail(operation.id, &why, self.clock.now()).await?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other),
        }
    }

    async fn refund_all(&self, proposal_id: i64, subscription: &str) -> Result<Vec<Refund>, WithdrawalError> {
        let mut refunds = Vec::new();
        for invoice in self.gateway.paid_invoices(subscription).await? {
            let key = format!("withdrawal-{proposal_id}-{}", invoice.invoice_id);
            match self.gateway.refund(&invoice, invoice.amount, &key).await {
                Ok(refund) => refunds.push(refund),
                Err(PaymentError::Declined(reason)) => {
                    tracing::warn!(invoice = %invoice.invoice_id, %reason, "refund refused: withdrawal not recorded");
                    return Err(WithdrawalError::RefundRefused {
                        invoice: invoice.invoice_id,
                        reason,
                    });
                }
                Err(other) => return Err(other.into()),
            }
        }
        Ok(refunds)
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

/// When the sale was concluded: an online sale by its subscription's start, any other by its last
/// signature.
pub(crate) fn concluded_at(flow: Flow, moments: &SaleMoments) -> Option<DateTime<Utc>> {
    match flow {
        Flow::Ecommerce => moments.subscription.as_ref().map(|s| s.started_at),
        Flow::Partner => moments.last_signature,
    }
}

/// The development clock, now kept in the database for every instance (moved to [`crate::clock`]).
pub use crate::clock::ShiftedClock;

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn brt(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        brasilia()
            .with_ymd_and_hms(y, m, d, h, min, 0)
            .single()
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn seven_calendar_days_in_brasilia_count_from_the_day_after_the_conclusion() {
        // Signed at 23:30 in Brasília on the 24th (already the 25th in UTC): day 7 is the 1st.
        let signed = brt(2026, 11, 24, 23, 30);
        assert_eq!(last_day(signed), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert!(within_regret(signed, brt(2026, 12, 1, 23, 59)), "the whole 7th day");
        assert!(!within_regret(signed, brt(2026, 12, 2, 0, 0)), "the 8th day");
        assert!(within_regret(signed, signed));
    }

    #[test]
    fn an_online_sale_counts_from_its_subscription_and_any_other_from_its_last_signature() {
        let signed = brt(2026, 11, 20, 10, 0);
        let paid = brt(2026, 11, 22, 10, 0);
        let moments = SaleMoments {
            last_signature: Some(signed),
            subscription: Some(crate::proposals::requests::SubscriptionStart {
                platform_id: "sub_1".into(),
                started_at: paid,
                status: "active".into(),
            }),
        };
        assert_eq!(concluded_at(Flow::Ecommerce, &moments), Some(paid));
        assert_eq!(concluded_at(Flow::Partner, &moments), Some(signed));
        assert_eq!(concluded_at(Flow::Partner, &SaleMoments::default()), None);
    }

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

    mod use_case {
        use super::super::*;
        use crate::ecommerce::{MockPaymentGateway, PaidInvoice, PlatformSubscription};
        use crate::proposals::ports::{MockPartnerDirectory, MockProposalStore};
        use crate::proposals::requests::{MockCustomerRequestStore, SubscriptionStart};
        use crate::values::Application;

        fn office() -> Principal {
            Principal {
                user_id: 1,
                email: "bo@demo.com.br".into(),
                application: Application::BackOffice,
                session_id: uuid::Uuid::nil(),
            }
        }

        /// An online sale in analysis whose subscription started now, with one paid invoice.
        fn sale(gateway: MockPaymentGateway, requests: MockCustomerRequestStore) -> WithdrawalService {
            let mut proposals = MockProposalStore::new();
            proposals.expect_detail().returning(|_, _| {
                let mut detail = crate::testing::detail("EM ANÁLISE");
                detail.proposal.flow = Flow::Ecommerce;
                Ok(Some(detail))
            });
            WithdrawalService {
                proposals: Arc::new(proposals),
                partners: Arc::new(MockPartnerDirectory::new()),
                requests: Arc::new(requests),
                gateway: Arc::new(gateway),
                claims: Arc::new(crate::proposals::operations::accepting_claims()),
                pix: None,
                clock: Arc::new(crate::clock::SystemClock),
            }
        }

        fn moments() -> MockCustomerRequestStore {
            let mut requests = MockCustomerRequestStore::new();
            requests.expect_sale_moments().returning(|_| {
                Ok(SaleMoments {
                    last_signature: None,
                    subscription: Some(SubscriptionStart {
                        platform_id: "sub_1".into(),
                        started_at: Utc::now(),
                        status: "active".into(),
                    }),
                })
            });
            requests
        }

        fn paid(gateway: &mut MockPaymentGateway) {
            gateway.expect_paid_invoices().returning(|_| {
                Ok(vec![PaidInvoice {
                    invoice_id: "in_1".into(),
                    amount: 3990,
                    payment_intent: "pi_1".into(),
                    paid_at: None,
                    period: None,
                }])
            });
        }

        #[tokio::test]
        async fn a_refused_refund_cancels_nothing_and_records_nothing() {
            let mut gateway = MockPaymentGateway::new();
            paid(&mut gateway);
            gateway
                .expect_refund()
                .returning(|_, _, _| Err(PaymentError::Declined("refund_declined".into())));
            gateway.expect_cancel_subscription().never();
            let mut requests = moments();
            requests.expect_record_withdrawal().never();
            let result = sale(gateway, requests).withdraw(&office(), "id-1", None).await;
            assert_eq!(
                result,
                Err(WithdrawalError::RefundRefused {
                    invoice: "in_1".into(),
                    reason: "refund_declined".into()
                })
            );
        }

        #[tokio::test]
        async fn refunds_come_before_the_cancellation_and_both_are_recorded_with_the_move() {
            let mut gateway = MockPaymentGateway::new();
            paid(&mut gateway);
            gateway
                .expect_refund()
                .withf(|invoice, amount, key| {
                    invoice.payment_intent == "pi_1" && *amount == 3990 && key == "withdrawal-1-in_1"
                })
                .times(1)
                .returning(|invoice, _, _| {
                    Ok(Refund {
                        id: "re_1".into(),
                        invoice_id: invoice.invoice_id.clone(),
                        amount: invoice.amount,
                        status: "succeeded".into(),
                    })
                });
            gateway.expect_cancel_subscription().times(1).returning(|id| {
                Ok(PlatformSubscription {
                    id: id.to_owned(),
                    status: "canceled".into(),
                    current_period_end: None,
                    latest_invoice_status: None,
                    object: serde_json::Value::Null,
                })
            });
            let mut requests = moments();
            requests
                .expect_record_withdrawal()
                .withf(|change, request, refunds, subscription| {
                    change.reason.as_deref() == Some(WITHDRAWAL_REASON)
                        && change.to == ProposalStatus::Cancelled
                        && request.kind == RequestKind::Withdrawal
                        && request.reason == WITHDRAWAL_REASON
                        && refunds.len() == 1
                        && subscription.as_ref().is_some_and(|s| s.status == "canceled")
                })
                .times(1)
                .returning(|change, _, _, _| {
                    Ok((
                        StatusEvent {
                            id: 1,
                            proposal_id: change.proposal_id,
                            kind: crate::values::EventKind::StatusChange,
                            from: change.from,
                            to: change.to,
                            changed_by: change.changed_by.clone(),
                            changed_at: change.at,
                            sequence: 2,
                            reason: change.reason.clone(),
                        },
                        Protocol::new(change.at.date_naive(), 1),
                    ))
                });
            let done = sale(gateway, requests).withdraw(&office(), "id-1", None).await.unwrap();
            assert_eq!(done.refunds.len(), 1);
            assert_eq!(done.event.to, ProposalStatus::Cancelled);
        }
    }
}
