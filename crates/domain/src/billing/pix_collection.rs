//! Pix Automático's use cases (issue 46): a `PIX AUTOMÁTICO` contract's recurrence created at
//! its last signature, its charges sent to the PSP in their window and tried again when the payer's
//! bank does not pay, and the PSP's notifications believed only after reading each object back.
//!
//! Every call that makes something at the PSP (a recurrence, a confirmation request, a charge, a
//! retry) happens under the proposal's claim ([`OperationKind::PixRecurrence`],
//! [`OperationKind::PixCharge`]), and its record ends the operation in one transaction; an
//! operation whose request died is finished by the worker with the same ids (a recurrence is found
//! by its contract, a charge by its txid, a retry by its day), so the PSP answers what it made
//! the first time.

use super::pix::{
    AttemptStatus, CONFIRMATION_DAYS, PayerAccount, PixChargeRequest, PixChargeStatus, PixError, PixPsp, Recurrence,
    RecurrenceRequest, RecurrenceStatus, charge_txid, next_retry_day, send_window,
};
use super::service::BillingService;
use super::{ChargeStatus, brasilia_day};
use crate::clock::Clock;
use crate::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationFinisher, OperationId, OperationKind, PendingOperation,
    RecoveryOutcome, end_if_failed,
};
use crate::store::StoreError;
use crate::values::{Cpf, ProposalStatus};
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::sync::Arc;

/// Who the history names for what the Pix collection records.
pub const PIX_ACTOR: &str = "sistema:pix";

/// The most objects one notification has read back from the PSP in its request. A notification
/// names ids only, and each costs a call to the PSP: a body of thousands (61 KB named 1,396)
/// would hold the request and the PSP's rate for minutes. The rest are left to the billing's
/// pass and `sales-api pix reconcile`, which read back every charge and recurrence not settled.
pub const NOTIFIED_READ_BACK_MAX: usize = 100;

/// What a notification did: how many distinct ids it named, how many were read back now, how
/// many were left to the reconciliation, and how many records changed. No id is echoed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotificationOutcome {
    pub received: usize,
    pub read_back: usize,
    pub deferred: usize,
    pub changed: usize,
}

fn as_strs(ids: &[String]) -> Vec<&str> {
    ids.iter().map(String::as_str).collect()
}

/// The ids a notification names, each once (the first time it appears, in order), at most
/// [`NOTIFIED_READ_BACK_MAX`] of them read back now; the rest counted as deferred.
pub fn notified_batch(ids: &[String]) -> (Vec<&str>, NotificationOutcome) {
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<&str> = ids.iter().map(String::as_str).filter(|id| seen.insert(*id)).collect();
    let read_back = distinct.len().min(NOTIFIED_READ_BACK_MAX);
    let outcome = NotificationOutcome {
        received: distinct.len(),
        read_back,
        deferred: distinct.len() - read_back,
        changed: 0,
    };
    (distinct.into_iter().take(read_back).collect(), outcome)
}

/// How many recurrences or charges one pass takes.
const PASS_LIMIT: i64 = 500;

/// A signed `PIX AUTOMÁTICO` sale whose recurrence is to be created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixEnrolment {
    pub proposal_id: i64,
    pub identifier: String,
    pub status: ProposalStatus,
    pub debtor_cpf: Cpf,
    pub debtor_name: String,
    pub product_name: String,
    /// The monthly premium, in centavos.
    pub amount_cents: i64,
    /// The payer's account (jornada 1), when the seller gave it.
    pub payer: Option<PayerAccount>,
    /// When the proposal was made: the recurrence is looked for at the PSP from then on.
    pub created_at: DateTime<Utc>,
    /// Whether its recurrence is recorded already.
    pub recorded: bool,
}

/// A `PIX AUTOMÁTICO` charge as the collection judges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixChargeDue {
    pub charge_id: i64,
    pub proposal_id: i64,
    pub identifier: String,
    pub proposal_status: ProposalStatus,
    /// The contract's recurrence, once created, and its status.
    pub recurrence: Option<(String, RecurrenceStatus)>,
    pub due: NaiveDate,
    pub amount_cents: i64,
    pub status: ChargeStatus,
    /// Whether the PSP holds it (its txid recorded).
    pub sent: bool,
    /// Attempts asked of the PSP: the first and each retry.
    pub attempts: i32,
    /// A retry wanted (after a refused attempt) or scheduled, on this day.
    pub next_attempt: Option<NaiveDate>,
    pub product_name: String,
}

/// What a charge's record becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChargeOutcome {
    /// Sent, or tried again: open at the PSP with `attempts` asked, the last on `settles_on`.
    Sent { attempts: i32, settles_on: NaiveDate },
    /// Paid by the Pix `end_to_end_id`.
    Paid {
        end_to_end_id: String,
        amount_cents: i64,
        at: DateTime<Utc>,
    },
    /// Refused by the payer's bank (or never sendable): tried again on `next_attempt` when it is
    /// some, else failed for good.
    Failed {
        reason: String,
        next_attempt: Option<NaiveDate>,
    },
}

/// What stopping a contract's collection at the PSP found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoppedCollection {
    /// The recurrence as the PSP left it, to record.
    pub recurrence: Option<Recurrence>,
    /// Charges the PSP had settled, now recorded paid.
    pub settled: usize,
}

/// What a contract's end needs to give back what it paid by Pix, and to stop the PSP collecting.
#[derive(Clone)]
pub struct PixRefunds {
    pub store: Arc<dyn PixStore>,
    pub psp: Arc<dyn PixPsp>,
}

