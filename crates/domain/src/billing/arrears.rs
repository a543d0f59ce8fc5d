//! What the insurance contract law makes of an unpaid premium (Lei 15.040/2024, arts. 20 and 21;
//! issue 67, decision 266):
//!
//! - the first instalment unpaid for good (its last attempt failed) resolves the contract
//!   (art. 20 caput) where the product's terms keep the law's rule ([`FirstInstalment::Ends`]):
//!   `CANCELADO`, reason `INADIMPLENCIA`, and the customer told;
//! - a later one, once the contract is late, is noticed to the customer by e-mail and by a text
//!   message, with the law's warnings (art. 20 §2), each delivery and its receipt recorded; the
//!   cover is suspended no sooner than [`NOTICE_DAYS`] after the receipt, or after every delivery
//!   failed (art. 20 §§1, 3);
//! - a suspended contract gets a second notice, of its end, and ends (`INADIMPLENCIA`) no sooner
//!   than the product's end days (at least [`END_MIN_DAYS`]) after the suspension (art. 21);
//! - a collective life contract (art. 21 §2) has each notice sent to its policyholder too (the
//!   estipulante, by e-mail) and ends no sooner than [`COLLECTIVE_LIFE_END_DAYS`] after the last
//!   one the policyholder received (decision 272);
//! - paid meanwhile, the cover resumes and the notices are closed: a later arrears starts over.
//!
//! The billing's run moves the statuses (the billing service, the suspension held
//! back by [`may_suspend`]); [`ArrearsService`] sends the notices and ends the contracts, right
//! after it, on every instance and the worker (each notice claimed once).

pub use super::notice_kind::NoticeKind;
use super::{BillingStatus, RUN_ACTOR, brasilia_day};
use crate::clock::Clock;
use crate::contract::formats::{date, reais};
use crate::mail::{MailKind, MailMessage, MailSender};
use crate::messaging::{MAX_TEXT_CHARS, MessageChannel, MessageStatus, Messenger, TextMessage};
use crate::store::StoreError;
use crate::values::{CellPhone, Email, PaymentType};
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::sync::Arc;

/// Art. 20 §1: the days the customer has to pay, from the notice's receipt, before the cover is
/// suspended.
pub const NOTICE_DAYS: u32 = 15;
/// Art. 21: the fewest days between the suspension and the contract's end.
pub const END_MIN_DAYS: u32 = 30;
/// Art. 21 §2: in collective life and personal-integrity insurance, the days between the last
/// notice to the policyholder and the contract's end.
pub const COLLECTIVE_LIFE_END_DAYS: u32 = 90;
/// The most a product may wait after the suspension before the end.
pub const END_MAX_DAYS: u32 = 180;
/// The reason of a contract ended for an unpaid premium, in its status move.
pub const DEFAULT_REASON: &str = "INADIMPLENCIA";
/// Who sends the notices and ends the contracts, in the history and the operations.
pub const ARREARS_ACTOR: &str = RUN_ACTOR;

/// What the product's terms make of an unpaid first instalment (art. 20 caput: it resolves the
/// contract "salvo convenção, uso ou costume em contrário").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstInstalment {
    /// The law's rule: the contract ends.
    Ends,
    /// The terms treat it as any other: noticed, suspended, then ended.
    Suspends,
}

impl FirstInstalment {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ends => "resolve",
            Self::Suspends => "suspende",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Ends, Self::Suspends].into_iter().find(|f| f.as_str() == text)
    }
}

/// Where a notice stands: when its receipt was proven, or when every delivery failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoticeStanding {
    pub received_at: Option<DateTime<Utc>>,
    pub frustrated_at: Option<DateTime<Utc>>,
}

impl NoticeStanding {
    /// The Brasília day its days count from: the receipt, else the frustration (art. 20 §3);
    /// `None` while neither is known.
    pub fn counts_from(&self) -> Option<NaiveDate> {
        self.received_at.or(self.frustrated_at).map(brasilia_day)
    }
}

/// Whether the cover may be suspended on `today`: a notice's days counted from its receipt (or
/// frustration) have passed (art. 20 §1). Without a notice, never.
pub fn may_suspend(notice_from: Option<NaiveDate>, today: NaiveDate) -> bool {
    notice_from.is_some_and(|from| from + Days::new(u64::from(NOTICE_DAYS)) <= today)
}

