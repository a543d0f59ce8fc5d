//! One ledger per contract (issue 65): every amount due, received, given back and owed back is an
//! immutable entry, written with the fact that causes it (a charge created, paid or cancelled; a
//! card invoice paid; a refund made, owed or paid); the balances are derived from the entries,
//! never stored. `sales-api ledger check` compares the entries with the facts each rail recorded.

pub mod check;
pub mod ports;

/// What an entry says happened to the contract's money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// An amount charged: a charge of the service's billing created, a card invoice the platform
    /// collected.
    Due,
    /// A charge that ended unpaid (its contract ended): no longer due.
    Cancelled,
    /// Money the rail reported received (a payroll discount, a debit returned paid, a Pix
    /// settled, a card invoice paid), at the amount reported.
    Received,
    /// Money the rail returned (a card refund, a Pix `devolucao`).
    Refunded,
    /// A refund the finance team owes the customer (to pay by transfer).
    OwedBack,
    /// A refund owed that the finance team paid.
    OwedBackPaid,
}

impl EntryKind {
    pub const ALL: [EntryKind; 6] = [
        EntryKind::Due,
        EntryKind::Cancelled,
        EntryKind::Received,
        EntryKind::Refunded,
        EntryKind::OwedBack,
        EntryKind::OwedBackPaid,
    ];

    /// As stored (`ledger_entries.tipo`).
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Due => "devido",
            EntryKind::Cancelled => "cancelado",
            EntryKind::Received => "recebido",
            EntryKind::Refunded => "devolvido",
            EntryKind::OwedBack => "a_devolver",
            EntryKind::OwedBackPaid => "devolucao_paga",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == stored)
    }
}

/// A contract's balances (route 7's `data.ledger`), in cents, derived from its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LedgerBalance {
    /// Charged and not cancelled.
    pub due: i64,
    /// Received by every rail.
    pub received: i64,
    /// Given back: by the platform or the PSP, or paid by the finance team.
    pub refunded: i64,
    /// Owed back and not paid yet.
    pub owed_back: i64,
}

impl LedgerBalance {
    /// The balances from each kind's total.
    pub fn from_totals(totals: impl IntoIterator<Item = (EntryKind, i64)>) -> Self {
        let mut balance = Self::default();
        for (kind, amount) in totals {
            match kind {
                EntryKind::Due => balance.due += amount,
                EntryKind::Cancelled => balance.due -= amount,
                EntryKind::Received => balance.received += amount,
                EntryKind::Refunded => balance.refunded += amount,
                EntryKind::OwedBack => balance.owed_back += amount,
                EntryKind::OwedBackPaid => {
                    balance.refunded += amount;
                    balance.owed_back -= amount;
                }
            }
        }
        balance
    }

    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Where an entry comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySource {
    /// `cobranca`, `fatura` or `reembolso`.
    pub origin: String,
    /// The charge's id, the invoice's, the refund's.
    pub id: String,
    pub kind: EntryKind,
}

/// An entry that differs from the fact its rail recorded: missing (`ledger` is `None`), without a
/// fact (`fact` is `None`), or at another amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerDrift {
    pub proposal_id: i64,
    pub identifier: String,
    pub source: EntrySource,
    /// The entry's amount, in cents.
    pub ledger: Option<i64>,
    /// The fact's amount, in cents.
    pub fact: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_balances_are_derived_from_every_kind() {
        let balance = LedgerBalance::from_totals([
            (EntryKind::Due, 4 * 4990),
            (EntryKind::Cancelled, 2 * 4990),
            (EntryKind::Received, 2 * 4990),
            (EntryKind::Refunded, 1000),
            (EntryKind::OwedBack, 2500),
            (EntryKind::OwedBackPaid, 500),
        ]);
        assert_eq!(
            balance,
            LedgerBalance {
                due: 2 * 4990,
                received: 2 * 4990,
                refunded: 1500,
                owed_back: 2000,
            }
        );
        assert!(LedgerBalance::from_totals([]).is_empty());
    }

    #[test]
    fn every_kind_reads_back_as_stored() {
        for kind in EntryKind::ALL {
            assert_eq!(EntryKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(EntryKind::parse("estorno"), None);
    }
}
