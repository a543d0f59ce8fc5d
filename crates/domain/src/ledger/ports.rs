//! What the ledger's check needs from the store.

use crate::ledger::LedgerDrift;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

/// One batch of contracts compared.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckedBatch {
    /// How many contracts (proposals) the batch compared.
    pub contracts: u64,
    /// The last proposal's id: the next batch starts after it; `None` when there was none.
    pub last: Option<i64>,
    pub drifts: Vec<LedgerDrift>,
    /// How many missing entries were entered (only when mending).
    pub entered: u64,
}

/// The summary of a check, kept for the metric (any instance answers it from the store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckSummary {
    pub contracts: u64,
    pub drifted_contracts: u64,
    pub entered: u64,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait LedgerStore: Send + Sync {
    /// Compares the entries of up to `limit` proposals after `after` (by id) with the facts the
    /// rails recorded (charges, card invoices, refunds); with `mend`, enters what a fact lacks
    /// (an entry is never changed nor removed: the rest is reported).
    async fn check_batch(&self, after: i64, limit: i64, mend: bool) -> Result<CheckedBatch, StoreError>;
    /// Takes the day's check: `false` when another instance took it.
    async fn begin_daily_check(&self, day: NaiveDate, at: DateTime<Utc>) -> Result<bool, StoreError>;
    /// Records the day's check's summary.
    async fn finish_daily_check(
        &self,
        day: NaiveDate,
        summary: CheckSummary,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}
