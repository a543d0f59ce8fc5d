//! What the billing needs from the store.

use super::payroll::ReportedDiscount;
use super::{BillingStatus, ChargeStatus};
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// A running contract whose billing status may change: what [`super::judge`] needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingCheck {
    pub proposal_id: i64,
    pub identifier: String,
    pub status: BillingStatus,
    /// The day its oldest presented charge still open or failed is unpaid from: its due date or,
    /// presented later, the Brasília day it was (a charge never presented makes nobody late,
    /// decision 265).
    pub oldest_unpaid_due: Option<NaiveDate>,
    pub grace_days: u32,
    pub suspension_days: u32,
    /// The Brasília day the open notice of lateness counts from (its receipt, or every delivery
    /// failed): the cover is suspended no sooner than its days after it (Lei 15.040 art. 20 §1).
    pub notice_from: Option<NaiveDate>,
}

/// What became of one line of an employer's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiscountOutcome {
    /// The charge is paid now; its contract is judged again.
    Paid { proposal_id: i64 },
    /// It was paid already (the report read twice): nothing changed.
    AlreadyPaid,
    /// No contract by that identifier has a charge of that month.
    NotFound,
    /// The contract is not paid by payroll discount.
    NotPayroll { method: String },
    /// The amount reported is not the charge's.
    AmountDiffers { expected: i64 },
    /// The charge was cancelled (or failed) before the report arrived.
    NotOpen { status: ChargeStatus },
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait BillingStore: Send + Sync {
    /// Creates, for every running contract, the charges falling due up to `horizon` that are not
    /// created yet, each once per contract and period (two instances never create one twice;
    /// each contract is claimed by one at a time), with their events; answers how many.
    async fn create_due(&self, horizon: NaiveDate, at: DateTime<Utc>) -> Result<u64, StoreError>;

    /// The running contracts whose billing status may differ on `today`: those not up to date,
    /// and those with a presented unpaid charge due before `today`.
    async fn to_judge(&self, today: NaiveDate) -> Result<Vec<BillingCheck>, StoreError>;

    /// One running contract's check, if it has a billing.
    async fn check_of(&self, proposal_id: i64) -> Result<Option<BillingCheck>, StoreError>;

    /// Moves a contract's billing status from `from` to `to` with its history entry, its event and
    /// its document, in one transaction; `false` when it was no longer `from` (another instance
    /// moved it).
    async fn move_status(
        &self,
        proposal_id: i64,
        from: BillingStatus,
        to: BillingStatus,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Applies one line of an employer's report to its payroll charge: paid once, whatever how
    /// many times the report is read.
    async fn record_discount(
        &self,
        discount: &ReportedDiscount,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<DiscountOutcome, StoreError>;
}
