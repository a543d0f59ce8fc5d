//! The contract's ends that return money (issue 45): the insurer's refusal (`REPROVADO`), which
//! returns everything paid (Circular SUSEP 642/2021: a justified refusal reaches the proponent,
//! and the premium paid is returned, monetarily corrected), and the cancellation after the sale
//! ("a qualquer tempo", by the channel that sold it: Decreto 7.962/2013 art. 4, Decreto
//! 11.034/2022), which returns the unused part of the period paid, pro rata die.
//!
//! Both run under the proposal's claim (issue 44): the claim first, then the money (each refund
//! under a key of its own, so that a retry or the worker refunds nothing twice), then the
//! subscription cancelled, then the move, the request's protocol, the refunds and the operation's
//! end in one transaction; the customer is told by e-mail after it commits. Every other move and
//! every cancellation before the signature stay with [`SigningService`].

use crate::access::{AccessError, Operation, Scope, authorize, scope_of};
use crate::auth::model::Principal;
use crate::billing::arrears::{ARREARS_ACTOR, ContractEnd, DEFAULT_REASON, EndCause, EndError, EndedForDefault};
use crate::billing::pix::{PixError, refund_id};
use crate::billing::pix_collection::{PixCollectionError, PixRefunds};
use crate::billing::term::TERM_END_REASON;
use crate::clock::Clock;
use crate::contract::formats::{brasilia, instant, reais};
use crate::ecommerce::{PaymentError, PaymentGateway};
use crate::mail::{EndNotice, MailKind, MailMessage, MailOutbox};
use crate::proposals::lifecycle::{StatusChange, StatusEvent, TransitionError, Trigger, check};
use crate::proposals::model::ProposalDetail;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_failed, end_if_failed,
};
use crate::proposals::ports::{PartnerDirectory, ProposalStore};
use crate::proposals::reasons;
use crate::proposals::regret::{WITHDRAWAL_REASON, concluded_at, last_day, within_regret};
use crate::proposals::requests::{Cancellation, CustomerRequestStore, NewCustomerRequest, RequestKind};
use crate::proposals::signing::{SigningError, SigningService};
use crate::refunds::correction::months_between;
use crate::refunds::plan::{self, Payment, PlannedRefund};
use crate::refunds::ports::{IndexError, LatePayment, PriceIndex, RefundStore, Settlement};
use crate::refunds::{RefundChannel, RefundReason, RefundRecord, TO_PAY};
use crate::signature::ChangeStatusError;
use crate::store::StoreError;
use crate::validation::{Violations, codes};
use crate::values::{Email, PaymentType, ProposalStatus, ReasonCategory};
use chrono::{DateTime, Months, NaiveDate, Utc};
use std::sync::Arc;

/// Who gives back the payments received after their contract ended, in the operations' record.
pub const LATE_REFUND_ACTOR: &str = "sistema:devolucao";

/// How many late payments one pass gives back at most.
const LATE_PASS_LIMIT: i64 = 500;

/// The shortest and longest justification of a refusal (characters, trimmed): it reaches the
/// customer, so it says something.
pub const REFUSAL_REASON_CHARS: std::ops::RangeInclusive<usize> = 10..=500;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettlementError {
    /// A move or cancellation that [`SigningService`] owns, as it answered.
    #[error(transparent)]
    Signing(#[from] SigningError),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("proposta não encontrada")]
    NotFound,
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// A refusal without its justification (the field named).
    #[error("justificativa da recusa inválida")]
    Invalid(Violations),
    /// A finished proposal (`REPROVADO`, `CANCELADO`, `EXPIRADO`) has nothing left to cancel.
    #[error("a proposta está {status} e não pode mais ser cancelada")]
    NotCancellable { status: ProposalStatus },
    /// Within the right of regret the withdrawal, which returns everything, takes precedence.
    #[error(
        "a proposta está {status} e dentro do prazo de arrependimento (até {}): o pedido é de arrependimento, com devolução integral",
        last_day.format("%d/%m/%Y")
    )]
    WithinRegret {
        status: ProposalStatus,
        last_day: NaiveDate,
    },
    #[error("outra operação está em andamento nesta proposta: {}", kind.label())]
    OperationInProgress { kind: OperationKind },
    /// The platform refused a refund: nothing was recorded and the subscription is still live.
    #[error("a plataforma de pagamento recusou o reembolso da fatura {invoice}: {reason}")]
    RefundRefused { invoice: String, reason: String },
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Payment(#[from] PaymentError),
    /// The PSP failed a Pix `devolucao`: nothing was recorded.
    #[error(transparent)]
    Pix(#[from] PixError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<crate::access::ScopeError> for SettlementError {
    fn from(e: crate::access::ScopeError) -> Self {
        match e {
            crate::access::ScopeError::Access(a) => SettlementError::Access(a),
            crate::access::ScopeError::Store(s) => SettlementError::Store(s),
        }
    }
}

/// Which end, with what it records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Refusal,
    Cancellation,
    /// The right of regret (CDC art. 49), judged by the withdrawal's use case: everything
    /// received goes back, corrected.
    Withdrawal,
    /// The premium unpaid (Lei 15.040/2024 arts. 20–21), by the billing's arrears pass: what a
    /// later period paid left unused goes back, as on a cancellation.
    Default,
    /// The term ended on a product that does not renew (decision 270), by the billing's term
    /// pass: what a period paid past the end left unused goes back, as on a cancellation.
    AtTerm,
}

