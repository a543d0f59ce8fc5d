//! The contract after the signature (issues 45 and 68): the acceptance clock.
//!
//! Lei 15.040/2024, art. 49, gives the insurer at most 25 days from the proposal's receipt to
//! refuse it; its silence accepts it, and it may ask for documents or clarifications once, the
//! count standing still until the answer. Each product keeps its [`AcceptancePolicy`] within
//! those bounds, and may give its analysts a review target of fewer days; a proposal's clock
//! starts when it enters `EM ANÁLISE`, with the policy as it was then ([`AcceptanceClock`]). Past
//! the review target an undecided proposal is overdue, listed first for the analysts; at the
//! deadline it becomes `APROVADO` with the reason [`TACIT_ACCEPTANCE`]. Clocks started before the
//! law's bounds (not accepted by silence) are kept as they were and are only ever overdue.

pub mod pending;
pub mod ports;
pub mod proponent;
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

/// The longest time a product may give itself to decide, in days (Lei 15.040/2024, art. 49).
pub const MAX_DAYS: u32 = 25;
/// The most requests for documents a product may let suspend the clock: one (art. 49).
pub const MAX_SUSPENSIONS: u32 = 1;
/// The rule a policy is held to, as its refusals cite it.
pub const ACCEPTANCE_LAW: &str = "Lei 15.040/2024, art. 49";

/// A product's acceptance policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptancePolicy {
    /// Calendar days from the entry in `EM ANÁLISE` to decide.
    pub days: u32,
    /// Whether the proposal is accepted when the deadline passes without a decision.
    pub tacit: bool,
    /// How many requests for documents may suspend the clock.
    pub suspensions: u32,
    /// The analysts' own target, in calendar days from the entry in `EM ANÁLISE` and fewer than
    /// `days`: past it an undecided proposal is overdue for a person, before silence accepts it.
    pub review_days: Option<u32>,
    /// Whether the product lets its sellers collect documentation (`documentacao`) asked of the
    /// proposal; any other request, and every request when not, goes to the proponent
    /// (decision 289).
    pub seller_documents: bool,
}

impl Default for AcceptancePolicy {
    /// 15 days, accepted by silence, one suspension (what the products' terms said before each
    /// product kept its own).
    fn default() -> Self {
        Self {
            days: 15,
            tacit: true,
            suspensions: 1,
            review_days: None,
            seller_documents: true,
        }
    }
}

impl AcceptancePolicy {
    /// A policy within the law (1 to 25 days, accepted by silence, at most one request for
    /// documents; a review target of fewer days than the deadline), each bad value named by the
    /// option that gave it and the rule it breaks.
    pub fn new(days: i64, tacit: bool, suspensions: i64, review_days: Option<i64>) -> Result<Self, Violations> {
        let mut v = Violations::new();
        if !(1..=i64::from(MAX_DAYS)).contains(&days) {
            v.add(
                "days",
                codes::INVALID_VALUE,
                format!(
                    "days deve estar entre 1 e {MAX_DAYS}: a seguradora tem no máximo {MAX_DAYS} dias para recusar a proposta ({ACCEPTANCE_LAW})"
                ),
            );
        }
        if !tacit {
            v.add(
                "tacit",
                codes::INVALID_VALUE,
                format!("tacit deve ser yes: o silêncio da seguradora no prazo aceita a proposta ({ACCEPTANCE_LAW})"),
            );
        }
        if !(0..=i64::from(MAX_SUSPENSIONS)).contains(&suspensions) {
            v.add(
                "suspensions",
                codes::INVALID_VALUE,
                format!(
                    "suspensions deve ser 0 ou {MAX_SUSPENSIONS}: documentos ou esclarecimentos são pedidos uma única vez ({ACCEPTANCE_LAW})"
                ),
            );
        }
        if let Some(review) = review_days
            && !(1..days).contains(&review)
        {
            v.add(
                "review-days",
                codes::INVALID_VALUE,
                "review-days deve ser ao menos 1 e menor que days: a meta da análise vem antes do aceite pelo silêncio",
            );
        }
        v.into_result()?;
        Ok(Self {
            days: days as u32,
            tacit,
            suspensions: suspensions as u32,
            review_days: review_days.map(|r| r as u32),
            seller_documents: true,
        })
    }

    /// The policy with the product's sellers collecting documentation, or not (decision 289).
    pub fn with_seller_documents(self, seller_documents: bool) -> Self {
        Self {
            seller_documents,
            ..self
        }
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
    /// When the sweep found it past its review target undecided (or past its deadline, on a clock
    /// not accepted by silence).
    pub overdue_since: Option<DateTime<Utc>>,
    /// The analysts' target: past it, undecided, the proposal is overdue.
    pub review_by: Option<DateTime<Utc>>,
}

impl AcceptanceClock {
    /// The clock of a proposal entering `EM ANÁLISE` at `at`: the deadline `policy.days` calendar
    /// days later, the review target `policy.review_days` days later.
    pub fn start(at: DateTime<Utc>, policy: &AcceptancePolicy) -> Self {
        Self {
            received_at: at,
            deadline: at + Duration::days(i64::from(policy.days)),
            tacit: policy.tacit,
            suspensions_allowed: policy.suspensions,
            suspended_since: None,
            decided_at: None,
            overdue_since: None,
            review_by: policy.review_days.map(|d| at + Duration::days(i64::from(d))),
        }
    }