/// The first day a contract suspended on `suspended_on` may end (art. 21), with the product's
/// end days (never fewer than [`END_MIN_DAYS`]).
pub fn ends_from(suspended_on: NaiveDate, end_days: u32) -> NaiveDate {
    suspended_on + Days::new(u64::from(end_days.max(END_MIN_DAYS)))
}

/// The first day the suspended contract of `case` may end: [`ends_from`] its suspension and, for
/// a collective life contract, [`COLLECTIVE_LIFE_END_DAYS`] after its policyholder's last notice
/// (`policyholder_noticed_on`; `None` while it has none: it may not end, art. 21 §2).
pub fn earliest_end(case: &ArrearsCase, policyholder_noticed_on: Option<NaiveDate>) -> Option<NaiveDate> {
    let after_suspension = ends_from(brasilia_day(case.since), case.end_days);
    match &case.policyholder {
        None => Some(after_suspension),
        Some(_) => policyholder_noticed_on
            .map(|noticed| after_suspension.max(noticed + Days::new(u64::from(COLLECTIVE_LIFE_END_DAYS)))),
    }
}

/// The charge a notice is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpaidCharge {
    pub period: i32,
    pub due_date: NaiveDate,
    /// Cents.
    pub amount: i64,
}

/// Whom a notice goes to, as the proposal keeps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    pub name: String,
    pub email: Option<String>,
    pub cell_phone: Option<String>,
}

/// The policyholder (estipulante) of a collective life contract, as its product names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policyholder {
    pub name: String,
    pub email: Option<String>,
    /// When it received the open notice of the end (the last before the end), if it did.
    pub end_warning_at: Option<DateTime<Utc>>,
    /// The open notice of the end whose copy its mail server has not taken yet: sent again on
    /// every pass until it is, since the end counts from it.
    pub end_warning_owed: Option<i64>,
}

/// A running contract behind on its premium, with what the law's steps need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrearsCase {
    pub proposal_id: i64,
    pub identifier: String,
    /// Its certificate's number (the contract's module makes it from the acceptance; decision 267).
    pub certificate: String,
    pub product: String,
    pub method: String,
    pub status: BillingStatus,
    /// Since when it is in `status`.
    pub since: DateTime<Utc>,
    pub first_instalment: FirstInstalment,
    pub end_days: u32,
    /// The first period's charge failed for good (its last attempt refused).
    pub first_failed: bool,
    /// Its oldest presented unpaid charge.
    pub oldest_unpaid: Option<UnpaidCharge>,
    /// The open notice of lateness, if sent.
    pub late_notice: Option<NoticeStanding>,
    /// The open notice of the end, if sent.
    pub end_warning: Option<NoticeStanding>,
    pub contact: Contact,
    /// Its policyholder, for a collective life contract (art. 21 §2): `None` for any other.
    pub policyholder: Option<Policyholder>,
}

/// Why a contract ends for its premium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndCause {
    /// Art. 20 caput: the first (or single) instalment unpaid.
    FirstInstalment,
    /// Art. 21: suspended, noticed, and the end days passed.
    AfterSuspension,
    /// Not the premium: the term ended, noticed, on a product that does not renew
    /// (the billing's term module); the same end under the claim, with its own reason.
    TermEnded,
}

/// What the law asks next of a contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrearsStep {
    Nothing,
    Notify(NoticeKind),
    End(EndCause),
}

/// The next step of `case` on `today`.
pub fn next_step(case: &ArrearsCase, today: NaiveDate) -> ArrearsStep {
    // A payroll discount the employer did not pass on is not the insured's mora (decision 266).
    let customer_pays = case.method != PaymentType::PayrollDiscount.as_str();
    if case.first_failed && customer_pays && case.first_instalment == FirstInstalment::Ends {
        return ArrearsStep::End(EndCause::FirstInstalment);
    }
    match case.status {
        BillingStatus::UpToDate => ArrearsStep::Nothing,
        BillingStatus::Late if case.late_notice.is_none() => ArrearsStep::Notify(NoticeKind::Late),
        BillingStatus::Late => ArrearsStep::Nothing,
        BillingStatus::Suspended => match case.end_warning {
            None => ArrearsStep::Notify(NoticeKind::EndWarning),
            Some(warning) if warning.counts_from().is_some() => {
                let policyholder_noticed = case
                    .policyholder
                    .as_ref()
                    .and_then(|p| p.end_warning_at)
                    .map(brasilia_day);
                if earliest_end(case, policyholder_noticed).is_some_and(|end| end <= today) {
                    ArrearsStep::End(EndCause::AfterSuspension)
                } else {
                    ArrearsStep::Nothing
                }
            }
            // The end's notice sent, its receipt not known yet: art. 21 asks it first.
            Some(_) => ArrearsStep::Nothing,
        },
    }
}

