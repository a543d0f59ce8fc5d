//! The contract's term (issue 67, decision 270): every accepted contract runs for its product's
//! months from the day the insurer received the proposal (the certificate's start of cover),
//! and then either renews for as many months (the product renews automatically) or ends.
//!
//! - No charge falls due on or after the current term's end: a renewed contract's next charges
//!   are created once the new term exists.
//! - At least [`NOTICE_DAYS_BEFORE_END`] days before the end the customer is told, by e-mail and
//!   text message with each delivery recorded as the arrears' notices are: the renewal ahead
//!   (with the new term's end) or the contract's end.
//! - On the end day a renewing contract gets its next term (the same months, from the old end)
//!   and a new certificate for it; one that does not renew ends (`APROVADO` → `CANCELADO`,
//!   reason [`TERM_END_REASON`]) under the proposal's claim, as every end: what a period paid past
//!   the end left unused goes back. It ends no sooner than the notice's days after the notice,
//!   so that a notice sent late gives the customer their days.
//!
//! [`TermService`] runs in the billing's pass, after the arrears' (every instance and the worker;
//! each notice and each renewal claimed once).

use super::arrears::{Contact, ContractEnd, EndCause, NoticeDelivery, SentNotice, send_by_every_channel};
use super::notice_kind::NoticeKind;
use super::{RUN_ACTOR, brasilia_day};
use crate::clock::Clock;
use crate::contract::formats::date;
use crate::mail::{MailKind, MailSender};
use crate::messaging::{MAX_TEXT_CHARS, MessageChannel, Messenger};
use crate::store::StoreError;
use crate::validation::{Violations, codes};
use async_trait::async_trait;
use chrono::{DateTime, Days, Months, NaiveDate, Utc};
use std::sync::Arc;

/// The term a product without its own declares: a year (the law presumes a year when the
/// contract says nothing of its term).
pub const DEFAULT_TERM_MONTHS: u32 = 12;
/// The longest term a product may declare.
pub const MAX_TERM_MONTHS: u32 = 60;
/// How many days before the term's end the customer is told of the renewal or of the end.
pub const NOTICE_DAYS_BEFORE_END: u32 = 30;
/// The reason of a contract ended at its term, in its status move.
pub const TERM_END_REASON: &str = "FIM_DE_VIGENCIA";
/// Who renews and ends contracts at their term, in the history and the operations.
pub const TERM_ACTOR: &str = RUN_ACTOR;

/// What happens at a term's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// A new term of the same months follows, after a notice.
    Automatic,
    /// The contract ends with its term, after a notice.
    None,
}

impl Renewal {
    /// As stored and shown (route 7's `data.term.renewal`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Automatic => "automatica",
            Self::None => "nenhuma",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Automatic, Self::None].into_iter().find(|r| r.as_str() == text)
    }
}

/// A product's term: its months and what happens at their end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermPolicy {
    pub months: u32,
    pub renewal: Renewal,
}

impl Default for TermPolicy {
    fn default() -> Self {
        Self {
            months: DEFAULT_TERM_MONTHS,
            renewal: Renewal::Automatic,
        }
    }
}

impl TermPolicy {
    /// A policy within the service's bounds, each bad value named by its option.
    pub fn new(months: i64, renewal: &str) -> Result<Self, Violations> {
        let mut v = Violations::new();
        if !(1..=i64::from(MAX_TERM_MONTHS)).contains(&months) {
            v.add(
                "months",
                codes::INVALID_VALUE,
                format!("months deve estar entre 1 e {MAX_TERM_MONTHS}"),
            );
        }
        let parsed = Renewal::parse(renewal.trim());
        if parsed.is_none() {
            v.add(
                "renewal",
                codes::INVALID_VALUE,
                "renewal deve ser automatica ou nenhuma",
            );
        }
        v.into_result()?;
        Ok(Self {
            months: months as u32,
            renewal: parsed.unwrap_or(Renewal::Automatic),
        })
    }
}

/// One term of a contract (route 7's `data.term`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContractTerm {
    /// 1 for the term of the acceptance, then one more per renewal.
    pub sequence: u32,
    /// The first day of cover.
    pub start: NaiveDate,
    /// The day the term ends: cover runs up to it, no charge falls due on or after it.
    pub end: NaiveDate,
    pub renewal: Renewal,
    /// When this term was made by a renewal (`None` for the first).
    pub renewed_at: Option<DateTime<Utc>>,
}

