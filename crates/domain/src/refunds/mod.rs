//! Refunds (issue 45): what a proposal's end returns to the customer, and how.
//!
//! A refusal returns everything paid; a cancellation after the sale returns the unused part of
//! the period paid, pro rata die; a withdrawal (the right of regret) returns everything. Each
//! amount is corrected by the IPCA from the day it was paid ([`correction`]). What the payment
//! platform took it returns (a card refund, up to what it charged); what it cannot return — a
//! premium collected by payroll discount or account debit, or a correction above what the card was
//! charged — is recorded as a refund to pay, which the finance team pays and marks paid with the
//! bank's reference (`sales-api refunds pending|paid`).

pub mod correction;
pub mod destination;
pub mod destinations;
pub mod plan;
pub mod ports;
pub mod service;

use chrono::{DateTime, NaiveDate, Utc};
use correction::Correction;

/// Why money goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundReason {
    /// The right of regret (CDC art. 49).
    Withdrawal,
    /// The insurer refused the proposal (`REPROVADO`).
    Refusal,
    /// The contract was cancelled after the sale (pro rata die).
    Cancellation,
}

impl RefundReason {
    pub const ALL: [RefundReason; 3] = [Self::Withdrawal, Self::Refusal, Self::Cancellation];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Withdrawal => "ARREPENDIMENTO",
            Self::Refusal => "RECUSA",
            Self::Cancellation => "CANCELAMENTO",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == stored)
    }
}

/// How the money goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundChannel {
    /// A refund at the payment platform, to the card that paid.
    Platform,
    /// A payment the finance team makes (payroll, account debit, a correction above the charge).
    ToPay,
    /// A `devolucao` of the Pix that paid a `PIX AUTOMÁTICO` charge, at the PSP.
    Pix,
}

impl RefundChannel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Platform => "plataforma",
            Self::ToPay => "a_pagar",
            Self::Pix => "pix",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        [Self::Platform, Self::ToPay, Self::Pix]
            .into_iter()
            .find(|c| c.as_str() == stored)
    }
}

/// A refund to pay's status before the finance team pays it.
pub const TO_PAY: &str = "a_pagar";
/// A refund to pay's status once paid.
pub const PAID: &str = "pago";

/// One refund: one movement of money back to the customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRecord {
    /// The platform's refund id (`re_…`), the `devolucao`'s id of a Pix (`D…N…`), or this
    /// service's for a refund to pay (`ap_…`).
    pub id: String,
    /// The platform's invoice it returns, when it returns one (a Pix charge's txid).
    pub invoice_id: Option<String>,
    pub reason: RefundReason,
    pub channel: RefundChannel,
    /// The amount returned, in cents, correction included.
    pub amount: i64,
    /// Of which the amount paid (the rest is the correction).
    pub nominal: i64,
    /// The platform's status (`succeeded`, `pending`, …), or `a_pagar` / `pago`.
    pub status: String,
    /// The IPCA correction applied (none on refunds made before corrections: withdrawals).
    pub correction: Option<Correction>,
    /// The bank's reference of a refund to pay, once paid.
    pub reference: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The day a refund to pay is due by (Brasília): [`due_date`] of its day; `None` for what the
    /// platform or the PSP returned.
    pub due_on: Option<NaiveDate>,
}

/// `REFUND_DUE_DAYS`' default: the calendar days a refund to pay is due in.
pub const DEFAULT_DUE_DAYS: u32 = 10;

/// The day a refund to pay made at `at` is due by: `days` calendar days after its day in Brasília
/// (`REFUND_DUE_DAYS`, decision 253).
pub fn due_date(at: DateTime<Utc>, days: u32) -> NaiveDate {
    let day = crate::billing::brasilia_day(at);
    day.checked_add_days(chrono::Days::new(u64::from(days))).unwrap_or(day)
}

impl RefundRecord {
    /// The part of the amount that is correction.
    pub fn correction_amount(&self) -> i64 {
        self.amount - self.nominal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_and_channels_read_back_what_they_write() {
        for reason in RefundReason::ALL {
            assert_eq!(RefundReason::parse(reason.as_str()), Some(reason));
        }
        for channel in [RefundChannel::Platform, RefundChannel::ToPay, RefundChannel::Pix] {
            assert_eq!(RefundChannel::parse(channel.as_str()), Some(channel));
        }
        assert_eq!(RefundReason::parse("outro"), None);
    }
}