impl End {
    fn target(self) -> ProposalStatus {
        match self {
            End::Refusal => ProposalStatus::Rejected,
            End::Cancellation | End::Withdrawal | End::Default | End::AtTerm => ProposalStatus::Cancelled,
        }
    }

    fn kind(self) -> OperationKind {
        match self {
            End::Refusal => OperationKind::Refusal,
            End::Cancellation => OperationKind::ContractCancellation,
            End::Withdrawal => OperationKind::Withdrawal,
            End::Default => OperationKind::DefaultEnd,
            End::AtTerm => OperationKind::TermEnd,
        }
    }

    fn reason(self) -> RefundReason {
        match self {
            End::Refusal => RefundReason::Refusal,
            End::Cancellation | End::Default | End::AtTerm => RefundReason::Cancellation,
            End::Withdrawal => RefundReason::Withdrawal,
        }
    }

    /// The platform's idempotency keys' prefix.
    fn key(self) -> &'static str {
        match self {
            End::Refusal => "refusal",
            End::Cancellation => "cancellation",
            End::Withdrawal => "withdrawal",
            End::Default => "default",
            End::AtTerm => "term",
        }
    }
}

/// What an end recorded.
pub(crate) struct Settled {
    pub(crate) event: StatusEvent,
    pub(crate) protocol: Option<crate::proposals::requests::Protocol>,
    pub(crate) refunds: Vec<RefundRecord>,
}

#[derive(Clone)]
pub struct SettlementService {
    pub signing: SigningService,
    pub proposals: Arc<dyn ProposalStore>,
    pub partners: Arc<dyn PartnerDirectory>,
    pub requests: Arc<dyn CustomerRequestStore>,
    pub gateway: Arc<dyn PaymentGateway>,
    pub index: Arc<dyn PriceIndex>,
    pub refunds: Arc<dyn RefundStore>,
    pub claims: Arc<dyn OperationClaims>,
    pub mail: Arc<dyn MailOutbox>,
    /// The `PIX AUTOMÁTICO` contracts' paid charges and the PSP that gives them back; `None` where
    /// no PSP is configured (no contract is then paid by Pix).
    pub pix: Option<PixRefunds>,
    /// The clock the regret's days, the periods and the corrections are judged by.
    pub clock: Arc<dyn Clock>,
    /// The calendar days a refund to pay is due in (`REFUND_DUE_DAYS`).
    pub refund_due_days: u32,
}

impl SettlementService {
    /// The back office's move (`PATCH /proposal/{identificador}/status`): a refusal here, any
    /// other move by [`SigningService::change_status`].
    pub async fn change_status(
        &self,
        principal: &Principal,
        identifier: &str,
        to: ProposalStatus,
        reason: Option<String>,
        category: Option<ReasonCategory>,
    ) -> Result<StatusEvent, SettlementError> {
        if to != ProposalStatus::Rejected {
            return Ok(self
                .signing
                .change_status(principal, identifier, to, reason, category)
                .await?);
        }
        self.refuse(principal, identifier, reason, category).await
    }