/// The end of a term of `months` starting on `start`: the same day so many months later (the
/// month's last day when it has no such day).
pub fn term_end(start: NaiveDate, months: u32) -> NaiveDate {
    start.checked_add_months(Months::new(months)).unwrap_or(NaiveDate::MAX)
}

/// The first term of a contract accepted at `accepted_at`: from the Brasília day the insurer
/// received the proposal (its entry in analysis), or the acceptance's when that is unknown.
pub fn first_term(received_at: Option<DateTime<Utc>>, accepted_at: DateTime<Utc>, policy: TermPolicy) -> ContractTerm {
    let start = brasilia_day(received_at.unwrap_or(accepted_at));
    ContractTerm {
        sequence: 1,
        start,
        end: term_end(start, policy.months),
        renewal: policy.renewal,
        renewed_at: None,
    }
}

/// The term after `term`, renewed at `at` for `months`.
pub fn next_term(term: &ContractTerm, months: u32, at: DateTime<Utc>) -> ContractTerm {
    ContractTerm {
        sequence: term.sequence + 1,
        start: term.end,
        end: term_end(term.end, months),
        renewal: term.renewal,
        renewed_at: Some(at),
    }
}

/// A running contract near or past its term's end, with what the steps need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermCase {
    pub proposal_id: i64,
    pub identifier: String,
    /// Its certificate's number, of the current term.
    pub certificate: String,
    pub product: String,
    pub term: ContractTerm,
    /// The months a renewal adds (the contract keeps those of its acceptance).
    pub months: u32,
    /// When this term's notice was sent, if it was.
    pub noticed_at: Option<DateTime<Utc>>,
    pub contact: Contact,
}

/// What the term asks next of a contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermStep {
    Nothing,
    Notify(NoticeKind),
    Renew,
    End,
}

/// The notice a term's end calls for.
pub fn notice_kind(renewal: Renewal) -> NoticeKind {
    match renewal {
        Renewal::Automatic => NoticeKind::Renewal,
        Renewal::None => NoticeKind::TermEnd,
    }
}

/// The day a contract that does not renew ends: its term's end, or the notice's days after a
/// notice sent late (the customer keeps their days, and their cover with them).
pub fn ends_on(term: &ContractTerm, noticed_on: NaiveDate) -> NaiveDate {
    term.end.max(noticed_on + Days::new(u64::from(NOTICE_DAYS_BEFORE_END)))
}