    /// How long the clock stood suspended, once resumed at `at`.
    fn stood(&self, at: DateTime<Utc>) -> Duration {
        match self.suspended_since {
            Some(since) if at > since => at - since,
            _ => Duration::zero(),
        }
    }

    /// The deadline once the clock resumes at `at`: moved by the time it stood suspended.
    pub fn resumed_deadline(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        self.deadline + self.stood(at)
    }

    /// The clock resumed at `at`: running again to [`Self::resumed_deadline`] (its review target
    /// moved alike), and overdue only if what made it so has passed again.
    pub fn resumed(&self, at: DateTime<Utc>) -> Self {
        let stood = self.stood(at);
        let resumed = Self {
            deadline: self.deadline + stood,
            review_by: self.review_by.map(|r| r + stood),
            suspended_since: None,
            ..self.clone()
        };
        let still_overdue = resumed.overdue_at(at);
        Self {
            overdue_since: self.overdue_since.filter(|_| still_overdue),
            ..resumed
        }
    }

    /// When an undecided proposal becomes overdue for a person: at its review target, or at its
    /// deadline on a clock not accepted by silence.
    pub fn overdue_from(&self) -> Option<DateTime<Utc>> {
        match (self.review_by, self.tacit) {
            (Some(review), _) => Some(review),
            (None, false) => Some(self.deadline),
            (None, true) => None,
        }
    }

    /// Whether the clock, undecided and running, is past the point that makes it overdue.
    fn overdue_at(&self, now: DateTime<Utc>) -> bool {
        self.overdue_from().is_some_and(|from| now >= from)
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
        self.running() && now >= self.deadline
    }

    /// What the sweep does with this clock at `now`: silence accepts it at its deadline; past its
    /// review target (or a deadline silence does not accept) it is marked overdue once.
    pub fn settlement(&self, now: DateTime<Utc>) -> Option<SweepAction> {
        if !self.running() {
            None
        } else if self.tacit && now >= self.deadline {
            Some(SweepAction::Accept)
        } else if self.overdue_since.is_none() && self.overdue_at(now) {
            Some(SweepAction::MarkOverdue)
        } else {
            None
        }
    }

    fn running(&self) -> bool {
        self.decided_at.is_none() && self.suspended_since.is_none()
    }
}

/// What the sweep does with a clock ([`AcceptanceClock::settlement`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepAction {
    /// The deadline passed in silence: the proposal is accepted.
    Accept,
    /// The review target passed undecided: a person must decide.
    MarkOverdue,
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
    /// The analysts' target, when the product sets one.
    pub review_by: Option<DateTime<Utc>>,
    /// Whether the review target (or a deadline silence does not accept) passed undecided.
    pub overdue: bool,
    /// The requests for documents, oldest first.
    pub pending: Vec<PendingRequest>,
    /// The back-office user the proposal is assigned to (the console's; not in route 7).
    pub analyst: Option<String>,
    /// A shop's sale collected at the sale: its provisional cover, from the payment until the
    /// insurer's decision (decision 271).
    pub provisional_cover: Option<crate::premium_collection::ProvisionalCover>,
}

/// A request for documents and, once given, its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRequest {
    pub id: i64,
    pub items: Vec<String>,
    pub note: Option<String>,
    pub category: crate::values::ReasonCategory,
    pub recipient: pending::PendingRecipient,
    pub requested_by: String,
    pub requested_at: DateTime<Utc>,
    pub answer: Option<PendingAnswer>,
}

impl PendingRequest {
    /// The request as `principal` reads it (decision 289): a request the proponent answers is the
    /// back office's to read; a seller reads that it was asked (its category, when, by whom) and
    /// answered (when), never what was asked, the note, the answer's words or its files.
    pub fn as_read_by(mut self, principal: &crate::auth::model::Principal) -> Self {
        if self.recipient == pending::PendingRecipient::Proponent
            && !crate::proposals::reasons::reads_the_words(principal)
        {
            self.items = Vec::new();
            self.note = None;
            if let Some(answer) = &mut self.answer {
                answer.note = String::new();
                answer.files = Vec::new();
            }
        }
        self
    }
}

impl AcceptanceView {
    /// The clock as `principal` reads it: each request as [`PendingRequest::as_read_by`].
    pub fn as_read_by(mut self, principal: &crate::auth::model::Principal) -> Self {
        if !crate::proposals::reasons::reads_the_words(principal) {
            self.pending = self.pending.into_iter().map(|p| p.as_read_by(principal)).collect();
        }
        self
    }
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
