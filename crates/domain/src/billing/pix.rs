//! Pix Automático (Resolução BCB 402/2024; the Central Bank's API Pix, release 2.9.0): what the
//! billing asks of the payee's PSP, in the standard's terms, and the rules that bound it.
//!
//! A contract paid by `PIX AUTOMÁTICO` is a **recurrence** at the PSP (`/rec`): the debtor, the
//! contract, the calendar, the amount, the retry policy. The payer authorises it in their own
//! bank: asked by their PSP when the payee knows their account (`/solicrec`, jornada 1), else by
//! reading the recurrence's QR code or its copy-and-paste text (jornada 2). Each period's charge is
//! a **cobrança recorrente** (`PUT /cobr/{txid}`) sent between 10 and 2 days before it falls due;
//! a charge not paid on its due date may be tried again (`/cobr/{txid}/retentativa/{data}`) up to
//! three times within seven days when the recurrence allows it (`PERMITE_3R_7D`). Money paid is
//! given back by a `devolucao` of the Pix that paid it.
//!
//! Every call is idempotent by an id this service chooses or finds: a charge by its txid, a
//! retry by its charge and day, a refund by its id; a recurrence, whose id the PSP assigns, is
//! first looked for by its contract.

use crate::validation::{Rejection, Violations, trim_ascii};
use crate::values::Cpf;
use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::fmt;

/// The earliest before its due date a charge may be sent to the PSP.
pub const CHARGE_WINDOW_OPENS_DAYS: u64 = 10;
/// The latest before its due date a charge may be sent to the PSP.
pub const CHARGE_WINDOW_CLOSES_DAYS: u64 = 2;
/// The most retries of one charge (`PERMITE_3R_7D`).
pub const MAX_PIX_RETRIES: usize = 3;
/// The last day after the due date a retry may be settled on (`PERMITE_3R_7D`).
pub const RETRY_WINDOW_DAYS: u64 = 7;
/// How long the payer's PSP has to have the recurrence confirmed (jornada 1).
pub const CONFIRMATION_DAYS: u64 = 7;

/// The payer's account, as route 5's `pixAutomatico` carries it: the payer's PSP (ISPB), branch
/// and account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayerAccount {
    pub ispb: String,
    pub agencia: Option<String>,
    pub conta: String,
}

/// `pixAutomatico.ispb` out of the standard's `[0-9A-Z]{8}`.
pub const ISPB_FORMAT: &str = "ispb_formato";
/// `pixAutomatico.agencia` not 1 to 4 digits.
pub const PIX_AGENCY_FORMAT: &str = "agencia_pix_formato";
/// `pixAutomatico.conta` not 1 to 20 digits (a check digit after a hyphen joined to them).
pub const PIX_ACCOUNT_FORMAT: &str = "conta_pix_formato";

impl PayerAccount {
    /// Checks each part given (a missing required one was already reported by the caller),
    /// recording failures under `prefix` (`pixAutomatico.`). The account's check digit may come
    /// after a hyphen (`12345-6`); the standard writes it joined (`123456`).
    pub fn parse(
        v: &mut Violations,
        prefix: &str,
        ispb: Option<&str>,
        agencia: Option<&str>,
        conta: Option<&str>,
    ) -> Option<Self> {
        let ispb = ispb.and_then(|ispb| {
            let ispb = trim_ascii(ispb).to_ascii_uppercase();
            let ok = ispb.len() == 8 && ispb.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
            let parsed = if ok {
                Ok(ispb)
            } else {
                Err(Rejection::new(
                    ISPB_FORMAT,
                    "ispb deve ter 8 dígitos (o ISPB do banco do pagador)",
                ))
            };
            v.check(&format!("{prefix}ispb"), parsed)
        });
        // Optional: absent or blank is no branch; given, it must be the standard's.
        let agencia = match agencia.map(trim_ascii).filter(|a| !a.is_empty()) {
            None => Some(None),
            Some(agencia) if agencia.len() <= 4 && agencia.bytes().all(|b| b.is_ascii_digit()) => {
                Some(Some(agencia.to_owned()))
            }
            Some(_) => {
                v.add(
                    format!("{prefix}agencia"),
                    PIX_AGENCY_FORMAT,
                    "agencia deve ter de 1 a 4 dígitos, sem dígito verificador",
                );
                None
            }
        };
        let conta = conta.and_then(|conta| {
            let conta = trim_ascii(conta);
            let joined = match conta.split_once('-') {
                Some((number, check)) if check.len() == 1 => format!("{number}{check}"),
                Some(_) => String::new(),
                None => conta.to_owned(),
            };
            let ok = !joined.is_empty() && joined.len() <= 20 && joined.bytes().all(|b| b.is_ascii_digit());
            let parsed = if ok {
                Ok(joined)
            } else {
                Err(Rejection::new(
                    PIX_ACCOUNT_FORMAT,
                    "conta deve ter até 20 dígitos, com dígito verificador opcional (12345-6)",
                ))
            };
            v.check(&format!("{prefix}conta"), parsed)
        });
        Some(Self {
            ispb: ispb?,
            agencia: agencia?,
            conta: conta?,
        })
    }
}

