//! A customer's requests about a proposal, each under a protocol number (Resolução CNSP 408/2021
//! asks the insurer to give one for every request and to keep it): the cancellation of a proposal
//! by the seller that owns it or by the back office, and the withdrawal within the right of regret.

use crate::proposals::lifecycle::{StatusChange, StatusEvent};
use crate::signature::ChangeStatusError;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use std::fmt;

/// The shortest and longest reason a cancellation may give (characters, trimmed).
pub const REASON_MIN_CHARS: usize = 3;

/// What the customer asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    Cancellation,
    /// The right of regret (CDC art. 49): a concluded sale undone within 7 days, paid amounts
    /// refunded.
    Withdrawal,
    /// The authorisation of the debits revoked (Resolução CMN 4.790/2020, art. 9): no debit is
    /// sent after it; the contract stays.
    DebitRevocation,
}

impl RequestKind {
    pub const ALL: [RequestKind; 3] = [
        RequestKind::Cancellation,
        RequestKind::Withdrawal,
        RequestKind::DebitRevocation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Cancellation => "cancelamento",
            RequestKind::Withdrawal => "arrependimento",
            RequestKind::DebitRevocation => "revogacao_debito",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// A request's protocol number: the Brasília day it was made (`YYYYMMDD`) followed by its number
/// among all requests, at least eight digits (`2026112600001234`). Unique, readable aloud over the
/// phone, and sorted by day as text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Protocol(String);

impl Protocol {
    pub fn new(day: NaiveDate, number: i64) -> Self {
        Protocol(format!("{}{number:08}", day.format("%Y%m%d")))
    }

    /// A protocol as a person types it: digits only, a real day first, then at least eight digits.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let well_formed = text.len() >= 16 && text.len() <= 24 && text.bytes().all(|b| b.is_ascii_digit());
        (well_formed && NaiveDate::parse_from_str(&text[..8], "%Y%m%d").is_ok()).then(|| Protocol(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A request to record, with the status change it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCustomerRequest {
    pub kind: RequestKind,
    pub reason: String,
    pub requested_by: String,
    pub at: DateTime<Utc>,
    /// The Brasília day of `at`: the protocol's first eight digits.
    pub day: NaiveDate,
}

/// A request as kept, found by its protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerRequest {
    pub protocol: Protocol,
    pub kind: RequestKind,
    /// The proposal's identifier.
    pub identifier: String,
    pub reason: String,
    pub requested_by: String,
    pub at: DateTime<Utc>,
}

/// What a cancellation answers: the proposal, its protocol and the status event it made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancellation {
    pub identifier: String,
    pub protocol: Protocol,
    pub event: StatusEvent,
}

/// Where requests are kept: each with its status change, in one transaction.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CustomerRequestStore: Send + Sync {
    /// Records the request under a new protocol and applies `change` (only if the proposal is
    /// still in `change.from`), with its event and history, in one transaction.
    async fn record(
        &self,
        change: &StatusChange,
        request: &NewCustomerRequest,
    ) -> Result<(StatusEvent, Protocol), ChangeStatusError>;
    /// The request with this protocol, whatever its proposal's seller.
    async fn find(&self, protocol: &Protocol) -> Result<Option<CustomerRequest>, StoreError>;
    /// A proposal's requests, oldest first (the LGPD export).
    async fn of_proposal(&self, proposal_id: i64) -> Result<Vec<CustomerRequest>, StoreError>;
    /// When the proposal's sale was concluded: its last signature and its subscription's start.
    async fn sale_moments(&self, proposal_id: i64) -> Result<SaleMoments, StoreError>;
}

/// When a sale was concluded, as far as the store knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaleMoments {
    /// The last party's signature, once all signed.
    pub last_signature: Option<DateTime<Utc>>,
    /// The proposal's subscription on the payment platform, if it has one.
    pub subscription: Option<SubscriptionStart>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionStart {
    pub platform_id: String,
    pub started_at: DateTime<Utc>,
    pub status: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protocol_is_the_brasilia_day_then_at_least_eight_digits() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 24).unwrap();
        assert_eq!(Protocol::new(day, 1234).as_str(), "2026112400001234");
        assert_eq!(Protocol::new(day, 123_456_789).as_str(), "20261124123456789");
    }

    #[test]
    fn a_protocol_is_read_back_only_when_it_could_be_one() {
        assert_eq!(
            Protocol::parse(" 2026112400001234 "),
            Some(Protocol("2026112400001234".into()))
        );
        for bad in [
            "",
            "2026112400",
            "2026133100001234",
            "20261124O0001234",
            "2026-11-24-0001",
        ] {
            assert_eq!(Protocol::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_kind_reads_back_what_it_writes() {
        for kind in RequestKind::ALL {
            assert_eq!(RequestKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(RequestKind::parse("outro"), None);
    }
}