impl PixRefunds {
    /// Under the ending contract's claim: its charges sent and not settled cancelled at the PSP,
    /// then its recurrence (each answered as it is when ended already, so a retry redoes
    /// nothing). A charge the PSP answers settled (`CONCLUIDA`: the payer's bank paid it before
    /// or while it was being cancelled) is money received: it is recorded paid at once, so that
    /// the end that follows reads it and gives it back. Answers the recurrence as the PSP left
    /// it, to record, and how many charges were found settled.
    pub async fn stop_collecting(
        &self,
        proposal_id: i64,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<StoppedCollection, PixCollectionError> {
        let (id_rec, txids) = self.store.open_at_psp(proposal_id).await?;
        let mut settled = 0;
        for txid in &txids {
            let at_psp = self.psp.cancel_charge(txid).await?;
            if at_psp.status != PixChargeStatus::Concluida {
                continue;
            }
            let stored = match super::pix::charge_of_txid(txid) {
                Some(id) => self.store.charge(id).await?,
                None => None,
            };
            let Some(stored) = stored else { continue };
            if let Some(outcome @ ChargeOutcome::Paid { .. }) = outcome_of(&stored, &at_psp, brasilia_day(at))
                && self
                    .store
                    .record_charge(stored.charge_id, stored.status, &outcome, None, by, at)
                    .await?
            {
                tracing::info!(
                    charge = stored.charge_id,
                    "Pix charge found settled while its contract ended: recorded paid, to be given back"
                );
                settled += 1;
            }
        }
        let recurrence = match id_rec {
            Some(id_rec) => Some(self.psp.cancel_recurrence(&id_rec).await?),
            None => None,
        };
        Ok(StoppedCollection { recurrence, settled })
    }

    /// The recurrence the end cancelled, recorded; a store that cannot answer leaves it to the
    /// PSP's next notification (logged, not the caller's error).
    pub async fn record_stopped(&self, recurrence: &Recurrence, by: &str, at: DateTime<Utc>) {
        if let Err(error) = self.store.update_recurrence(recurrence, by, at).await {
            tracing::warn!(%error, "cancelled Pix recurrence not recorded: the PSP's notification will");
        }
    }
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PixStore: Send + Sync {
    /// What the PSP may still collect for the contract: its recurrence while not ended, and the
    /// txids of its charges sent and not settled.
    async fn open_at_psp(&self, proposal_id: i64) -> Result<(Option<String>, Vec<String>), StoreError>;
    /// The signed `PIX AUTOMÁTICO` sales (in `EM ANÁLISE` or `APROVADO`) with no recurrence
    /// recorded, oldest first.
    async fn awaiting_recurrence(&self, limit: i64) -> Result<Vec<PixEnrolment>, StoreError>;
    /// One sale's enrolment by its identifier, if it is paid by `PIX AUTOMÁTICO`.
    async fn enrolment(&self, identifier: &str) -> Result<Option<PixEnrolment>, StoreError>;
    /// Records the recurrence the PSP made for the proposal and ends `operation`, with the
    /// proposal's history and document, in one transaction.
    async fn record_recurrence(
        &self,
        operation: OperationId,
        proposal_id: i64,
        recurrence: &Recurrence,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Applies the recurrence as the PSP answered it now to its stored record (status, QR text,
    /// why it ended); `None` when no proposal has it, else whether it changed.
    async fn update_recurrence(
        &self,
        recurrence: &Recurrence,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<bool>, StoreError>;
    /// The `PIX AUTOMÁTICO` charges of running contracts that may need the PSP on `today`: open
    /// ones not sent whose window opened, and failed ones with a retry wanted.
    async fn charges_to_send(&self, today: NaiveDate, limit: i64) -> Result<Vec<PixChargeDue>, StoreError>;
    /// One `PIX AUTOMÁTICO` charge.
    async fn charge(&self, charge_id: i64) -> Result<Option<PixChargeDue>, StoreError>;
    /// The status of the recurrence `id_rec` as stored, if the service holds it.
    async fn recurrence_status(&self, id_rec: &str) -> Result<Option<RecurrenceStatus>, StoreError>;
    /// What to read back from the PSP to reconcile: the recurrences not ended of sales not
    /// finished, and the txids of the charges sent and not settled, and of those sent and
    /// cancelled with their contract in the last [`CANCELLED_READ_BACK_DAYS`] (a PSP that settled
    /// one anyway is money to give back), whose settling day is before `settled_before` (every
    /// such charge with `None`), oldest first, up to `limit` each.
    async fn to_reconcile(
        &self,
        settled_before: Option<NaiveDate>,
        limit: i64,
    ) -> Result<(Vec<String>, Vec<String>), StoreError>;
    /// Applies `outcome` to the charge if it is still `expected` (with its event, its contract's
    /// document and, when given, the end of `operation`), in one transaction; `false` when the
    /// charge had moved (another instance, an earlier notification).
    async fn record_charge(
        &self,
        charge_id: i64,
        expected: ChargeStatus,
        outcome: &ChargeOutcome,
        operation: Option<OperationId>,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
}

#[derive(Debug, thiserror::Error)]
pub enum PixCollectionError {
    #[error(transparent)]
    Psp(#[from] PixError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a proposta não é paga por PIX AUTOMÁTICO")]
    NotPix,
}

impl From<ClaimError> for PixCollectionError {
    fn from(e: ClaimError) -> Self {
        match e {
            ClaimError::Store(e) => Self::Store(e),
            other => Self::Store(StoreError::Unexpected(other.to_string())),
        }
    }
}

/// What a reconciliation read back and mended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PixReconciliation {
    pub recurrences_read: usize,
    pub recurrences_mended: usize,
    pub charges_read: usize,
    pub charges_mended: usize,
    /// Objects whose stored record differs from the PSP's: mended, or with `--dry-run` only
    /// counted.
    pub drifted: usize,
}

/// How long a charge sent and then cancelled is still read back from the PSP: a Pix settles
/// within seven days of its due date (`PERMITE_3R_7D`), so a month covers every late settlement.
pub const CANCELLED_READ_BACK_DAYS: i64 = 35;

/// How many objects a reconciliation reads back at most, of each kind.
const RECONCILE_LIMIT: i64 = 100_000;

/// What a pass over the charges did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PixPass {
    pub recurrences: usize,
    pub sent: usize,
    pub retried: usize,
    /// Charges that could not be sent in their window (no approved recurrence): failed.
    pub unsendable: usize,
    /// Left for a later pass (another operation on the proposal, or the PSP did not answer).
    pub deferred: usize,
    /// Charges past their settling day with no notification, read back and changed.
    pub mended: usize,
}

/// What the collection does with one charge on a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChargeStep {
    /// Send it (`PUT /cobr/{txid}`).
    Send,
    /// Ask the PSP to try it again on this day.
    Retry(NaiveDate),
    /// It can no longer be collected by Pix Automático.
    Fail(String),
    /// Nothing yet (its window has not opened, the payer has not authorised, a retry is
    /// scheduled).
    Wait,
}

/// The step a charge needs on `today`: sent within its window once its recurrence is approved;
/// failed when the window closes first or the recurrence ended; a refused attempt tried again by
/// the standard's rules ([`next_retry_day`]).
pub fn step(charge: &PixChargeDue, today: NaiveDate) -> ChargeStep {
    let recurrence = charge.recurrence.as_ref().map(|(_, status)| *status);
    match charge.status {
        ChargeStatus::Open if !charge.sent => {
            let (opens, closes) = send_window(charge.due);
            if let Some(status) = recurrence.filter(|s| s.is_final()) {
                ChargeStep::Fail(format!("recorrência Pix {status}: cobrança não enviada"))
            } else if today > closes {
                ChargeStep::Fail("recorrência Pix não autorizada a tempo: janela de envio encerrada".into())
            } else if today >= opens && recurrence == Some(RecurrenceStatus::Aprovada) {
                ChargeStep::Send
            } else {
                ChargeStep::Wait
            }
        }
        ChargeStatus::Failed if charge.sent && charge.next_attempt.is_some() => {
            let retries_made = usize::try_from(charge.attempts - 1).unwrap_or(0);
            match next_retry_day(charge.due, retries_made, today) {
                Some(day) => ChargeStep::Retry(day),
                None => ChargeStep::Fail("novas tentativas esgotadas (até 3 em 7 dias)".into()),
            }
        }
        _ => ChargeStep::Wait,
    }
}

/// What the PSP's charge, read back, makes of the stored one; `None` when nothing changed.
pub fn outcome_of(stored: &PixChargeDue, at_psp: &super::pix::PixCharge, today: NaiveDate) -> Option<ChargeOutcome> {
    if stored.status == ChargeStatus::Paid {
        return None;
    }
    let settled = || {
        let paid = at_psp.payments.last()?;
        Some(ChargeOutcome::Paid {
            end_to_end_id: paid.end_to_end_id.clone(),
            amount_cents: at_psp.payments.iter().map(|p| p.amount_cents).sum(),
            at: paid.at,
        })
    };
    if stored.status == ChargeStatus::Cancelled {
        // Cancelled here with its contract, but settled at the PSP: money moved is never left
        // unrecorded; it is recorded paid, and marked to be given back.
        return match at_psp.status {
            PixChargeStatus::Concluida => settled(),
            _ => None,
        };
    }
    match at_psp.status {
        PixChargeStatus::Concluida => settled(),
        PixChargeStatus::Ativa | PixChargeStatus::Criada => {
            let last = at_psp.attempts.last()?;
            if last.status != AttemptStatus::Rejeitada || stored.status == ChargeStatus::Failed {
                return None;
            }
            let retries_made = at_psp.attempts.len().saturating_sub(1);
            Some(ChargeOutcome::Failed {
                reason: last
                    .rejection
                    .clone()
                    .unwrap_or_else(|| "tentativa recusada pelo banco do pagador".into()),
                next_attempt: next_retry_day(at_psp.due, retries_made, today),
            })
        }
        PixChargeStatus::Rejeitada | PixChargeStatus::Expirada | PixChargeStatus::Cancelada => {
            (stored.status != ChargeStatus::Failed || stored.next_attempt.is_some()).then(|| ChargeOutcome::Failed {
                reason: at_psp
                    .ended_because
                    .clone()
                    .unwrap_or_else(|| format!("cobrança {} no PSP", at_psp.status)),
                next_attempt: None,
            })
        }
    }
}

/// The Pix collection.
#[derive(Clone)]
pub struct PixCollection {
    pub store: Arc<dyn PixStore>,
    pub claims: Arc<dyn OperationClaims>,
    pub psp: Arc<dyn PixPsp>,
    /// Judges a contract again after a payment.
    pub billing: BillingService,
    pub clock: Arc<dyn Clock>,
}

impl PixCollection {
    fn claim_of(
        &self,
        proposal_id: i64,
        kind: OperationKind,
        expected: ProposalStatus,
        reason: String,
    ) -> NewOperation {
        NewOperation {
            id: OperationId::new(),
            proposal_id,
            kind,
            expected,
            requested_by: PIX_ACTOR.to_owned(),
            reason: Some(reason),
            reason_category: None,
            target: None,
            at: self.clock.now(),
        }
    }

    /// Claims `operation`; `None` when another operation holds the proposal or it moved (a later
    /// pass takes it again).
    async fn claim(&self, operation: NewOperation) -> Result<Option<OperationId>, PixCollectionError> {
        match self.claims.claim(&operation).await {
            Ok(()) => Ok(Some(operation.id)),
            Err(ClaimError::Store(e)) => Err(e.into()),
            Err(other) => {
                tracing::info!(kind = operation.kind.as_str(), %other, "Pix operation deferred");
                Ok(None)
            }
        }
    }

    /// The sale's recurrence created, right after its last signature; a sale not paid by Pix, or
    /// whose recurrence exists already, is left as it is.
    #[tracing::instrument(skip_all)]
    pub async fn signed(&self, identifier: &str) -> Result<bool, PixCollectionError> {
        match self.store.enrolment(identifier).await? {
            Some(enrolment) if !enrolment.recorded => self.enrol(&enrolment).await,
            _ => Ok(false),
        }
    }

    async fn enrol(&self, enrolment: &PixEnrolment) -> Result<bool, PixCollectionError> {
        let operation = self.claim_of(
            enrolment.proposal_id,
            OperationKind::PixRecurrence,
            enrolment.status,
            "recorrência Pix Automático".into(),
        );
        let Some(operation) = self.claim(operation).await? else {
            return Ok(false);
        };
        let made = self.create_recurrence(enrolment, operation).await;
        end_if_failed(self.claims.as_ref(), operation, &made, self.clock.now()).await;
        made.map(|()| true)
    }

    /// The recurrence at the PSP (found by its contract when made before), the payer's bank asked
    /// to confirm it when the payer's account is known, and its record.
    async fn create_recurrence(&self, e: &PixEnrolment, operation: OperationId) -> Result<(), PixCollectionError> {
        let now = self.clock.now();
        let request = RecurrenceRequest {
            contract: e.identifier.clone(),
            debtor_cpf: e.debtor_cpf.clone(),
            debtor_name: e.debtor_name.clone(),
            object: e.product_name.clone(),
            // No charge falls due before the acceptance, which comes after the signature.
            first_due: brasilia_day(now) + Days::new(1),
            amount_cents: e.amount_cents,
            retries_allowed: true,
            requested_at: e.created_at,
        };
        let mut recurrence = self.psp.create_recurrence(&request).await?;
        if let Some(payer) = e
            .payer
            .as_ref()
            .filter(|_| recurrence.status == RecurrenceStatus::Criada)
        {
            let expires = now + chrono::Duration::days(CONFIRMATION_DAYS as i64);
            self.psp
                .request_confirmation(&recurrence.id_rec, payer, &e.debtor_cpf, expires)
                .await?;
            recurrence = self.psp.recurrence(&recurrence.id_rec).await?;
        }
        self.store
            .record_recurrence(operation, e.proposal_id, &recurrence, self.clock.now())
            .await?;
        tracing::info!(status = %recurrence.status, "Pix recurrence recorded");
        Ok(())
    }

    /// One pass: the recurrences not made at the signature (the PSP did not answer then), then
    /// every charge needing the PSP today.
    #[tracing::instrument(skip_all)]
    pub async fn run(&self) -> Result<PixPass, StoreError> {
        let mut pass = PixPass::default();
        for enrolment in self.store.awaiting_recurrence(PASS_LIMIT).await? {
            match self.enrol(&enrolment).await {
                Ok(true) => pass.recurrences += 1,
                Ok(false) => pass.deferred += 1,
                Err(PixCollectionError::Store(e)) => return Err(e),
                Err(error) => {
                    tracing::warn!(%error, "Pix recurrence not created: tried again on the next pass");
                    pass.deferred += 1;
                }
            }
        }
        let today = brasilia_day(self.clock.now());
        match self.reconcile_overdue(today).await {
            Ok(mended) => pass.mended = mended,
            Err(PixCollectionError::Store(e)) => return Err(e),
            Err(error) => tracing::warn!(%error, "overdue Pix charges not read back: the next pass will"),
        }
        for charge in self.store.charges_to_send(today, PASS_LIMIT).await? {
            let step = step(&charge, today);
            match self.take_step(&charge, &step, None).await {
                Ok(true) => match step {
                    ChargeStep::Send => pass.sent += 1,
                    ChargeStep::Retry(_) => pass.retried += 1,
                    ChargeStep::Fail(_) => pass.unsendable += 1,
                    ChargeStep::Wait => {}
                },
                Ok(false) => pass.deferred += usize::from(step != ChargeStep::Wait),
                Err(PixCollectionError::Store(e)) => return Err(e),
                Err(error) => {
                    tracing::warn!(%error, charge = charge.charge_id, "Pix charge not sent: tried again on the next pass");
                    pass.deferred += 1;
                }
            }
        }
        Ok(pass)
    }

    /// Takes `step` for the charge: under a new claim, or under `pending` (the worker's).
    async fn take_step(
        &self,
        charge: &PixChargeDue,
        step: &ChargeStep,
        pending: Option<OperationId>,
    ) -> Result<bool, PixCollectionError> {
        let now = self.clock.now();
        let txid = charge_txid(charge.charge_id);
        let (id_rec, day) = match (step, &charge.recurrence) {
            (ChargeStep::Wait, _) => return Ok(false),
            (ChargeStep::Fail(reason), _) => {
                let failed = ChargeOutcome::Failed {
                    reason: reason.clone(),
                    next_attempt: None,
                };
                return Ok(self
                    .store
                    .record_charge(charge.charge_id, charge.status, &failed, pending, PIX_ACTOR, now)
                    .await?);
            }
            (ChargeStep::Send, Some((id_rec, _))) => (id_rec.clone(), None),
            (ChargeStep::Retry(day), Some((id_rec, _))) => (id_rec.clone(), Some(*day)),
            (_, None) => return Ok(false),
        };
        let operation = match pending {
            Some(operation) => operation,
            None => {
                let reason = match day {
                    Some(day) => format!("{txid} {day}"),
                    None => txid.clone(),
                };
                let operation = self.claim_of(
                    charge.proposal_id,
                    OperationKind::PixCharge,
                    charge.proposal_status,
                    reason,
                );
                match self.claim(operation).await? {
                    Some(operation) => operation,
                    None => return Ok(false),
                }
            }
        };
        let asked = self.ask_psp(charge, &txid, &id_rec, day, operation).await;
        end_if_failed(self.claims.as_ref(), operation, &asked, self.clock.now()).await;
        asked.map(|()| true)
    }

    async fn ask_psp(
        &self,
        charge: &PixChargeDue,
        txid: &str,
        id_rec: &str,
        retry_on: Option<NaiveDate>,
        operation: OperationId,
    ) -> Result<(), PixCollectionError> {
        let at_psp = match retry_on {
            None => {
                let request = PixChargeRequest {
                    txid: txid.to_owned(),
                    id_rec: id_rec.to_owned(),
                    due: charge.due,
                    amount_cents: charge.amount_cents,
                    description: format!("{} - {}", charge.product_name, charge.identifier),
                };
                self.psp.charge(&request).await?
            }
            Some(day) => self.psp.retry(txid, day).await?,
        };
        let settles_on = at_psp.attempts.last().map(|a| a.settles_on).unwrap_or(charge.due);
        let sent = ChargeOutcome::Sent {
            attempts: i32::try_from(at_psp.attempts.len()).unwrap_or(i32::MAX).max(1),
            settles_on,
        };
        self.store
            .record_charge(
                charge.charge_id,
                charge.status,
                &sent,
                Some(operation),
                PIX_ACTOR,
                self.clock.now(),
            )
            .await?;
        Ok(())
    }

    /// The PSP's notification of recurrences (`POST {webhookUrl}/rec`): each named one read back
    /// once and applied (at most [`NOTIFIED_READ_BACK_MAX`]); the ids the service does not know
    /// are ignored.
    #[tracing::instrument(skip_all, fields(count = ids.len()))]
    pub async fn recurrences_notified(&self, ids: &[String]) -> Result<NotificationOutcome, PixCollectionError> {
        let (ids, mut outcome) = notified_batch(ids);
        if outcome.deferred > 0 {
            tracing::warn!(
                deferred = outcome.deferred,
                "notified recurrences past the read-back limit: left to the reconciliation"
            );
        }
        outcome.changed = self.read_back_recurrences(&ids).await?;
        Ok(outcome)
    }

    /// Each recurrence read back from the PSP and applied once; the number changed.
    async fn read_back_recurrences(&self, ids: &[&str]) -> Result<usize, PixCollectionError> {
        let mut changed = 0;
        for &id in ids {
            let recurrence = match self.psp.recurrence(id).await {
                Ok(recurrence) => recurrence,
                Err(PixError::NotFound(_)) => {
                    tracing::warn!("notified recurrence unknown to the PSP: ignored");
                    continue;
                }
                Err(other) => return Err(other.into()),
            };
            match self
                .store
                .update_recurrence(&recurrence, PIX_ACTOR, self.clock.now())
                .await?
            {
                Some(true) => changed += 1,
                Some(false) => {}
                None => tracing::warn!("notified recurrence of no proposal: ignored"),
            }
        }
        Ok(changed)
    }

    /// The PSP's notification of charges (`POST {webhookUrl}/cobr`): each named one read back,
    /// applied once, and its contract judged again when paid.
    #[tracing::instrument(skip_all, fields(count = txids.len()))]
    pub async fn charges_notified(&self, txids: &[String]) -> Result<NotificationOutcome, PixCollectionError> {
        let (txids, mut outcome) = notified_batch(txids);
        if outcome.deferred > 0 {
            tracing::warn!(
                deferred = outcome.deferred,
                "notified charges past the read-back limit: left to the reconciliation"
            );
        }
        outcome.changed = self.read_back_charges(&txids).await?;
        Ok(outcome)
    }

    /// Each charge read back from the PSP and applied once (its contract judged again when
    /// paid); the number changed.
    async fn read_back_charges(&self, txids: &[&str]) -> Result<usize, PixCollectionError> {
        let mut changed = 0;
        for &txid in txids {
            let stored = match super::pix::charge_of_txid(txid) {
                Some(id) => self.store.charge(id).await?,
                None => None,
            };
            let Some(stored) = stored else {
                tracing::warn!("notified charge of no contract: ignored");
                continue;
            };
            let at_psp = self.psp.charge_status(txid).await?;
            let today = brasilia_day(self.clock.now());
            let Some(outcome) = outcome_of(&stored, &at_psp, today) else {
                continue;
            };
            if self
                .store
                .record_charge(
                    stored.charge_id,
                    stored.status,
                    &outcome,
                    None,
                    PIX_ACTOR,
                    self.clock.now(),
                )
                .await?
            {
                changed += 1;
                if matches!(outcome, ChargeOutcome::Paid { .. }) {
                    self.billing.judge_now(&[stored.proposal_id]).await?;
                }
            }
        }
        Ok(changed)
    }

    /// Every recurrence not ended, every charge sent and not settled and every charge sent and
    /// cancelled lately read back from the PSP and applied as if notified (`sales-api pix
    /// reconcile`, after notifications were lost): what the service holds then agrees with the
    /// PSP. With `apply` false nothing is written: each object whose record differs from the PSP's
    /// is counted (`--dry-run`).
    #[tracing::instrument(skip_all)]
    pub async fn reconcile(&self, apply: bool) -> Result<PixReconciliation, PixCollectionError> {
        let (recurrences, charges) = self.store.to_reconcile(None, RECONCILE_LIMIT).await?;
        let (recurrences_read, charges_read) = (recurrences.len(), charges.len());
        if apply {
            let recurrences_mended = self.read_back_recurrences(&as_strs(&recurrences)).await?;
            let charges_mended = self.read_back_charges(&as_strs(&charges)).await?;
            return Ok(PixReconciliation {
                recurrences_read,
                recurrences_mended,
                charges_read,
                charges_mended,
                drifted: recurrences_mended + charges_mended,
            });
        }
        let mut drifted = 0;
        for id_rec in &recurrences {
            let at_psp = match self.psp.recurrence(id_rec).await {
                Ok(recurrence) => recurrence,
                Err(PixError::NotFound(_)) => continue,
                Err(other) => return Err(other.into()),
            };
            if self.store.recurrence_status(id_rec).await? != Some(at_psp.status) {
                drifted += 1;
            }
        }
        let today = brasilia_day(self.clock.now());
        for txid in &charges {
            let stored = match super::pix::charge_of_txid(txid) {
                Some(id) => self.store.charge(id).await?,
                None => None,
            };
            let Some(stored) = stored else { continue };
            let at_psp = self.psp.charge_status(txid).await?;
            if outcome_of(&stored, &at_psp, today).is_some() {
                drifted += 1;
            }
        }
        Ok(PixReconciliation {
            recurrences_read,
            recurrences_mended: 0,
            charges_read,
            charges_mended: 0,
            drifted,
        })
    }

    /// The pass's part of it: the charges whose settling day went by without a notification
    /// (a PSP's notification lost), read back.
    async fn reconcile_overdue(&self, today: NaiveDate) -> Result<usize, PixCollectionError> {
        let (_, charges) = self.store.to_reconcile(Some(today), PASS_LIMIT).await?;
        self.read_back_charges(&as_strs(&charges)).await
    }

    /// The worker's end of an operation whose request died: the same call again (the PSP answers
    /// what it made), then the record.
    async fn finish(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, PixCollectionError> {
        let now = self.clock.now();
        match operation.kind {
            OperationKind::PixRecurrence => match self.store.enrolment(&operation.identifier).await? {
                Some(enrolment) if !enrolment.recorded => {
                    self.create_recurrence(&enrolment, operation.id).await?;
                    Ok(RecoveryOutcome::Finished)
                }
                Some(_) => {
                    self.claims
                        .finish(operation.id, "recorrência já registrada", now)
                        .await?;
                    Ok(RecoveryOutcome::Finished)
                }
                None => {
                    self.claims
                        .fail(operation.id, "a proposta não é paga por Pix", now)
                        .await?;
                    Ok(RecoveryOutcome::Failed)
                }
            },
            _ => {
                let asked = operation.reason.as_deref().unwrap_or_default();
                let (txid, day) = match asked.split_once(' ') {
                    Some((txid, day)) => (txid, day.parse::<NaiveDate>().ok()),
                    None => (asked, None),
                };
                let charge = match super::pix::charge_of_txid(txid) {
                    Some(id) => self.store.charge(id).await?,
                    None => None,
                };
                let step = match (&charge, day) {
                    (Some(c), None) if c.status == ChargeStatus::Open && !c.sent => ChargeStep::Send,
                    (Some(c), Some(day)) if c.status == ChargeStatus::Failed => ChargeStep::Retry(day),
                    _ => ChargeStep::Wait,
                };
                match charge.filter(|_| step != ChargeStep::Wait) {
                    Some(charge) => {
                        self.take_step(&charge, &step, Some(operation.id)).await?;
                        Ok(RecoveryOutcome::Finished)
                    }
                    None => {
                        self.claims.finish(operation.id, "cobrança já registrada", now).await?;
                        Ok(RecoveryOutcome::Finished)
                    }
                }
            }
        }
    }
}

#[async_trait]
impl OperationFinisher for PixCollection {
    fn kinds(&self) -> &'static [OperationKind] {
        &[OperationKind::PixRecurrence, OperationKind::PixCharge]
    }

    async fn finish_pending(&self, operation: &PendingOperation) -> Result<RecoveryOutcome, String> {
        match self.finish(operation).await {
            Ok(outcome) => Ok(outcome),
            Err(PixCollectionError::Psp(PixError::Refused(why))) => {
                self.claims
                    .fail(operation.id, &why, self.clock.now())
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryOutcome::Failed)
            }
            Err(other) => Err(other.to_string()),
        }
    }
}

/// What the signing does after a sale's last signature: its Pix recurrence created. A failure is
/// the collection's next pass's to mend, not the signature's.
#[async_trait]
impl crate::proposals::signing::AfterSigning for PixCollection {
    async fn signed(&self, identifier: &str) {
        if let Err(error) = PixCollection::signed(self, identifier).await {
            tracing::warn!(%error, "Pix recurrence not created at the signature: the billing's next pass will");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::pix::{PixAttempt, PixCharge, PixPayment};

    #[test]
    fn a_notification_reads_back_each_id_once_and_at_most_a_hundred() {
        let ids: Vec<String> = ["b", "a", "b", "c", "a"].iter().map(|s| (*s).to_owned()).collect();
        let (now, outcome) = notified_batch(&ids);
        assert_eq!(now, ["b", "a", "c"], "first appearance, in order");
        assert_eq!((outcome.received, outcome.read_back, outcome.deferred), (3, 3, 0));
        let many: Vec<String> = (0..NOTIFIED_READ_BACK_MAX + 7).map(|n| n.to_string()).collect();
        let (now, outcome) = notified_batch(&many);
        assert_eq!(now.len(), NOTIFIED_READ_BACK_MAX);
        assert_eq!((outcome.received, outcome.deferred), (NOTIFIED_READ_BACK_MAX + 7, 7));
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, d).unwrap()
    }

    fn due_charge(status: ChargeStatus, sent: bool, recurrence: Option<RecurrenceStatus>) -> PixChargeDue {
        PixChargeDue {
            charge_id: 7,
            proposal_id: 1,
            identifier: "p-1".into(),
            proposal_status: ProposalStatus::Approved,
            recurrence: recurrence.map(|s| ("RR9999900420261201abcdefghijk".to_owned(), s)),
            due: day(20),
            amount_cents: 3500,
            status,
            sent,
            attempts: i32::from(sent),
            next_attempt: None,
            product_name: "Seguro".into(),
        }
    }

    #[test]
    fn a_charge_is_sent_in_its_window_once_the_payer_authorised_and_failed_when_the_window_closes() {
        let approved = due_charge(ChargeStatus::Open, false, Some(RecurrenceStatus::Aprovada));
        assert_eq!(step(&approved, day(9)), ChargeStep::Wait, "11 days before: not yet");
        assert_eq!(step(&approved, day(10)), ChargeStep::Send);
        assert_eq!(
            step(&approved, day(18)),
            ChargeStep::Send,
            "2 days before: the last day"
        );
        assert!(matches!(step(&approved, day(19)), ChargeStep::Fail(_)));
        let awaiting = due_charge(ChargeStatus::Open, false, Some(RecurrenceStatus::Criada));
        assert_eq!(
            step(&awaiting, day(12)),
            ChargeStep::Wait,
            "the payer has not authorised yet"
        );
        assert!(matches!(step(&awaiting, day(19)), ChargeStep::Fail(reason) if reason.contains("a tempo")));
        let refused = due_charge(ChargeStatus::Open, false, Some(RecurrenceStatus::Rejeitada));
        assert!(matches!(step(&refused, day(12)), ChargeStep::Fail(reason) if reason.contains("REJEITADA")));
        let sent = due_charge(ChargeStatus::Open, true, Some(RecurrenceStatus::Aprovada));
        assert_eq!(step(&sent, day(12)), ChargeStep::Wait, "sent once");
    }

    #[test]
    fn a_refused_attempt_is_tried_again_within_the_standards_limits() {
        let mut failed = due_charge(ChargeStatus::Failed, true, Some(RecurrenceStatus::Aprovada));
        failed.next_attempt = Some(day(21));
        assert_eq!(
            step(&failed, day(15)),
            ChargeStep::Retry(day(21)),
            "the day after the due date"
        );
        assert_eq!(step(&failed, day(22)), ChargeStep::Retry(day(23)));
        failed.attempts = 4;
        assert!(
            matches!(step(&failed, day(22)), ChargeStep::Fail(_)),
            "three retries made"
        );
        failed.next_attempt = None;
        assert_eq!(step(&failed, day(22)), ChargeStep::Wait, "failed for good");
    }

    fn at_psp(status: PixChargeStatus, attempts: &[AttemptStatus], paid: bool) -> PixCharge {
        PixCharge {
            txid: charge_txid(7),
            id_rec: "RR9999900420261201abcdefghijk".into(),
            status,
            due: day(20),
            amount_cents: 3500,
            attempts: attempts
                .iter()
                .map(|s| PixAttempt {
                    settles_on: day(20),
                    status: *s,
                    end_to_end_id: "E99999004202612201200abcdefghij".into(),
                    rejection: (*s == AttemptStatus::Rejeitada).then(|| "AM04 saldo insuficiente".into()),
                })
                .collect(),
            payments: if paid {
                vec![PixPayment {
                    end_to_end_id: "E99999004202612201200abcdefghij".into(),
                    amount_cents: 3500,
                    at: Utc::now(),
                }]
            } else {
                Vec::new()
            },
            ended_because: None,
        }
    }

    #[test]
    fn the_psps_charge_read_back_decides_the_record_once() {
        let open = due_charge(ChargeStatus::Open, true, Some(RecurrenceStatus::Aprovada));
        let paid = at_psp(PixChargeStatus::Concluida, &[AttemptStatus::Paga], true);
        assert!(matches!(
            outcome_of(&open, &paid, day(20)),
            Some(ChargeOutcome::Paid { amount_cents: 3500, .. })
        ));
        let already = due_charge(ChargeStatus::Paid, true, Some(RecurrenceStatus::Aprovada));
        assert_eq!(outcome_of(&already, &paid, day(20)), None, "paid once");

        let refused = at_psp(PixChargeStatus::Ativa, &[AttemptStatus::Rejeitada], false);
        assert_eq!(
            outcome_of(&open, &refused, day(20)),
            Some(ChargeOutcome::Failed {
                reason: "AM04 saldo insuficiente".into(),
                next_attempt: Some(day(21)),
            })
        );
        let failed = due_charge(ChargeStatus::Failed, true, Some(RecurrenceStatus::Aprovada));
        assert_eq!(
            outcome_of(&failed, &refused, day(20)),
            None,
            "the same refusal told twice"
        );
        let scheduled = at_psp(PixChargeStatus::Ativa, &[AttemptStatus::Agendada], false);
        assert_eq!(outcome_of(&open, &scheduled, day(20)), None);
        let ended = at_psp(PixChargeStatus::Cancelada, &[AttemptStatus::Cancelada], false);
        assert!(matches!(
            outcome_of(&open, &ended, day(20)),
            Some(ChargeOutcome::Failed { next_attempt: None, .. })
        ));
    }

    #[test]
    fn a_txid_names_its_charge_and_no_other_does() {
        assert_eq!(super::super::pix::charge_of_txid(&charge_txid(42)), Some(42));
        assert_eq!(super::super::pix::charge_of_txid("vendas42cobr"), None);
        assert_eq!(super::super::pix::charge_of_txid("outro00000000000000000042cobr"), None);
    }

    #[test]
    fn the_payers_account_is_read_as_the_standard_writes_it() {
        let mut v = crate::validation::Violations::new();
        let account = PayerAccount::parse(
            &mut v,
            "pixAutomatico.",
            Some("60701190"),
            Some("0001"),
            Some("12345-6"),
        );
        assert_eq!(
            account,
            Some(PayerAccount {
                ispb: "60701190".into(),
                agencia: Some("0001".into()),
                conta: "123456".into(),
            })
        );
        let bad = PayerAccount::parse(&mut v, "pixAutomatico.", Some("6070"), Some("12345"), Some("12-34"));
        assert_eq!(bad, None);
        let fields: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            [
                ("pixAutomatico.ispb", super::super::pix::ISPB_FORMAT),
                ("pixAutomatico.agencia", super::super::pix::PIX_AGENCY_FORMAT),
                ("pixAutomatico.conta", super::super::pix::PIX_ACCOUNT_FORMAT),
            ]
        );
    }

    fn collection(
        store: MockPixStore,
        psp: crate::billing::pix::MockPixPsp,
        claims: crate::proposals::operations::MockOperationClaims,
    ) -> PixCollection {
        PixCollection {
            store: Arc::new(store),
            claims: Arc::new(claims),
            psp: Arc::new(psp),
            billing: BillingService {
                store: Arc::new(crate::billing::ports::MockBillingStore::new()),
                clock: Arc::new(crate::clock::SystemClock),
            },
            clock: Arc::new(crate::clock::SystemClock),
        }
    }

    fn pending(kind: OperationKind, reason: &str) -> PendingOperation {
        PendingOperation {
            id: OperationId::new(),
            proposal_id: 1,
            identifier: "p-1".into(),
            kind,
            requested_by: PIX_ACTOR.into(),
            reason: Some(reason.into()),
            reason_category: None,
            target: None,
            started_at: Utc::now(),
            attempts: 0,
        }
    }

    fn recurrence(status: RecurrenceStatus) -> Recurrence {
        Recurrence {
            id_rec: "RR9999900420261201abcdefghijk".into(),
            contract: "p-1".into(),
            status,
            pix_copia_e_cola: None,
            confirmation_requests: vec!["SC9999900420261201abcdefghijk".into()],
            ended_because: None,
        }
    }

    #[tokio::test]
    async fn the_worker_finishes_a_recurrence_left_pending_under_the_same_operation() {
        let operation = pending(OperationKind::PixRecurrence, "recorrência Pix Automático");
        let id = operation.id;
        let mut store = MockPixStore::new();
        store.expect_enrolment().returning(|_| {
            Ok(Some(PixEnrolment {
                proposal_id: 1,
                identifier: "p-1".into(),
                status: ProposalStatus::InAnalysis,
                debtor_cpf: Cpf::parse("52998224725").unwrap(),
                debtor_name: "Maria da Silva".into(),
                product_name: "Seguro".into(),
                amount_cents: 4990,
                payer: Some(PayerAccount {
                    ispb: "60701190".into(),
                    agencia: None,
                    conta: "123456".into(),
                }),
                created_at: Utc::now(),
                recorded: false,
            }))
        });
        store
            .expect_record_recurrence()
            .withf(move |op, proposal, rec, _| *op == id && *proposal == 1 && rec.status == RecurrenceStatus::Criada)
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut psp = crate::billing::pix::MockPixPsp::new();
        // The client finds the recurrence the dead request made by its contract: one call.
        psp.expect_create_recurrence()
            .withf(|asked| asked.contract == "p-1" && asked.retries_allowed)
            .times(1)
            .returning(|_| Ok(recurrence(RecurrenceStatus::Criada)));
        psp.expect_request_confirmation().times(1).returning(|_, _, _, _| {
            Ok(super::super::pix::ConfirmationRequest {
                id_solic_rec: "SC9999900420261201abcdefghijk".into(),
                status: "ENVIADA".into(),
            })
        });
        psp.expect_recurrence()
            .returning(|_| Ok(recurrence(RecurrenceStatus::Criada)));
        let claims = crate::proposals::operations::MockOperationClaims::new();
        let outcome = collection(store, psp, claims).finish_pending(&operation).await;
        assert_eq!(outcome, Ok(RecoveryOutcome::Finished));
    }

    #[tokio::test]
    async fn the_worker_sends_a_charge_left_pending_once_and_ends_one_already_recorded() {
        let operation = pending(OperationKind::PixCharge, &charge_txid(7));
        let id = operation.id;
        let mut store = MockPixStore::new();
        let unsent = due_charge(ChargeStatus::Open, false, Some(RecurrenceStatus::Aprovada));
        let sent = due_charge(ChargeStatus::Open, true, Some(RecurrenceStatus::Aprovada));
        // First read: not sent yet; second: recorded meanwhile.
        let mut answers = vec![Some(sent), Some(unsent)];
        store.expect_charge().returning(move |_| Ok(answers.pop().flatten()));
        store
            .expect_record_charge()
            .withf(move |charge, expected, outcome, op, _, _| {
                *charge == 7
                    && *expected == ChargeStatus::Open
                    && matches!(outcome, ChargeOutcome::Sent { attempts: 1, .. })
                    && *op == Some(id)
            })
            .times(1)
            .returning(|_, _, _, _, _, _| Ok(true));
        let mut psp = crate::billing::pix::MockPixPsp::new();
        psp.expect_charge()
            .withf(|asked| asked.txid == charge_txid(7) && asked.amount_cents == 3500)
            .times(1)
            .returning(|_| Ok(at_psp(PixChargeStatus::Ativa, &[AttemptStatus::Agendada], false)));
        let mut claims = crate::proposals::operations::MockOperationClaims::new();
        claims
            .expect_finish()
            .withf(move |op, _, _| *op == id)
            .times(1)
            .returning(|_, _, _| Ok(true));
        let pix = collection(store, psp, claims);
        // The request died after the claim: the worker sends it (the PSP answers the one made).
        assert_eq!(pix.finish_pending(&operation).await, Ok(RecoveryOutcome::Finished));
        // Recorded meanwhile: the operation is ended, nothing sent again.
        assert_eq!(pix.finish_pending(&operation).await, Ok(RecoveryOutcome::Finished));
    }
}