/// A recurrence's status, as the standard names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecurrenceStatus {
    Criada,
    Aprovada,
    Rejeitada,
    Expirada,
    Cancelada,
}

impl RecurrenceStatus {
    pub const ALL: [Self; 5] = [
        Self::Criada,
        Self::Aprovada,
        Self::Rejeitada,
        Self::Expirada,
        Self::Cancelada,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Criada => "CRIADA",
            Self::Aprovada => "APROVADA",
            Self::Rejeitada => "REJEITADA",
            Self::Expirada => "EXPIRADA",
            Self::Cancelada => "CANCELADA",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether the recurrence will never collect again.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Rejeitada | Self::Expirada | Self::Cancelada)
    }
}

impl fmt::Display for RecurrenceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A recurring charge's status at the PSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixChargeStatus {
    Criada,
    Ativa,
    Concluida,
    Expirada,
    Rejeitada,
    Cancelada,
}

impl PixChargeStatus {
    pub const ALL: [Self; 6] = [
        Self::Criada,
        Self::Ativa,
        Self::Concluida,
        Self::Expirada,
        Self::Rejeitada,
        Self::Cancelada,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Criada => "CRIADA",
            Self::Ativa => "ATIVA",
            Self::Concluida => "CONCLUIDA",
            Self::Expirada => "EXPIRADA",
            Self::Rejeitada => "REJEITADA",
            Self::Cancelada => "CANCELADA",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl fmt::Display for PixChargeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A retry's (or the first attempt's) status at the PSP (`tentativas[].status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptStatus {
    Solicitada,
    Agendada,
    Paga,
    Cancelada,
    Rejeitada,
    Expirada,
}

impl AttemptStatus {
    pub const ALL: [Self; 6] = [
        Self::Solicitada,
        Self::Agendada,
        Self::Paga,
        Self::Cancelada,
        Self::Rejeitada,
        Self::Expirada,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Solicitada => "SOLICITADA",
            Self::Agendada => "AGENDADA",
            Self::Paga => "PAGA",
            Self::Cancelada => "CANCELADA",
            Self::Rejeitada => "REJEITADA",
            Self::Expirada => "EXPIRADA",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// What the service asks the PSP to create for a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecurrenceRequest {
    /// The proposal's identifier: `vinculo.contrato`, by which the recurrence is found again.
    pub contract: String,
    pub debtor_cpf: Cpf,
    pub debtor_name: String,
    /// What is paid (`vinculo.objeto`): the product's name.
    pub object: String,
    /// The first due date (`calendario.dataInicial`).
    pub first_due: NaiveDate,
    /// The monthly amount, in centavos.
    pub amount_cents: i64,
    /// Whether charges not paid on their due date may be tried again (`PERMITE_3R_7D`).
    pub retries_allowed: bool,
    /// When the service first asked: the recurrence is looked for from then on.
    pub requested_at: DateTime<Utc>,
}

/// A recurrence as the PSP holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recurrence {
    pub id_rec: String,
    pub contract: String,
    pub status: RecurrenceStatus,
    /// The recurrence's QR code as copy-and-paste text (jornada 2), when the PSP has one.
    pub pix_copia_e_cola: Option<String>,
    /// The confirmation requests sent to the payer's PSP (jornada 1), their ids.
    pub confirmation_requests: Vec<String>,
    /// Why it ended, when it did: the standard's code and description.
    pub ended_because: Option<String>,
}

/// A contract's recurrence as route 7 shows it (`data.payment.pixAutomatico`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecurrenceView {
    pub id_rec: String,
    pub status: RecurrenceStatus,
    /// The QR code's copy-and-paste text while the payer has not authorised it (jornada 2).
    pub pix_copia_e_cola: Option<String>,
}

/// A confirmation request to the payer's PSP (jornada 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmationRequest {
    pub id_solic_rec: String,
    pub status: String,
}

/// A charge to send: its txid, chosen by the service, makes the call idempotent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixChargeRequest {
    pub txid: String,
    pub id_rec: String,
    pub due: NaiveDate,
    pub amount_cents: i64,
    /// What the payer's app shows (`infoAdicional`).
    pub description: String,
}

/// One attempt to settle a charge (`tentativas[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixAttempt {
    pub settles_on: NaiveDate,
    pub status: AttemptStatus,
    pub end_to_end_id: String,
    /// The rejection's code and description, when rejected.
    pub rejection: Option<String>,
}

/// A Pix that paid a charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixPayment {
    pub end_to_end_id: String,
    pub amount_cents: i64,
    pub at: DateTime<Utc>,
}

/// A charge as the PSP holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixCharge {
    pub txid: String,
    pub id_rec: String,
    pub status: PixChargeStatus,
    pub due: NaiveDate,
    pub amount_cents: i64,
    pub attempts: Vec<PixAttempt>,
    pub payments: Vec<PixPayment>,
    /// Why it ended unpaid, when it did.
    pub ended_because: Option<String>,
}

/// A refund's status at the PSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundStatus {
    EmProcessamento,
    Devolvido,
    NaoRealizado,
}