/// One channel's delivery of a notice, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeDelivery {
    /// `email`, `sms`, `whatsapp`.
    pub channel: String,
    /// The address or phone, masked.
    pub destination: String,
    /// The provider's id of it (a text message's).
    pub external_id: Option<String>,
    pub status: MessageStatus,
}

/// A notice recorded with its deliveries, as the console and the events show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentNotice {
    pub identifier: String,
    pub kind: NoticeKind,
    pub deliveries: Vec<NoticeDelivery>,
}

/// What a contract's end for its premium did, as the notice tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndedForDefault {
    /// Each refund as people read it (the unused days of a later period paid).
    pub refunds: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("encerramento por inadimplência não concluído: {0}")]
pub struct EndError(pub String);

/// The contract's end for an unpaid premium, under the proposal's claim, with its money (the
/// proposals' settlement implements it).
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ContractEnd: Send + Sync {
    /// Ends the contract (`APROVADO` → `CANCELADO`, reason [`DEFAULT_REASON`]); `None` when it
    /// was no longer running or another operation holds it (the next pass sees it again).
    async fn end_for_default(&self, identifier: &str, cause: EndCause) -> Result<Option<EndedForDefault>, EndError>;
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ArrearsStore: Send + Sync {
    /// The running contracts not up to date, and those whose first charge failed for good.
    async fn cases(&self) -> Result<Vec<ArrearsCase>, StoreError>;

    /// Opens the contract's notice of `kind` about `charge`: `None` when one is open already
    /// (another instance sent it).
    async fn open_notice(
        &self,
        proposal_id: i64,
        kind: NoticeKind,
        charge: Option<UnpaidCharge>,
        at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError>;

    /// Records a notice's deliveries, its receipt (the earliest delivered) or its frustration
    /// (every one failed, or none could be made), and its history entry, in one transaction.
    async fn record_deliveries(
        &self,
        notice_id: i64,
        deliveries: &[NoticeDelivery],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// The text messages sent whose delivery is not known yet: (delivery id, provider id).
    async fn awaiting_receipt(&self) -> Result<Vec<(i64, String)>, StoreError>;

    /// A text message's delivery as the provider now reports it, the notice's receipt or
    /// frustration updated.
    async fn record_receipt(&self, delivery_id: i64, status: &MessageStatus) -> Result<(), StoreError>;

    /// Records that the notice reached the collective contract's policyholder (`destination`
    /// masked) at `at`, with its history entry (art. 21 §2).
    async fn record_policyholder_notice(
        &self,
        notice_id: i64,
        destination: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArrearsPass {
    pub notices: Vec<SentNotice>,
    /// The contracts ended for their premium.
    pub ended: Vec<String>,
    /// Text messages whose delivery the provider reported since the last pass.
    pub receipts: usize,
}

#[derive(Clone)]
pub struct ArrearsService {
    pub store: Arc<dyn ArrearsStore>,
    pub ender: Arc<dyn ContractEnd>,
    pub mail: Arc<dyn MailSender>,
    /// The SMS or WhatsApp provider; `None` where none is configured (the e-mail alone).
    pub messenger: Option<(Arc<dyn Messenger>, MessageChannel)>,
    pub clock: Arc<dyn Clock>,
}

impl ArrearsService {
    /// One pass: the providers' receipts read, then each contract behind given its next step.
    pub async fn run(&self) -> Result<ArrearsPass, StoreError> {
        let mut pass = ArrearsPass {
            receipts: self.read_receipts().await?,
            ..ArrearsPass::default()
        };
        let today = brasilia_day(self.clock.now());
        for case in self.store.cases().await? {
            self.copy_owed_to_policyholder(&case, today).await?;
            match next_step(&case, today) {
                ArrearsStep::Nothing => {}
                ArrearsStep::Notify(kind) => pass.notices.extend(self.notify(&case, kind, &[]).await?),
                ArrearsStep::End(cause) => match self.ender.end_for_default(&case.identifier, cause).await {
                    Ok(Some(ended)) => {
                        tracing::info!(?cause, "contract ended for its unpaid premium");
                        pass.ended.push(case.identifier.clone());
                        pass.notices
                            .extend(self.notify(&case, NoticeKind::Ended, &ended.refunds).await?);
                    }
                    Ok(None) => {}
                    // The next pass tries again; the rest of this one goes on.
                    Err(error) => tracing::warn!(%error, "contract's end for its premium could not complete"),
                },
            }
        }
        Ok(pass)
    }

    async fn read_receipts(&self) -> Result<usize, StoreError> {
        let Some((messenger, _)) = &self.messenger else {
            return Ok(0);
        };
        let mut read = 0;
        for (delivery_id, external_id) in self.store.awaiting_receipt().await? {
            match messenger.status(&external_id).await {
                Ok(MessageStatus::Accepted) => {}
                Ok(status) => {
                    self.store.record_receipt(delivery_id, &status).await?;
                    read += 1;
                }
                Err(error) => tracing::warn!(%error, "message status could not be read: tried again next pass"),
            }
        }
        Ok(read)
    }

    /// Sends one notice by every channel the customer has, once (the notice claimed first).
    async fn notify(
        &self,
        case: &ArrearsCase,
        kind: NoticeKind,
        refunds: &[String],
    ) -> Result<Option<SentNotice>, StoreError> {
        let now = self.clock.now();
        let Some(notice_id) = self
            .store
            .open_notice(case.proposal_id, kind, case.oldest_unpaid.clone(), now)
            .await?
        else {
            return Ok(None);
        };
        let wording = NoticeWording::of(case, kind, refunds, brasilia_day(now));
        let deliveries = send_by_every_channel(
            self.mail.as_ref(),
            self.messenger.as_ref(),
            self.clock.as_ref(),
            &case.contact,
            MailKind::ArrearsNotice(wording.mail.clone()),
            wording.text,
        )
        .await;
        self.store
            .record_deliveries(notice_id, &deliveries, self.clock.now())
            .await?;
        tracing::info!(kind = kind.as_str(), channels = deliveries.len(), "billing notice sent");
        if let Some(policyholder) = &case.policyholder {
            self.notify_policyholder(policyholder, notice_id, wording.mail).await?;
        }
        Ok(Some(SentNotice {
            identifier: case.identifier.clone(),
            kind,
            deliveries,
        }))
    }
}

impl ArrearsService {
    /// The copy of the end's notice a collective contract's policyholder has not received yet
    /// (its mail server refused it, or was down): sent again, naming the end counted from now, as
    /// the end will be once it is taken.
    async fn copy_owed_to_policyholder(&self, case: &ArrearsCase, today: NaiveDate) -> Result<(), StoreError> {
        let Some(policyholder) = &case.policyholder else {
            return Ok(());
        };
        let Some(notice_id) = policyholder.end_warning_owed else {
            return Ok(());
        };
        tracing::info!("policyholder's copy of the end's notice sent again");
        let wording = NoticeWording::of(case, NoticeKind::EndWarning, &[], today);
        self.notify_policyholder(policyholder, notice_id, wording.mail).await
    }

    /// The collective contract's policyholder gets the notice too (art. 21 §2), recorded once
    /// its mail server took it: the end counts from it. Without an address, or refused, nothing
    /// is recorded and the contract does not end (a warning says why); the copy of the end's
    /// notice is sent again on the next pass.
    async fn notify_policyholder(
        &self,
        policyholder: &Policyholder,
        notice_id: i64,
        notice: crate::mail::ArrearsNotice,
    ) -> Result<(), StoreError> {
        let Some(email) = policyholder.email.as_deref().and_then(|e| Email::parse(e).ok()) else {
            tracing::warn!(
                "collective contract's policyholder without an e-mail: the contract will not end until noticed"
            );
            return Ok(());
        };
        let destination = email.masked();
        let message = MailMessage {
            to: email,
            kind: MailKind::PolicyholderNotice(crate::mail::PolicyholderNotice {
                policyholder: policyholder.name.clone(),
                notice,
            }),
        };
        match self.mail.send(message).await {
            Ok(()) => {
                self.store
                    .record_policyholder_notice(notice_id, &destination, self.clock.now())
                    .await
            }
            Err(error) => {
                tracing::warn!(%error, "policyholder's notice not sent: the contract will not end until noticed");
                Ok(())
            }
        }
    }
}

/// Sends one notice to `contact` by e-mail and, where a provider is configured and the contact
/// has a mobile, by text message; answers each channel's delivery as it stands (the mail
/// server's acceptance is the e-mail's proof of delivery, decision 266). The arrears' and the
/// term's notices go this one way.
pub(crate) async fn send_by_every_channel(
    mail: &dyn MailSender,
    messenger: Option<&(Arc<dyn Messenger>, MessageChannel)>,
    clock: &dyn Clock,
    contact: &Contact,
    kind: MailKind,
    text: String,
) -> Vec<NoticeDelivery> {
    let mut deliveries = Vec::new();
    if let Some(email) = contact.email.as_deref().and_then(|e| Email::parse(e).ok()) {
        let destination = email.masked();
        let sent = mail.send(MailMessage { to: email, kind }).await;
        deliveries.push(NoticeDelivery {
            channel: "email".to_owned(),
            destination,
            external_id: None,
            status: match sent {
                Ok(()) => MessageStatus::Delivered { at: clock.now() },
                Err(error) => MessageStatus::Failed {
                    at: clock.now(),
                    reason: error.to_string(),
                },
            },
        });
    }
    if let (Some((messenger, channel)), Some(phone)) = (
        messenger,
        contact.cell_phone.as_deref().and_then(|p| CellPhone::parse(p).ok()),
    ) {
        let destination = phone.masked();
        let message = TextMessage {
            to: phone,
            channel: *channel,
            text,
        };
        let (external_id, status) = match messenger.send(&message).await {
            Ok(sent) => (Some(sent.id), sent.status),
            Err(error) => (
                None,
                MessageStatus::Failed {
                    at: clock.now(),
                    reason: error.to_string(),
                },
            ),
        };
        deliveries.push(NoticeDelivery {
            channel: channel.as_str().to_owned(),
            destination,
            external_id,
            status,
        });
    }
    deliveries
}

/// A notice's words: the e-mail's values and the text message.
struct NoticeWording {
    mail: crate::mail::ArrearsNotice,
    text: String,
}

impl NoticeWording {
    fn of(case: &ArrearsCase, kind: NoticeKind, refunds: &[String], today: NaiveDate) -> Self {
        let (period, due, amount) = match &case.oldest_unpaid {
            Some(c) => (c.period, date(c.due_date), reais(c.amount)),
            None => (0, String::new(), String::new()),
        };
        // Sent while suspended: the end's first day counts from the suspension (art. 21) and,
        // for a collective contract, from its policyholder's notice sent with this one (§2).
        let ends_on =
            date(earliest_end(case, Some(today)).unwrap_or_else(|| ends_from(brasilia_day(case.since), case.end_days)));
        let mail = crate::mail::ArrearsNotice {
            kind,
            customer_name: case.contact.name.clone(),
            identifier: case.identifier.clone(),
            certificate: case.certificate.clone(),
            product: case.product.clone(),
            period,
            due_date: due.clone(),
            amount: amount.clone(),
            notice_days: NOTICE_DAYS,
            ends_on: ends_on.clone(),
            refunds: refunds.to_vec(),
        };
        let text = match kind {
            NoticeKind::Late => format!(
                "{}: a parcela {period} de {amount}, vencida em {due}, não foi paga (certificado {}, proposta {}). \
                 Pague em até {NOTICE_DAYS} dias do recebimento deste aviso ou a cobertura será suspensa; sem o \
                 pagamento, sinistros desde {due} não serão indenizados.",
                case.product, case.certificate, case.identifier
            ),
            NoticeKind::EndWarning => format!(
                "{}: a cobertura está suspensa por falta de pagamento da parcela {period} de {amount} (proposta \
                 {}). Sem o pagamento, o seguro será cancelado em {ends_on}.",
                case.product, case.identifier
            ),
            // The term's notices are worded by the term's pass (the billing's term module), never sent here.
            NoticeKind::Ended | NoticeKind::Renewal | NoticeKind::TermEnd => format!(
                "{}: o seguro da proposta {} foi cancelado por falta de pagamento do prêmio. Detalhes no seu \
                 e-mail.",
                case.product, case.identifier
            ),
        };
        Self {
            mail,
            text: text.chars().take(MAX_TEXT_CHARS).collect(),
        }
    }
}

#[cfg(test)]
#[path = "arrears_tests.rs"]
mod tests;
