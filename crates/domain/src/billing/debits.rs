//! Débito em conta under a bank agreement (issue 46; Resolução CMN 4.790/2020): the customer's
//! authorisation of the debits, given by signing the proposal (its evidence the sealed document's
//! SHA-256), revoked or refused at the bank; the remessa of the debits due, one per agreement with
//! its own sequence; the retorno, applied once whatever order or how many times it arrives.

use super::cnab150::{Agreement, DebitResult, Remessa, Retorno, read_retorno, return_code};
use super::service::{BillingMove, BillingService};
use crate::clock::Clock;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The reference a debit carries in the file (E08/F08): the charge and the attempt.
pub fn reference(charge_id: i64, attempt: i32) -> String {
    format!("C{charge_id}T{attempt}")
}

/// The charge and attempt a return line's reference names, if it is one of ours.
pub fn parse_reference(text: &str) -> Option<(i64, i32)> {
    let rest = text.trim().strip_prefix('C')?;
    let (charge, attempt) = rest.split_once('T')?;
    Some((charge.parse().ok()?, attempt.parse().ok()?))
}

/// What one retorno did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetornoSummary {
    /// The same file was read before (by its SHA-256): nothing applied.
    pub already_read: bool,
    pub paid: usize,
    /// Failed attempts (tried again on the policy's days, or the charge failed).
    pub failed: usize,
    /// Debits refused for want of an authorisation (02, 30): the authorisation refused.
    pub authorizations_refused: usize,
    /// Results applied by an earlier file (the same debit reported again).
    pub already_applied: usize,
    /// Lines naming no debit sent by this service.
    pub unknown: usize,
    /// Authorisations revoked at the bank (B, exclusion).
    pub revoked: usize,
    /// Lines refused, nothing of them applied: a paid result whose amount is not the debit sent.
    /// The finance team takes them up with the bank (`debits retorno` exits 1).
    pub refused: Vec<RefusedReturn>,
    /// Proposals whose charges changed (judged again at once).
    pub touched: Vec<i64>,
}

/// A return line refused, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedReturn {
    /// The line in the file.
    pub line: usize,
    /// The debit it names (`C<charge>T<attempt>`).
    pub reference: String,
    pub reason: String,
}

/// Why a paid result does not pay its charge: the bank reports moving another amount than the
/// debit sent (no partial payments: a charge is paid at its amount or not at all).
pub fn paid_amount_mismatch(sent: i64, reported: i64) -> Option<String> {
    (sent != reported).then(|| {
        format!(
            "o banco informa débito de {} para o item enviado de {}: nada aplicado; confira com o banco",
            crate::contract::formats::reais(reported),
            crate::contract::formats::reais(sent)
        )
    })
}

/// A file sent or read, as the console lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitFile {
    /// `remessa` or `retorno`.
    pub kind: String,
    pub bank: String,
    pub agreement: String,
    pub nsa: i32,
    pub name: String,
    pub records: i32,
    /// Cents.
    pub total: i64,
    pub sha256: String,
    pub at: DateTime<Utc>,
    /// A remessa: when a retorno confirmed it (J). A retorno: what it applied.
    pub note: Option<String>,
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait DebitStore: Send + Sync {
    /// Builds and records the agreement's next remessa in one transaction: every open
    /// `DÉBITO EM CONTA` charge whose contract's authorisation is active at the agreement's bank,
    /// whose debit day (its retry's, else its due date) is up to `until` and that awaits no other
    /// file's return, each with its attempt counted; the agreement's sequence (NSA) advanced.
    /// `None` when nothing is due (no file, no number spent).
    async fn remessa(
        &self,
        agreement: &Agreement,
        until: NaiveDate,
        on: NaiveDate,
        at: DateTime<Utc>,
    ) -> Result<Option<Remessa>, StoreError>;

    /// Applies a retorno in one transaction: the file recorded by its SHA-256 (read again, it
    /// applies nothing), each debit's result to its charge's attempt once (a paid charge stays
    /// paid; a failure moves only the charge's latest attempt), each opt-out to its
    /// authorisation, each confirmation to its remessa. Only what this file's bank and agreement
    /// were sent is matched (an `F` to a debit of their remessas, a `B` to an authorisation at
    /// that bank); a paid `F` whose amount is not the debit sent is refused
    /// ([`paid_amount_mismatch`]).
    async fn apply_retorno(
        &self,
        retorno: &Retorno,
        name: &str,
        sha256: &str,
        today: NaiveDate,
        at: DateTime<Utc>,
    ) -> Result<RetornoSummary, StoreError>;

    /// The files sent and read, newest first.
    async fn files(&self, limit: i64) -> Result<Vec<DebitFile>, StoreError>;
}