impl RefundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EmProcessamento => "EM_PROCESSAMENTO",
            Self::Devolvido => "DEVOLVIDO",
            Self::NaoRealizado => "NAO_REALIZADO",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::EmProcessamento, Self::Devolvido, Self::NaoRealizado]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A `devolucao` of a Pix, as the PSP holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixRefund {
    /// The id the service chose (`{id}` in the path): the call's idempotency.
    pub id: String,
    /// The return's end-to-end id (`rtrId`).
    pub rtr_id: String,
    pub amount_cents: i64,
    pub status: RefundStatus,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PixError {
    /// The PSP refused the request (4xx with the standard's `Problema`): its title and detail.
    #[error("o PSP recusou a requisição Pix: {0}")]
    Refused(String),
    /// The PSP does not know the object.
    #[error("o PSP não conhece {0}")]
    NotFound(String),
    /// The client's credentials or certificate were refused.
    #[error("o PSP recusou as credenciais do recebedor: {0}")]
    Unauthorized(String),
    #[error("PSP indisponível: {0}")]
    Unavailable(String),
    #[error("o PSP não respondeu a tempo")]
    Timeout,
    /// An answer this service cannot read (not the standard's shape).
    #[error("resposta do PSP fora do padrão da API Pix: {0}")]
    Malformed(String),
}

/// The payee's PSP, through the Central Bank's API Pix.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait PixPsp: Send + Sync {
    /// The contract's recurrence: the one the PSP holds for it already (found by the contract
    /// from `requested_at` on, not cancelled), else a new one (`POST /rec`).
    async fn create_recurrence(&self, request: &RecurrenceRequest) -> Result<Recurrence, PixError>;

    /// The recurrence as the PSP holds it now (`GET /rec/{idRec}`).
    async fn recurrence(&self, id_rec: &str) -> Result<Recurrence, PixError>;

    /// Asks the payer's PSP to have the payer confirm the recurrence (`POST /solicrec`), unless a
    /// request is under way already (then that one).
    async fn request_confirmation(
        &self,
        id_rec: &str,
        payer: &PayerAccount,
        debtor_cpf: &Cpf,
        expires_at: DateTime<Utc>,
    ) -> Result<ConfirmationRequest, PixError>;

    /// The charge by its txid: the one the PSP holds already, else created (`PUT /cobr/{txid}`).
    async fn charge(&self, request: &PixChargeRequest) -> Result<PixCharge, PixError>;

    /// The charge as the PSP holds it now (`GET /cobr/{txid}`).
    async fn charge_status(&self, txid: &str) -> Result<PixCharge, PixError>;

    /// Asks for a new attempt settling on `on` (`POST /cobr/{txid}/retentativa/{data}`), unless
    /// the charge has one on that day already.
    async fn retry(&self, txid: &str, on: NaiveDate) -> Result<PixCharge, PixError>;

    /// Ends the recurrence (`PATCH /rec/{idRec}`, `CANCELADA`): the PSP sends no charge under it
    /// again. One that has ended already is answered as it is.
    async fn cancel_recurrence(&self, id_rec: &str) -> Result<Recurrence, PixError>;

    /// Cancels a charge not settled (`PATCH /cobr/{txid}`, `CANCELADA`), with its scheduled
    /// attempt. One that has ended already (paid, cancelled), or that the payer's bank settles
    /// while it is being cancelled, is answered as it is: a `CONCLUIDA` answer is a payment
    /// received, which the caller records and gives back.
    async fn cancel_charge(&self, txid: &str) -> Result<PixCharge, PixError>;

    /// Gives back `amount_cents` of the Pix `end_to_end_id` under the refund `id`: the one made
    /// already under that id, else a new one (`PUT /pix/{e2eid}/devolucao/{id}`).
    async fn refund(
        &self,
        end_to_end_id: &str,
        id: &str,
        amount_cents: i64,
        description: &str,
    ) -> Result<PixRefund, PixError>;
}