    /// The insurer's refusal: judged as a move first (the state named when refused), then its
    /// justification; then everything paid goes back and the subscription is cancelled, under
    /// the proposal's claim; the customer receives the justification by e-mail.
    #[tracing::instrument(skip_all)]
    pub async fn refuse(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: Option<String>,
        category: Option<ReasonCategory>,
    ) -> Result<StatusEvent, SettlementError> {
        authorize(principal, Operation::ChangeStatus)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        check(from, ProposalStatus::Rejected, Trigger::BackOffice)?;
        let reason = refusal_reason(reason)?;
        let category = reasons::of_decision(ProposalStatus::Rejected, category);
        let operation = self
            .claim(&detail, End::Refusal, &principal.email, &reason, category)
            .await?;
        let settled = self
            .settle(&detail, End::Refusal, operation, &principal.email, &reason, category)
            .await;
        end_if_failed(self.claims.as_ref(), operation, &settled, self.clock.now()).await;
        let settled = settled?;
        tracing::info!(refunds = settled.refunds.len(), "proposal refused, payments returned");
        Ok(settled.event)
    }

    /// `POST /proposal/{identificador}/cancel`: before the signature by [`SigningService::cancel`];
    /// after it (`EM ANÁLISE`, `APROVADO`) at any time, effective at once, the unused part of the
    /// period paid returned and the subscription cancelled, under a protocol. Within the right of
    /// regret the customer's request is a withdrawal (everything returned): refused here, naming
    /// the last day of the regret.
    #[tracing::instrument(skip_all)]
    pub async fn cancel(
        &self,
        principal: &Principal,
        identifier: &str,
        reason: String,
    ) -> Result<Cancellation, SettlementError> {
        authorize(principal, Operation::CancelProposal)?;
        let detail = self.detail(principal, identifier).await?;
        let from = detail.proposal.status;
        match from {
            ProposalStatus::New | ProposalStatus::AwaitingSignature => {
                return Ok(self.signing.cancel(principal, identifier, reason).await?);
            }
            ProposalStatus::InAnalysis | ProposalStatus::Approved => {}
            status => return Err(SettlementError::NotCancellable { status }),
        }
        check(from, ProposalStatus::Cancelled, Trigger::ContractCancellation)?;
        let moments = self.requests.sale_moments(detail.proposal.id).await?;
        if let Some(concluded) = concluded_at(detail.proposal.flow, &moments)
            && within_regret(concluded, self.clock.now())
        {
            return Err(SettlementError::WithinRegret {
                status: from,
                last_day: last_day(concluded),
            });
        }
        let category = reasons::of_cancellation(principal);
        let operation = self
            .claim(&detail, End::Cancellation, &principal.email, &reason, category)
            .await?;
        let settled = self
            .settle(
                &detail,
                End::Cancellation,
                operation,
                &principal.email,
                &reason,
                category,
            )
            .await;
        end_if_failed(self.claims.as_ref(), operation, &settled, self.clock.now()).await;
        let settled = settled?;
        let protocol = settled.protocol.ok_or_else(|| {
            SettlementError::Store(StoreError::Unavailable("cancelamento registrado sem protocolo".into()))
        })?;
        tracing::info!(%protocol, refunds = settled.refunds.len(), "contract cancelled at the customer's request");
        Ok(Cancellation {
            identifier: detail.proposal.identifier.clone(),
            protocol,
            event: settled.event,
        })
    }

    async fn detail(&self, principal: &Principal, identifier: &str) -> Result<ProposalDetail, SettlementError> {
        let scope = scope_of(principal, self.partners.as_ref()).await?;
        self.proposals
            .detail(identifier, scope)
            .await?
            .ok_or(SettlementError::NotFound)
    }

    async fn claim(
        &self,
        detail: &ProposalDetail,
        end: End,
        by: &str,
        reason: &str,
        category: Option<ReasonCategory>,
    ) -> Result<OperationId, SettlementError> {
        let operation = NewOperation {
            id: OperationId::new(),
            proposal_id: detail.proposal.id,
            kind: end.kind(),
            expected: detail.proposal.status,
            requested_by: by.to_owned(),
            reason: Some(reason.to_owned()),
            reason_category: category,
            target: Some(end.target()),
            at: self.clock.now(),
        };
        match self.claims.claim(&operation).await {
            Ok(()) => Ok(operation.id),
            Err(ClaimError::InProgress { kind }) => Err(SettlementError::OperationInProgress { kind }),
            Err(ClaimError::Moved { current }) => Err(match end {
                End::Refusal => TransitionError {
                    from: current,
                    to: ProposalStatus::Rejected,
                }
                .into(),
                End::Cancellation | End::Withdrawal | End::Default | End::AtTerm => {
                    SettlementError::NotCancellable { status: current }
                }
            }),
            Err(ClaimError::Store(e)) => Err(e.into()),
        }
    }

