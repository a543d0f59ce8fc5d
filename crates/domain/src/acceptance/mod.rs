//! The contract after the signature (issue 45): the acceptance clock.
//!
//! Circular SUSEP 642/2021 lets each product set the longest time the insurer takes to accept or
//! refuse a proposal, the cases that suspend that time (a request for documents) and whether
//! silence accepts it. Each product keeps its [`AcceptancePolicy`] in the catalog; a proposal's
//! clock starts when it enters `EM ANÁLISE`, with the policy as it was then ([`AcceptanceClock`]).
//! At the deadline a proposal whose product accepts by silence becomes `APROVADO` with the reason
//! [`TACIT_ACCEPTANCE`]; any other is overdue, listed first for the analysts.

pub mod pending;
pub mod ports;
pub mod queue;
pub mod service;
#[cfg(test)]
mod tests;

use crate::validation::{Violations, codes};
use chrono::{DateTime, Duration, Utc};

/// The reason of the move to `APROVADO` when the deadline passed in silence.
pub const TACIT_ACCEPTANCE: &str = "ACEITE_TACITO";

/// Who moves a proposal accepted by silence, in its history and event.
pub const SWEEP_ACTOR: &str = "sistema:aceite";

/// The longest time a product may give itself to decide, in days.
pub const MAX_DAYS: u32 = 90;
/// The most requests for documents a product may let suspend the clock.
pub const MAX_SUSPENSIONS: u32 = 10;

/// A product's acceptance policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptancePolicy {
    /// Calendar days from the entry in `EM ANÁLISE` to decide.
    pub days: u32,
    /// Whether the proposal is accepted when the deadline passes without a decision.
    pub tacit: bool,
    /// How many requests for documents may suspend the clock.
    pub suspensions: u32,
}

impl Default for AcceptancePolicy {
    /// 15 days, accepted by silence, one suspension (what the products' terms said before each
    /// product kept its own).
    fn default() -> Self {
        Self {
            days: 15,
            tacit: true,
            suspensions: 1,
        }
    }
}

impl AcceptancePolicy {
    /// A policy within the service's bounds (1 to 90 days, 0 to 10 suspensions), each bad value
    /// named by the option that gave it.
    pub fn new(days: i64, tacit: bool, suspensions: i64) -> Result<Self, Violations> {
        let mut v = Violations::new();
        if !(1..=i64::from(MAX_DAYS)).contains(&days) {
            v.add(
                "days",
                codes::INVALID_VALUE,
                format!("days deve estar entre 1 e {MAX_DAYS}"),
            );
        }
        if !(0..=i64::from(MAX_SUSPENSIONS)).contains(&suspensions) {
            v.add(
                "suspensions",
                codes::INVALID_VALUE,
                format!("suspensions deve estar entre 0 e {MAX_SUSPENSIONS}"),
            );
        }
        v.into_result()?;
        Ok(Self {
            days: days as u32,
            tacit,
            suspensions: suspensions as u32,
        })
    }
}

/// A proposal's acceptance clock as it is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptanceClock {
    pub received_at: DateTime<Utc>,
    pub deadline: DateTime<Utc>,
    pub tacit: bool,
    pub suspensions_allowed: u32,
    pub suspended_since: Option<DateTime<Utc>>,
    /// When the proposal left `EM ANÁLISE`.
    pub decided_at: Option<DateTime<Utc>>,
    /// When the sweep found it past its deadline, undecided and not accepted by silence.
    pub overdue_since: Option<DateTime<Utc>>,
}

impl AcceptanceClock {
    /// The clock of a proposal entering `EM ANÁLISE` at `at`: the deadline `policy.days` calendar
    /// days later.
    pub fn start(at: DateTime<Utc>, policy: &AcceptancePolicy) -> Self {
        Self {
            received_at: at,
            deadline: at + Duration::days(i64::from(policy.days)),
            tacit: policy.tacit,
            suspensions_allowed: policy.suspensions,
            suspended_since: None,
            decided_at: None,
            overdue_since: None,
        }
    }

    /// The deadline once the clock resumes at `at`: moved by the time it stood suspended.
    pub fn resumed_deadline(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        match self.suspended_since {
            Some(since) if at > since => self.deadline + (at - since),
            _ => self.deadline,
        }
    }

    /// The clock resumed at `at`: running again to [`Self::resumed_deadline`], and overdue only if
    /// that deadline has passed too.
    pub fn resumed(&self, at: DateTime<Utc>) -> Self {
        let deadline = self.resumed_deadline(at);
        Self {
            deadline,
            suspended_since: None,
            overdue_since: self.overdue_since.filter(|_| deadline <= at),
            ..self.clone()
        }
    }

    /// Whether a request for documents may suspend the clock, `used` requests having suspended it
    /// before: only while it runs (one request open at a time), within the product's suspensions.
    pub fn may_suspend(&self, used: u32) -> Result<(), SuspendRefusal> {
        if self.decided_at.is_some() {
            Err(SuspendRefusal::Decided)
        } else if self.suspended_since.is_some() {
            Err(SuspendRefusal::AlreadySuspended)
        } else if used >= self.suspensions_allowed {
            Err(SuspendRefusal::NoSuspensionsLeft {
                allowed: self.suspensions_allowed,
            })
        } else {
            Ok(())
        }
    }

    /// Whether the clock runs out at `now`: still undecided, not suspended, and past its deadline.
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        self.decided_at.is_none() && self.suspended_since.is_none() && now >= self.deadline
    }
}

/// Why a request for documents may not suspend the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SuspendRefusal {
    #[error("a proposta já foi decidida")]
    Decided,
    #[error("há um pedido de documentos em aberto nesta proposta")]
    AlreadySuspended,
    #[error("o produto permite {allowed} suspensão(ões) do prazo de aceitação, já usada(s)")]
    NoSuspensionsLeft { allowed: u32 },
}

/// What one pass over the due clocks did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Identifiers of the proposals accepted by silence.
    pub accepted: Vec<String>,
    /// Identifiers of the proposals found overdue in this pass.
    pub overdue: Vec<String>,
}

/// What became of a due clock the store settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The proposal moved to `APROVADO` (tacit acceptance).
    Accepted { identifier: String },
    /// Marked overdue: a person must decide.
    Overdue { identifier: String },
}

/// A proposal's clock as route 7 shows it (`data.acceptance`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptanceView {
    pub received_at: DateTime<Utc>,
    pub deadline: DateTime<Utc>,
    pub tacit: bool,
    pub suspended_since: Option<DateTime<Utc>>,
    /// Whether the deadline passed undecided on a product that does not accept by silence.
    pub overdue: bool,
    /// The requests for documents, oldest first.
    pub pending: Vec<PendingRequest>,
    /// The back-office user the proposal is assigned to (the console's; not in route 7).
    pub analyst: Option<String>,
    /// A shop's sale collected at the sale: its provisional cover, from the payment until the
    /// insurer's decision (decision 271).
    pub provisional_cover: Option<crate::premium_collection::ProvisionalCover>,
}

/// A request for documents and, once given, the seller's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRequest {
    pub id: i64,
    pub items: Vec<String>,
    pub note: Option<String>,
    pub requested_by: String,
    pub requested_at: DateTime<Utc>,
    pub answer: Option<PendingAnswer>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAnswer {
    pub note: String,
    pub answered_by: String,
    pub answered_at: DateTime<Utc>,
    pub files: Vec<PendingFile>,
}

/// A file of an answer, as listed (its content is read on its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFile {
    pub id: i64,
    pub name: String,
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
}
