//! What the acceptance clock needs from the store.

use super::{AcceptancePolicy, Settled};
use crate::proposals::lifecycle::StatusChange;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// How a due clock whose product accepts by silence moves its proposal: the change the store
/// applies (its `proposal_id` and `from` filled by the store, per proposal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TacitMove {
    pub change: StatusChange,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait AcceptanceStore: Send + Sync {
    /// Stores the policy of the product with this code; `false` when there is none.
    async fn set_policy(
        &self,
        product_code: i32,
        policy: &AcceptancePolicy,
        changed_by: &str,
    ) -> Result<bool, StoreError>;

    /// The policy of the product with this code, if there is one.
    async fn policy(&self, product_code: i32) -> Result<Option<AcceptancePolicy>, StoreError>;

    /// Claims at most `limit` clocks due at `now` (running: undecided, not suspended, not yet
    /// overdue; `FOR UPDATE SKIP LOCKED`, so that instances sweeping at once share them) and
    /// settles each in one transaction: a tacit one's proposal moves as `tacit` says (history,
    /// event and document with it), any other is marked overdue at `now`. A proposal another
    /// operation holds is left for the next pass.
    async fn settle_due(&self, now: DateTime<Utc>, limit: i64, tacit: &TacitMove) -> Result<Vec<Settled>, StoreError>;

    /// How many proposals are overdue now (undecided, past the deadline, not accepted by silence).
    async fn overdue_count(&self) -> Result<i64, StoreError>;
}