    /// The end's effects and record, under its claim: by the request, or by the worker finishing
    /// an operation whose request died (the same keys: the platform answers the refunds it made
    /// and the subscription it cancelled).
    pub(crate) async fn settle(
        &self,
        detail: &ProposalDetail,
        end: End,
        operation: OperationId,
        by: &str,
        reason: &str,
        category: Option<ReasonCategory>,
    ) -> Result<Settled, SettlementError> {
        let proposal = &detail.proposal;
        let now = self.clock.now();
        let today = now.with_timezone(&brasilia()).date_naive();
        let moments = self.requests.sale_moments(proposal.id).await?;
        let subscription = moments.subscription.as_ref().map(|s| s.platform_id.clone());
        // A Pix contract stops collecting first: its sent charges and its recurrence cancelled at
        // the PSP, and any charge the PSP answers settled recorded paid, so that what follows
        // reads every cent received (a Pix settled while the contract ends is given back too).
        if let (Some(pix), Some(PaymentType::PixAutomatic)) =
            (&self.pix, detail.payment.as_ref().map(|p| p.payment_type))
        {
            match pix.stop_collecting(proposal.id, by, now).await {
                Ok(stopped) => {
                    if let Some(recurrence) = &stopped.recurrence {
                        pix.record_stopped(recurrence, by, now).await;
                    }
                }
                Err(PixCollectionError::Psp(e)) => return Err(e.into()),
                Err(PixCollectionError::Store(e)) => return Err(e.into()),
                Err(PixCollectionError::NotPix) => {}
            }
        }
        let card_invoices = match &subscription {
            Some(id) => self.gateway.paid_invoices(id).await?,
            None => Vec::new(),
        };
        let payments: Vec<Payment> = match &subscription {
            Some(_) => {
                let started = moments.subscription.as_ref().map_or(now, |s| s.started_at);
                card_invoices
                    .iter()
                    .cloned()
                    .map(|invoice| invoice_payment(invoice, started))
                    .collect()
            }
            // The service's own billing (payroll, account debit, Pix): the charges paid, at what
            // each rail reported received. A Pix goes back by its `devolucao` where a PSP is
            // configured; anything else is to pay.
            None => self
                .refunds
                .paid_charges(proposal.id)
                .await?
                .iter()
                .map(|charge| charge.payment(self.pix.is_some()))
                .collect(),
        };
        let rates = match plan::earliest_payment(&payments) {
            Some(first) => {
                let (first, last) = months_between(first, today);
                self.index.monthly(first, last).await?
            }
            None => Vec::new(),
        };
        let planned = match end {
            End::Refusal | End::Withdrawal => plan::refusal(&payments, today, &rates),
            End::Cancellation | End::Default | End::AtTerm => plan::cancellation(&payments, today, &rates),
        };
        let mut refunds = Vec::new();
        for (n, refund) in planned.iter().enumerate() {
            refunds.extend(self.pay_back(proposal.id, end, operation, n, refund, now).await?);
        }
        let cancelled = match &subscription {
            Some(id) => Some(self.gateway.cancel_subscription(id).await?),
            None => None,
        };
        let at = self.clock.now();
        let change = StatusChange {
            proposal_id: proposal.id,
            from: proposal.status,
            to: end.target(),
            changed_by: by.to_owned(),
            // A withdrawal's move always says why in one word; the customer's words are its request's.
            reason: Some(
                if end == End::Withdrawal {
                    WITHDRAWAL_REASON
                } else {
                    reason
                }
                .to_owned(),
            ),
            reason_category: category,
            at,
            operation: Some(operation),
        };
        let request_kind = match end {
            End::Refusal | End::Default | End::AtTerm => None,
            End::Cancellation => Some(RequestKind::Cancellation),
            End::Withdrawal => Some(RequestKind::Withdrawal),
        };
        let request = request_kind.map(|kind| NewCustomerRequest {
            kind,
            reason: reason.to_owned(),
            requested_by: by.to_owned(),
            at,
            day: at.with_timezone(&brasilia()).date_naive(),
        });
        let settlement = Settlement {
            change,
            request,
            refunds,
            subscription: cancelled,
            card_invoices,
        };
        let (event, protocol) = match self.refunds.record_settlement(&settlement).await {
            Ok(recorded) => recorded,
            Err(ChangeStatusError::Conflict { current }) => {
                return Err(match end {
                    End::Refusal => TransitionError {
                        from: current,
                        to: ProposalStatus::Rejected,
                    }
                    .into(),
                    End::Cancellation | End::Withdrawal | End::Default | End::AtTerm => {
                        SettlementError::NotCancellable { status: current }
                    }
                });
            }
            Err(ChangeStatusError::Busy { kind }) => return Err(SettlementError::OperationInProgress { kind }),
            Err(ChangeStatusError::OperationEnded) => {
                return Err(SettlementError::OperationInProgress { kind: end.kind() });
            }
            Err(ChangeStatusError::Store(e)) => return Err(e.into()),
        };
        self.tell_customer(detail, end, reason, protocol.as_ref(), &settlement.refunds, at);
        Ok(Settled {
            event,
            protocol,
            refunds: settlement.refunds,
        })
    }