/// The next step of `case` on `today`.
pub fn next_step(case: &TermCase, today: NaiveDate) -> TermStep {
    let notice_from = case.term.end - Days::new(u64::from(NOTICE_DAYS_BEFORE_END));
    let Some(noticed_at) = case.noticed_at else {
        return if today >= notice_from {
            TermStep::Notify(notice_kind(case.term.renewal))
        } else {
            TermStep::Nothing
        };
    };
    match case.term.renewal {
        // Cover goes on without a gap: a renewal happens on the end day even after a late notice.
        Renewal::Automatic if today >= case.term.end => TermStep::Renew,
        Renewal::None if today >= ends_on(&case.term, brasilia_day(noticed_at)) => TermStep::End,
        _ => TermStep::Nothing,
    }
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait TermStore: Send + Sync {
    /// The running contracts whose current term ends within [`NOTICE_DAYS_BEFORE_END`] days of
    /// `today`, or has ended.
    async fn cases(&self, today: NaiveDate) -> Result<Vec<TermCase>, StoreError>;

    /// Opens the notice of the contract's term `sequence`: `None` when it is open already
    /// (another instance sent it).
    async fn open_notice(
        &self,
        proposal_id: i64,
        sequence: u32,
        kind: NoticeKind,
        at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError>;

    /// Records a notice's deliveries and its receipt or frustration, as the arrears' are.
    async fn record_deliveries(
        &self,
        notice_id: i64,
        deliveries: &[NoticeDelivery],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Writes `next` after the contract's current term, in one transaction with its
    /// certificate due, the term's notice closed and the history entry; `false` when the term
    /// was renewed already (another instance did it) or the contract no longer runs.
    async fn renew(&self, proposal_id: i64, next: &ContractTerm, at: DateTime<Utc>) -> Result<bool, StoreError>;
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermPass {
    pub notices: Vec<SentNotice>,
    /// The contracts renewed for a new term.
    pub renewed: Vec<String>,
    /// The contracts ended at their term.
    pub ended: Vec<String>,
}

#[derive(Clone)]
pub struct TermService {
    pub store: Arc<dyn TermStore>,
    pub ender: Arc<dyn ContractEnd>,
    pub mail: Arc<dyn MailSender>,
    /// The SMS or WhatsApp provider; `None` where none is configured (the e-mail alone).
    pub messenger: Option<(Arc<dyn Messenger>, MessageChannel)>,
    pub clock: Arc<dyn Clock>,
}

impl TermService {
    /// One pass: each contract near or past its term's end given its next step.
    pub async fn run(&self) -> Result<TermPass, StoreError> {
        let mut pass = TermPass::default();
        let today = brasilia_day(self.clock.now());
        for case in self.store.cases(today).await? {
            match next_step(&case, today) {
                TermStep::Nothing => {}
                TermStep::Notify(kind) => pass.notices.extend(self.notify(&case, kind).await?),
                TermStep::Renew => {
                    let next = next_term(&case.term, case.months, self.clock.now());
                    if self.store.renew(case.proposal_id, &next, self.clock.now()).await? {
                        tracing::info!(sequence = next.sequence, "contract renewed for a new term");
                        pass.renewed.push(case.identifier.clone());
                    }
                }
                TermStep::End => match self.ender.end_for_default(&case.identifier, EndCause::TermEnded).await {
                    Ok(Some(_)) => {
                        tracing::info!("contract ended at its term");
                        pass.ended.push(case.identifier.clone());
                    }
                    Ok(None) => {}
                    // The next pass tries again; the rest of this one goes on.
                    Err(error) => tracing::warn!(%error, "contract's end at its term could not complete"),
                },
            }
        }
        Ok(pass)
    }

    /// Sends the term's notice by every channel the customer has, once (the notice claimed
    /// first).
    async fn notify(&self, case: &TermCase, kind: NoticeKind) -> Result<Option<SentNotice>, StoreError> {
        let now = self.clock.now();
        let Some(notice_id) = self
            .store
            .open_notice(case.proposal_id, case.term.sequence, kind, now)
            .await?
        else {
            return Ok(None);
        };
        let renewed_until = (kind == NoticeKind::Renewal).then(|| term_end(case.term.end, case.months));
        let ends = ends_on(&case.term, brasilia_day(now));
        let notice = crate::mail::TermNotice {
            kind,
            customer_name: case.contact.name.clone(),
            identifier: case.identifier.clone(),
            certificate: case.certificate.clone(),
            product: case.product.clone(),
            term_end: date(case.term.end),
            ends_on: date(ends),
            renewed_until: renewed_until.map(date),
        };
        let text = match renewed_until {
            Some(until) => format!(
                "{}: seu seguro (certificado {}, proposta {}) termina em {} e será renovado automaticamente até {}. \
                 Se não quiser a renovação, cancele pelo canal em que contratou.",
                case.product,
                case.certificate,
                case.identifier,
                date(case.term.end),
                date(until)
            ),
            None => format!(
                "{}: seu seguro (certificado {}, proposta {}) termina em {} e não será renovado. Nenhuma cobrança \
                 será feita depois dessa data.",
                case.product,
                case.certificate,
                case.identifier,
                date(ends)
            ),
        };
        let deliveries = send_by_every_channel(
            self.mail.as_ref(),
            self.messenger.as_ref(),
            self.clock.as_ref(),
            &case.contact,
            MailKind::TermNotice(notice),
            text.chars().take(MAX_TEXT_CHARS).collect(),
        )
        .await;
        self.store
            .record_deliveries(notice_id, &deliveries, self.clock.now())
            .await?;
        tracing::info!(kind = kind.as_str(), channels = deliveries.len(), "term notice sent");
        Ok(Some(SentNotice {
            identifier: case.identifier.clone(),
            kind,
            deliveries,
        }))
    }
}

#[cfg(test)]
#[path = "term_tests.rs"]
mod tests;
