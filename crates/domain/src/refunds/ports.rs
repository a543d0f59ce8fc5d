//! What refunds need from outside: the IPCA's published months, and where refunds are kept with
//! the proposal's move that made them.

use crate::ecommerce::{PaidInvoice, PlatformSubscription};
use crate::proposals::lifecycle::{StatusChange, StatusEvent};
use crate::proposals::operations::OperationId;
use crate::proposals::requests::{NewCustomerRequest, Protocol};
use crate::refunds::RefundRecord;
use crate::refunds::correction::{Correction, MonthlyRate};
use crate::refunds::destination::RefundDestination;
use crate::refunds::plan::PaidCharge;
use crate::signature::ChangeStatusError;
use crate::store::StoreError;
use crate::values::ProposalStatus;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("fonte do IPCA indisponível: {0}")]
    Unavailable(String),
    #[error("resposta ilegível da fonte do IPCA: {0}")]
    Malformed(String),
}

/// The IPCA's monthly variations as published (the Central Bank's series 433 in production).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PriceIndex: Send + Sync {
    /// The published months from `first` to `last` (first days of months, both included); a
    /// month not published yet is simply absent.
    async fn monthly(&self, first: NaiveDate, last: NaiveDate) -> Result<Vec<MonthlyRate>, IndexError>;
}

/// A proposal's end with money: the move, the customer's request when there is one (a
/// cancellation's protocol), the refunds made and to pay, the subscription as the platform left it
/// after its cancellation, and the card invoices the platform reported paid (entered in the
/// ledger with the refunds that return them, when no event entered them before).
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    pub change: StatusChange,
    pub request: Option<NewCustomerRequest>,
    pub refunds: Vec<RefundRecord>,
    pub subscription: Option<PlatformSubscription>,
    pub card_invoices: Vec<PaidInvoice>,
}

/// A payment received after its contract ended: a charge cancelled with the contract that its
/// rail then reported paid (a Pix the PSP settled, a debit the bank returned paid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatePayment {
    pub proposal_id: i64,
    pub identifier: String,
    /// The proposal's status now (`CANCELADO`, `REPROVADO`): the claim expects it.
    pub status: ProposalStatus,
    pub charge: PaidCharge,
}

/// A refund the finance team has to pay, as `sales-api refunds pending` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundToPay {
    pub refund: RefundRecord,
    /// The proposal's identifier.
    pub identifier: String,
    /// Where the customer asked it paid; `None` until the seller or the back office records it.
    pub destination: Option<RefundDestination>,
    /// Past its due date: the correction from the refund's day to today, which paying it today
    /// adds (decision 253); set by the refunds service's `pending`.
    pub late_correction: Option<Correction>,
}

impl RefundToPay {
    /// What paying it today transfers: the amount, and the correction for the delay if late.
    pub fn owed_today(&self) -> i64 {
        self.late_correction
            .as_ref()
            .map_or(self.refund.amount, |c| c.apply(self.refund.amount))
    }
}

/// What marking a refund paid did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkedPaid {
    Marked,
    /// Paid before, under this reference: nothing changed.
    AlreadyPaid {
        reference: String,
    },
    NotFound,
    /// A platform refund: the platform paid it.
    NotToPay,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RefundStore: Send + Sync {
    /// Applies the settlement's move (only if the proposal is still in `change.from`), records
    /// its request under a new protocol when it has one, its refunds and the subscription's state,
    /// and ends its operation, in one transaction.
    async fn record_settlement(
        &self,
        settlement: &Settlement,
    ) -> Result<(StatusEvent, Option<Protocol>), ChangeStatusError>;
    /// The charges of the contract's own billing that were paid (payroll, account debit, Pix),
    /// each at the amount its rail reported received, oldest period first.
    async fn paid_charges(&self, proposal_id: i64) -> Result<Vec<PaidCharge>, StoreError>;
    /// The payments received after their contract ended and not given back yet, oldest first.
    async fn paid_after_end(&self, limit: i64) -> Result<Vec<LatePayment>, StoreError>;
    /// Records the refunds that give a late payment back, marks its charge given back, rewrites
    /// the proposal's document and ends `operation`, in one transaction; `false` when the charge
    /// had been given back already (nothing written).
    async fn record_late_refund(
        &self,
        late: &LatePayment,
        refunds: &[RefundRecord],
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// The refunds to pay not yet paid, oldest first, each with its contract's destination.
    async fn to_pay(&self) -> Result<Vec<RefundToPay>, StoreError>;
    /// One refund by its id.
    async fn find(&self, id: &str) -> Result<Option<RefundRecord>, StoreError>;
    /// Under the refund's row lock: marks a refund to pay as paid with the bank's reference and,
    /// when it was paid late, records `late` (the correction for the delay, paid with it), in one
    /// transaction.
    async fn mark_paid(
        &self,
        id: &str,
        reference: &str,
        by: &str,
        at: DateTime<Utc>,
        late: Option<RefundRecord>,
    ) -> Result<MarkedPaid, StoreError>;
    /// How many refunds to pay were due before `today` and are not paid yet.
    async fn overdue_count(&self, today: NaiveDate) -> Result<i64, StoreError>;
}

/// Where the refunds to pay of each contract go.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RefundDestinationStore: Send + Sync {
    /// Records (or replaces) the contract's destination, with who recorded it and when.
    async fn record(
        &self,
        proposal_id: i64,
        destination: &RefundDestination,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}