    /// One planned refund paid back: the platform's part refunded to the card (a refusal stops
    /// everything before it is recorded), the rest recorded for the finance team to pay.
    async fn pay_back(
        &self,
        proposal_id: i64,
        end: End,
        operation: OperationId,
        n: usize,
        planned: &PlannedRefund,
        now: DateTime<Utc>,
    ) -> Result<Vec<RefundRecord>, SettlementError> {
        let mut records = Vec::new();
        let invoice_id = planned.payment.invoice.as_ref().map(|i| i.invoice_id.clone());
        if let (Some(paid), Some(pix)) = (
            planned.payment.pix.as_ref().filter(|_| planned.by_platform > 0),
            &self.pix,
        ) {
            // One `devolucao` per charge: its id is the charge's, so a retry (or the worker)
            // reaches the one made.
            let description = format!("{} - devolução", end.reason().as_str());
            let refund = match pix
                .psp
                .refund(
                    &paid.end_to_end_id,
                    &refund_id(paid.charge_id, 1),
                    planned.by_platform,
                    &description,
                )
                .await
            {
                Ok(refund) => refund,
                Err(PixError::Refused(reason)) => {
                    tracing::warn!(charge = paid.charge_id, %reason, "Pix refund refused: nothing recorded");
                    return Err(SettlementError::RefundRefused {
                        invoice: paid.txid.clone(),
                        reason,
                    });
                }
                Err(other) => return Err(other.into()),
            };
            records.push(RefundRecord {
                id: refund.id,
                invoice_id: Some(paid.txid.clone()),
                reason: end.reason(),
                channel: RefundChannel::Pix,
                amount: refund.amount_cents,
                nominal: planned.platform_nominal().min(refund.amount_cents),
                status: refund.status.as_str().to_owned(),
                correction: Some(planned.correction.clone()),
                reference: None,
                created_at: now,
                due_on: None,
            });
        }
        if let Some(invoice) = planned.payment.invoice.as_ref().filter(|_| planned.by_platform > 0) {
            let key = format!("{}-{proposal_id}-{}", end.key(), invoice.invoice_id);
            let refund = match self.gateway.refund(invoice, planned.by_platform, &key).await {
                Ok(refund) => refund,
                Err(PaymentError::Declined(reason)) => {
                    tracing::warn!(invoice = %invoice.invoice_id, %reason, "refund refused: nothing recorded");
                    return Err(SettlementError::RefundRefused {
                        invoice: invoice.invoice_id.clone(),
                        reason,
                    });
                }
                Err(other) => return Err(other.into()),
            };
            records.push(RefundRecord {
                id: refund.id,
                invoice_id: invoice_id.clone(),
                reason: end.reason(),
                channel: RefundChannel::Platform,
                amount: refund.amount,
                nominal: planned.platform_nominal().min(refund.amount),
                status: refund.status,
                correction: Some(planned.correction.clone()),
                reference: None,
                created_at: now,
                due_on: None,
            });
        }
        if planned.to_pay > 0 {
            records.push(RefundRecord {
                // The operation's id and the refund's place in it: the same on a retry.
                id: format!("ap_{}_{n}", operation.0.simple()),
                invoice_id,
                reason: end.reason(),
                channel: RefundChannel::ToPay,
                amount: planned.to_pay,
                nominal: planned.nominal - planned.platform_nominal(),
                status: TO_PAY.to_owned(),
                correction: Some(planned.correction.clone()),
                reference: None,
                created_at: now,
                due_on: Some(crate::refunds::due_date(now, self.refund_due_days)),
            });
        }
        Ok(records)
    }