/// The days a charge due on `due` may be sent to the PSP: from 10 to 2 days before it.
pub fn send_window(due: NaiveDate) -> (NaiveDate, NaiveDate) {
    (
        due - Days::new(CHARGE_WINDOW_OPENS_DAYS),
        due - Days::new(CHARGE_WINDOW_CLOSES_DAYS),
    )
}

/// The day the next retry of a charge due on `due` settles, with `retries_made` made and today
/// being `today`: the day after today (a retry is asked a day ahead), within seven days of the
/// due date and at most three; `None` when no retry is left.
pub fn next_retry_day(due: NaiveDate, retries_made: usize, today: NaiveDate) -> Option<NaiveDate> {
    if retries_made >= MAX_PIX_RETRIES {
        return None;
    }
    let day = today.max(due) + Days::new(1);
    (day <= due + Days::new(RETRY_WINDOW_DAYS)).then_some(day)
}

/// A txid of the service's own (26 to 35 letters and digits, as `cobr` requires): the charge's
/// id, so that sending it twice is the same charge.
pub fn charge_txid(charge_id: i64) -> String {
    format!("vendas{charge_id:020}cobr")
}

/// The charge a txid of [`charge_txid`] names; `None` for any other txid.
pub fn charge_of_txid(txid: &str) -> Option<i64> {
    let digits = txid.strip_prefix("vendas")?.strip_suffix("cobr")?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A refund's id of the service's own (`[a-zA-Z0-9]{1,35}`): the charge's and the refund's.
pub fn refund_id(charge_id: i64, refund_number: u32) -> String {
    format!("D{charge_id}N{refund_number}")
}

/// Centavos as the standard writes amounts: `35.00`.
pub fn amount_text(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// The standard's amount text (`\d{1,10}\.\d{2}`) in centavos.
pub fn parse_amount(text: &str) -> Option<i64> {
    let (units, cents) = text.split_once('.')?;
    if units.is_empty()
        || units.len() > 10
        || cents.len() != 2
        || !units.bytes().all(|b| b.is_ascii_digit())
        || !cents.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some(units.parse::<i64>().ok()? * 100 + cents.parse::<i64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn a_charge_is_sent_between_ten_and_two_days_before_it_falls_due() {
        assert_eq!(send_window(day("2026-12-15")), (day("2026-12-05"), day("2026-12-13")));
        // Across a month's end.
        assert_eq!(send_window(day("2027-03-01")), (day("2027-02-19"), day("2027-02-27")));
    }

    #[test]
    fn retries_are_three_at_most_and_within_seven_days_of_the_due_date() {
        let due = day("2026-12-15");
        assert_eq!(next_retry_day(due, 0, due), Some(day("2026-12-16")));
        assert_eq!(next_retry_day(due, 1, day("2026-12-17")), Some(day("2026-12-18")));
        assert_eq!(next_retry_day(due, 2, day("2026-12-21")), Some(day("2026-12-22")));
        assert_eq!(next_retry_day(due, 3, day("2026-12-16")), None, "a fourth");
        assert_eq!(next_retry_day(due, 1, day("2026-12-22")), None, "the eighth day");
        assert_eq!(
            next_retry_day(due, 1, day("2026-12-21")),
            Some(day("2026-12-22")),
            "the seventh"
        );
        // Asked before the due date, it settles the day after it.
        assert_eq!(next_retry_day(due, 0, day("2026-12-10")), Some(day("2026-12-16")));
    }

    #[test]
    fn the_services_ids_have_the_standards_shapes() {
        let txid = charge_txid(42);
        assert!((26..=35).contains(&txid.len()), "{txid}");
        assert!(txid.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(charge_txid(42), charge_txid(43));
        let id = refund_id(i64::MAX, u32::MAX);
        assert!(id.len() <= 35 && id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    }

    #[test]
    fn amounts_read_and_write_as_the_standard_writes_them() {
        assert_eq!(amount_text(3500), "35.00");
        assert_eq!(amount_text(5), "0.05");
        assert_eq!(amount_text(123_456), "1234.56");
        assert_eq!(parse_amount("35.00"), Some(3500));
        assert_eq!(parse_amount("0.05"), Some(5));
        for bad in ["35", "35.0", ".50", "35.000", "-1.00", "1e3.00", "12345678901.00", ""] {
            assert_eq!(parse_amount(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn statuses_read_as_the_standard_writes_them() {
        for status in RecurrenceStatus::ALL {
            assert_eq!(RecurrenceStatus::parse(status.as_str()), Some(status));
        }
        for status in PixChargeStatus::ALL {
            assert_eq!(PixChargeStatus::parse(status.as_str()), Some(status));
        }
        for status in AttemptStatus::ALL {
            assert_eq!(AttemptStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(RecurrenceStatus::parse("aprovada"), None);
        assert!(RecurrenceStatus::Cancelada.is_final() && !RecurrenceStatus::Aprovada.is_final());
    }
}