/// How a failed debit reads in a charge: the return code and its meaning.
pub fn failure_reason(code: &str) -> String {
    format!("{code}: {}", return_code(code).1)
}

/// Whether a return code moves money, refuses the authorisation, or only fails this attempt.
pub fn result_of(code: &str) -> DebitResult {
    return_code(code).0
}

#[derive(Debug, thiserror::Error)]
pub enum DebitsError {
    #[error("nenhum convênio de débito configurado para o banco {0} (DEBIT_AGREEMENTS)")]
    NoAgreement(String),
    #[error("o retorno é do convênio {agreement} do banco {bank}, que DEBIT_AGREEMENTS não tem")]
    UnknownAgreement { bank: String, agreement: String },
    #[error(transparent)]
    Retorno(#[from] super::cnab150::RetornoError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A retorno's outcome with the contracts it put back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RetornoReport {
    pub summary: RetornoSummary,
    pub moved: Vec<BillingMove>,
}

#[derive(Clone)]
pub struct DebitsService {
    pub store: Arc<dyn DebitStore>,
    pub billing: BillingService,
    pub clock: Arc<dyn Clock>,
    pub agreements: Vec<Agreement>,
}

/// The default horizon of a remessa: debits due within 5 days.
pub const REMESSA_DAYS_AHEAD: u64 = 5;

impl DebitsService {
    /// One remessa per agreement (or the one of `bank`) with every debit due up to `until`
    /// (default: today + 5 days), Brasília days.
    pub async fn remessas(&self, bank: Option<&str>, until: Option<NaiveDate>) -> Result<Vec<Remessa>, DebitsError> {
        let now = self.clock.now();
        let today = super::brasilia_day(now);
        let until = until.unwrap_or(today + Days::new(REMESSA_DAYS_AHEAD));
        let chosen: Vec<&Agreement> = match bank {
            Some(bank) => vec![
                self.agreements
                    .iter()
                    .find(|a| a.bank == bank)
                    .ok_or_else(|| DebitsError::NoAgreement(bank.to_owned()))?,
            ],
            None => self.agreements.iter().collect(),
        };
        let mut made = Vec::new();
        for agreement in chosen {
            if let Some(remessa) = self.store.remessa(agreement, until, today, now).await? {
                made.push(remessa);
            }
        }
        Ok(made)
    }

    /// The files sent and read, newest first (the console's list).
    pub async fn files(&self, limit: i64) -> Result<Vec<DebitFile>, StoreError> {
        self.store.files(limit).await
    }

    /// Reads a retorno, checks it is one of the configured agreements', applies it once, and
    /// judges each contract it touched again.
    pub async fn retorno(&self, name: &str, text: &str) -> Result<RetornoReport, DebitsError> {
        let retorno = read_retorno(text)?;
        if !self
            .agreements
            .iter()
            .any(|a| a.bank == retorno.bank && a.code == retorno.agreement)
        {
            return Err(DebitsError::UnknownAgreement {
                bank: retorno.bank,
                agreement: retorno.agreement,
            });
        }
        let digest = Sha256::digest(text.as_bytes());
        let sha256: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let now = self.clock.now();
        let summary = self
            .store
            .apply_retorno(&retorno, name, &sha256, super::brasilia_day(now), now)
            .await?;
        let moved = self.billing.judge_now(&summary.touched).await?;
        Ok(RetornoReport { summary, moved })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_names_the_charge_and_its_attempt_and_nothing_else_is_ours() {
        assert_eq!(reference(42, 2), "C42T2");
        assert_eq!(parse_reference("C42T2"), Some((42, 2)));
        assert_eq!(parse_reference(" C42T2  "), Some((42, 2)));
        assert_eq!(parse_reference("42T2"), None);
        assert_eq!(parse_reference("CxT2"), None);
        assert_eq!(failure_reason("01"), "01: insuficiência de fundos");
    }

    #[test]
    fn a_paid_result_counts_only_at_the_amount_sent() {
        assert_eq!(paid_amount_mismatch(4990, 4990), None);
        let one_cent = paid_amount_mismatch(4990, 1).unwrap();
        assert!(
            one_cent.contains("R$ 0,01") && one_cent.contains("R$ 49,90"),
            "{one_cent}"
        );
        assert!(paid_amount_mismatch(4990, 5990).is_some(), "nor more than sent");
    }
}