    /// The customer's e-mail after the commit: the refusal's justification or the cancellation's
    /// protocol, and what goes back. A proposal without a usable address is only logged.
    fn tell_customer(
        &self,
        detail: &ProposalDetail,
        end: End,
        reason: &str,
        protocol: Option<&crate::proposals::requests::Protocol>,
        refunds: &[RefundRecord],
        at: DateTime<Utc>,
    ) {
        let person = &detail.customer.person;
        let Some(to) = person.email.as_deref().and_then(|e| Email::parse(e).ok()) else {
            tracing::warn!(kind = ?end, "customer without a usable e-mail: the end was not mailed");
            return;
        };
        let notice = EndNotice {
            customer_name: person.social_name.clone().unwrap_or_else(|| person.full_name.clone()),
            identifier: detail.proposal.identifier.clone(),
            product: detail.product_name.clone(),
            reason: reason.to_owned(),
            protocol: protocol.map(|p| p.to_string()),
            refunds: refunds.iter().map(refund_line).collect(),
            at: instant(at),
        };
        let kind = match end {
            End::Refusal => MailKind::ProposalRefused(notice),
            // The term's end was noticed before; this tells what went back, if anything.
            End::Cancellation | End::AtTerm => MailKind::ContractCancelled(notice),
            End::Withdrawal => MailKind::WithdrawalConfirmed(notice),
            // The arrears pass tells the customer by its own notice, recorded with its receipt.
            End::Default => return,
        };
        self.mail.enqueue(MailMessage { to, kind });
    }

    /// Gives back every payment received after its contract ended (every instance's billing pass
    /// and the worker's): each under the proposal's claim, all of it, corrected by the IPCA from
    /// its payment, by a `devolucao` of its Pix or as a refund to pay. The contract had cancelled
    /// the charge: nothing of it was owed (decision 243 nets no arrears, and collects none
    /// either). Answers how many were given back; one the PSP refuses stays to the next pass.
    #[tracing::instrument(skip_all)]
    pub async fn give_back_late_payments(&self) -> Result<usize, SettlementError> {
        let mut given = 0;
        for late in self.refunds.paid_after_end(LATE_PASS_LIMIT).await? {
            let operation = NewOperation {
                id: OperationId::new(),
                proposal_id: late.proposal_id,
                kind: OperationKind::LateRefund,
                expected: late.status,
                requested_by: LATE_REFUND_ACTOR.to_owned(),
                reason: Some(late_reason(late.charge.charge_id)),
                reason_category: None,
                target: None,
                at: self.clock.now(),
            };
            match self.claims.claim(&operation).await {
                Ok(()) => {}
                Err(ClaimError::InProgress { .. } | ClaimError::Moved { .. }) => continue,
                Err(ClaimError::Store(e)) => return Err(e.into()),
            }
            let result = self.give_back(&late, operation.id).await;
            end_if_failed(self.claims.as_ref(), operation.id, &result, self.clock.now()).await;
            match result {
                Ok(true) => given += 1,
                Ok(false) => {}
                Err(SettlementError::RefundRefused { invoice, reason }) => {
                    tracing::warn!(%invoice, %reason, "late payment's refund refused: tried again by the next pass");
                }
                Err(other) => return Err(other),
            }
        }
        Ok(given)
    }

    /// One late payment given back under `operation`: all of it, corrected.
    async fn give_back(&self, late: &LatePayment, operation: OperationId) -> Result<bool, SettlementError> {
        let now = self.clock.now();
        let today = day_of(now);
        let payment = late.charge.payment(self.pix.is_some());
        let (first, last) = months_between(payment.paid_on, today);
        let rates = self.index.monthly(first, last).await?;
        let end = match late.status {
            ProposalStatus::Rejected => End::Refusal,
            _ => End::Cancellation,
        };
        let mut records = Vec::new();
        for (n, planned) in plan::refusal(&[payment], today, &rates).iter().enumerate() {
            records.extend(self.pay_back(late.proposal_id, end, operation, n, planned, now).await?);
        }
        let recorded = self
            .refunds
            .record_late_refund(late, &records, operation, self.clock.now())
            .await?;
        if recorded {
            tracing::info!(
                charge = late.charge.charge_id,
                "payment received after the end given back"
            );
        }
        Ok(recorded)
    }

    /// The worker's end of a refusal or cancellation whose request died: the same steps again
    /// under the same keys. The regret's window is not judged again: the customer asked in time.
    async fn finish(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, SettlementError> {
        if operation.kind == OperationKind::LateRefund {
            return self.finish_late(operation).await;
        }
        let detail = self
            .proposals
            .detail(&operation.identifier, Scope::Everything)
            .await?
            .ok_or(SettlementError::NotFound)?;
        let end = match operation.kind {
            OperationKind::Refusal => End::Refusal,
            OperationKind::DefaultEnd => End::Default,
            OperationKind::TermEnd => End::AtTerm,
            _ => End::Cancellation,
        };
        let reason = operation
            .reason
            .clone()
            .unwrap_or_else(|| end.reason().as_str().to_owned());
        match self
            .settle(
                &detail,
                end,
                operation.id,
                &operation.requested_by,
                &reason,
                operation.reason_category,
            )
            .await
        {
            Ok(_) => Ok(RecoveryOutcome::Finished),
            Err(SettlementError::RefundRefused { invoice, reason }) => {
                let why = format!("reembolso da fatura {invoice} recusado: {reason}");
                self.claims.fail(operation.id, &why, self.clock.now()).await?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other),
        }
    }
}

impl SettlementService {
    /// The worker's end of a late payment's refund whose pass died: the same refund again (the
    /// PSP answers the `devolucao` it made under the charge's id), or ended when it was recorded.
    async fn finish_late(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, SettlementError> {
        let late = self
            .refunds
            .paid_after_end(LATE_PASS_LIMIT)
            .await?
            .into_iter()
            .find(|l| operation.reason.as_deref() == Some(late_reason(l.charge.charge_id).as_str()));
        let Some(late) = late else {
            self.claims
                .finish(operation.id, "pagamento já devolvido", self.clock.now())
                .await?;
            return Ok(RecoveryOutcome::Finished);
        };
        match self.give_back(&late, operation.id).await {
            Ok(_) => Ok(RecoveryOutcome::Finished),
            Err(SettlementError::RefundRefused { invoice, reason }) => {
                let why = format!("devolução de {invoice} recusada: {reason}");
                self.claims.fail(operation.id, &why, self.clock.now()).await?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other),
        }
    }
}

/// The late refund's operation names its charge.
fn late_reason(charge_id: i64) -> String {
    format!("cobrança {charge_id} paga após o encerramento")
}

#[async_trait::async_trait]
impl OperationFinisher for SettlementService {
    fn kinds(&self) -> &'static [OperationKind] {
        &[
            OperationKind::Refusal,
            OperationKind::ContractCancellation,
            OperationKind::LateRefund,
            OperationKind::DefaultEnd,
            OperationKind::TermEnd,
        ]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        self.finish(operation).await.map_err(|e| e.to_string())
    }
}

/// A refusal's justification: required, trimmed, of 10 to 500 characters (it reaches the
/// customer).
pub fn refusal_reason(reason: Option<String>) -> Result<String, SettlementError> {
    let reason = reason.map(|r| r.trim().to_owned()).unwrap_or_default();
    let chars = reason.chars().count();
    let mut v = Violations::new();
    if chars == 0 {
        v.add(
            "reason",
            codes::REQUIRED,
            "a recusa exige a justificativa (reason), que o cliente recebe",
        );
    } else if chars < *REFUSAL_REASON_CHARS.start() {
        v.add(
            "reason",
            codes::TOO_SHORT,
            format!(
                "a justificativa da recusa deve ter ao menos {} caracteres",
                REFUSAL_REASON_CHARS.start()
            ),
        );
    } else if chars > *REFUSAL_REASON_CHARS.end() {
        v.add(
            "reason",
            codes::TOO_LONG,
            format!(
                "a justificativa da recusa deve ter até {} caracteres",
                REFUSAL_REASON_CHARS.end()
            ),
        );
    }
    if v.is_empty() {
        Ok(reason)
    } else {
        Err(SettlementError::Invalid(v))
    }
}

/// A platform invoice as a payment: paid when the platform says (else when the subscription
/// started), for the period its line covers (else a month from its payment).
fn invoice_payment(invoice: crate::ecommerce::PaidInvoice, subscription_started: DateTime<Utc>) -> Payment {
    let paid_on = day_of(invoice.paid_at.unwrap_or(subscription_started));
    let (period_start, period_end) = match invoice.period {
        Some((start, end)) if end > start => (day_of(start), day_of(end)),
        _ => (
            paid_on,
            paid_on.checked_add_months(Months::new(1)).unwrap_or(NaiveDate::MAX),
        ),
    };
    Payment {
        amount: invoice.amount,
        invoice: Some(invoice),
        pix: None,
        paid_on,
        period_start,
        period_end,
    }
}

/// The Brasília day of an instant.
fn day_of(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&brasilia()).date_naive()
}

#[cfg(test)]
#[path = "settlement_tests.rs"]
mod tests;

/// A refund as the customer reads it (`R$ 40,02 devolvidos no cartão usado no pagamento`).
fn refund_line(refund: &RefundRecord) -> String {
    match refund.channel {
        RefundChannel::Platform => format!("{} devolvidos no cartão usado no pagamento", reais(refund.amount)),
        RefundChannel::Pix => format!("{} devolvidos por Pix à conta que pagou", reais(refund.amount)),
        RefundChannel::ToPay => format!(
            "{} a pagar por transferência ou Pix{}, na chave Pix ou conta sua que você informar ao seu vendedor",
            reais(refund.amount),
            refund
                .due_on
                .map(|due| format!(" até {}", crate::contract::formats::date(due)))
                .unwrap_or_default()
        ),
    }
}

/// Whether the contract, as read under the end's claim, is still in the default the pass ended
/// it for: the first instalment still unpaid, or the cover still suspended. An end at the term
/// depends on the calendar alone.
fn default_still_stands(detail: &ProposalDetail, cause: EndCause) -> bool {
    use crate::billing::{BillingStatus, ChargeStatus};
    match cause {
        EndCause::TermEnded => true,
        EndCause::FirstInstalment => !detail
            .charges
            .iter()
            .any(|c| c.period == 1 && c.status == ChargeStatus::Paid),
        EndCause::AfterSuspension => detail
            .billing
            .as_ref()
            .is_some_and(|b| b.status == BillingStatus::Suspended),
    }
}

/// The billing's arrears pass ends a contract for its unpaid premium here: under the proposal's
/// claim, the collection stopped (a Pix contract's recurrence and sent charges cancelled at the
/// PSP), what a later period paid left unused given back, and the move `APROVADO` → `CANCELADO`
/// with the reason `INADIMPLENCIA`, as every other end.
#[async_trait::async_trait]
impl ContractEnd for SettlementService {
    async fn end_for_default(&self, identifier: &str, cause: EndCause) -> Result<Option<EndedForDefault>, EndError> {
        let failed = |e: SettlementError| EndError(e.to_string());
        let detail = self
            .proposals
            .detail(identifier, Scope::Everything)
            .await
            .map_err(|e| EndError(e.to_string()))?;
        let Some(detail) = detail.filter(|d| d.proposal.status == ProposalStatus::Approved) else {
            return Ok(None);
        };
        let (end, trigger, reason) = match cause {
            EndCause::TermEnded => (End::AtTerm, Trigger::TermEnded, TERM_END_REASON),
            EndCause::FirstInstalment | EndCause::AfterSuspension => {
                (End::Default, Trigger::PremiumUnpaid, DEFAULT_REASON)
            }
        };
        check(detail.proposal.status, ProposalStatus::Cancelled, trigger).map_err(|e| failed(e.into()))?;
        let operation = match self.claim(&detail, end, ARREARS_ACTOR, reason, None).await {
            Ok(operation) => operation,
            // Another operation holds the proposal, or it moved: the next pass sees it again.
            Err(SettlementError::OperationInProgress { .. } | SettlementError::NotCancellable { .. }) => {
                return Ok(None);
            }
            Err(other) => return Err(failed(other)),
        };
        // The pass judged the contract from what it read at its start, maybe minutes ago: a
        // premium paid since (a bank's return file, a Pix settled) purged the default, and the
        // contract is read again under the claim before anything is stopped at a provider.
        let still_due = match self.proposals.detail(identifier, Scope::Everything).await {
            Ok(Some(now)) => default_still_stands(&now, cause),
            Ok(None) => false,
            Err(error) => {
                end_failed(self.claims.as_ref(), operation, &error.to_string(), self.clock.now()).await;
                return Err(EndError(error.to_string()));
            }
        };
        if !still_due {
            self.claims
                .finish(operation, "prêmio pago antes do encerramento", self.clock.now())
                .await
                .map_err(|e| EndError(e.to_string()))?;
            tracing::info!(?cause, "contract's premium paid before its end: not ended");
            return Ok(None);
        }
        let settled = self.settle(&detail, end, operation, ARREARS_ACTOR, reason, None).await;
        end_if_failed(self.claims.as_ref(), operation, &settled, self.clock.now()).await;
        let settled = settled.map_err(failed)?;
        tracing::info!(
            ?cause,
            refunds = settled.refunds.len(),
            "contract ended by the billing's pass"
        );
        Ok(Some(EndedForDefault {
            refunds: settled.refunds.iter().map(refund_line).collect(),
        }))
    }
}
