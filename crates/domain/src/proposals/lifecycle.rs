//! The proposal lifecycle as an explicit state machine.
//!
//! ```text
//! NOVO ──send for signature──▶ AGUARDANDO ASSINATURA ──all four signed──▶ EM ANÁLISE ──▶ APROVADO
//!   │                                   │                                      └───────▶ REPROVADO
//!   ├──── cancel (its seller or the back office, or a party refuses) ──▶ CANCELADO
//!   └────────── paid (an e-commerce sale's subscription is active) ──▶ EM ANÁLISE
//! AGUARDANDO ASSINATURA ──the signing deadline passes──▶ EXPIRADO
//! EM ANÁLISE ──the acceptance deadline passes, the product accepting by silence──▶ APROVADO
//! EM ANÁLISE, APROVADO ──regret within 7 days, or cancellation after them──▶ CANCELADO
//! APROVADO ──the premium unpaid (Lei 15.040/2024 arts. 20–21)──▶ CANCELADO
//! ```
//! Any other move is refused naming both states. Finished states free the customer to open a new
//! proposal for the product.

use crate::values::ProposalStatus::{self, *};
use crate::values::{EventKind, ReasonCategory};
use chrono::{DateTime, Utc};

/// Why a proposal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    SentForSignature,
    AllPartiesSigned,
    BackOffice,
    /// The seller that owns the proposal, or the back office, cancels it at the customer's
    /// request (`POST /proposal/{identificador}/cancel`), before it is signed.
    Cancellation,
    PartyRefused,
    /// An e-commerce sale is committed by its payment, not by signatures.
    SubscriptionActive,
    /// The signing deadline passed with signatures missing (`SIGNATURE_DEADLINE_DAYS`).
    DeadlinePassed,
    /// The right of regret (CDC art. 49, `POST /proposal/{identificador}/withdraw`): a concluded
    /// sale, signed or paid, undone within 7 days; the only way out of `APROVADO`.
    Withdrawal,
    /// The acceptance deadline passed with no decision on a product that accepts by silence
    /// (`ACEITE_TACITO`, issue 45).
    TacitAcceptance,
    /// The contract cancelled at the customer's request after the sale, at any time (issue 45):
    /// the seller that owns it or the back office, the unused period returned.
    ContractCancellation,
    /// The premium unpaid: the first instalment for good, or a later one past the notice, the
    /// suspension and its days (Lei 15.040/2024 arts. 20–21, the billing's arrears pass).
    PremiumUnpaid,
    /// The term ended on a product that does not renew, after its notice (decision 270).
    TermEnded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("transição de {from} para {to} não permitida")]
pub struct TransitionError {
    pub from: ProposalStatus,
    pub to: ProposalStatus,
}

/// Whether `trigger` may move a proposal from `from` to `to`.
pub fn check(from: ProposalStatus, to: ProposalStatus, trigger: Trigger) -> Result<(), TransitionError> {
    let allowed = match trigger {
        Trigger::SentForSignature => from == New && to == AwaitingSignature,
        Trigger::AllPartiesSigned => from == AwaitingSignature && to == InAnalysis,
        Trigger::BackOffice => matches!(
            (from, to),
            (InAnalysis, Approved) | (InAnalysis, Rejected) | (New, Cancelled) | (AwaitingSignature, Cancelled)
        ),
        Trigger::Cancellation | Trigger::PartyRefused => {
            matches!((from, to), (New, Cancelled) | (AwaitingSignature, Cancelled))
        }
        Trigger::SubscriptionActive => from == New && to == InAnalysis,
        Trigger::DeadlinePassed => from == AwaitingSignature && to == Expired,
        Trigger::Withdrawal => matches!((from, to), (InAnalysis, Cancelled) | (Approved, Cancelled)),
        Trigger::TacitAcceptance => from == InAnalysis && to == Approved,
        Trigger::ContractCancellation => matches!((from, to), (InAnalysis, Cancelled) | (Approved, Cancelled)),
        Trigger::PremiumUnpaid | Trigger::TermEnded => from == Approved && to == Cancelled,
    };
    if allowed {
        Ok(())
    } else {
        Err(TransitionError { from, to })
    }
}

/// Whether any trigger allows the move (the machine's edges).
/// Where the back office may move a proposal from `from` (none once it is finished).
pub fn back_office_moves(from: ProposalStatus) -> Vec<ProposalStatus> {
    ProposalStatus::ALL
        .iter()
        .copied()
        .filter(|to| check(from, *to, Trigger::BackOffice).is_ok())
        .collect()
}

pub fn is_edge(from: ProposalStatus, to: ProposalStatus) -> bool {
    [
        Trigger::SentForSignature,
        Trigger::AllPartiesSigned,
        Trigger::BackOffice,
        Trigger::Cancellation,
        Trigger::PartyRefused,
        Trigger::SubscriptionActive,
        Trigger::DeadlinePassed,
        Trigger::Withdrawal,
        Trigger::TacitAcceptance,
        Trigger::ContractCancellation,
    ]
    .iter()
    .any(|t| check(from, to, *t).is_ok())
}

/// A move to write: the store applies it only if the proposal is still in `from`, and records its
/// event in the same transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub proposal_id: i64,
    pub from: ProposalStatus,
    pub to: ProposalStatus,
    pub changed_by: String,
    pub reason: Option<String>,
    /// The back office's refusal or cancellation: the category a seller reads instead of the
    /// reason's words (`proposals::reasons`); none for a reason of one layer.
    pub reason_category: Option<ReasonCategory>,
    pub at: DateTime<Utc>,
    /// The operation this move ends (in the move's transaction); a move without one is refused
    /// while any operation on the proposal is pending.
    pub operation: Option<crate::proposals::operations::OperationId>,
}

impl StatusChange {
    /// The move that sends a proposal for signature for the first time (route 12), which is also
    /// told as `PROPOSTA_ENVIADA`.
    pub fn is_first_sending(&self) -> bool {
        self.from == ProposalStatus::New && self.to == ProposalStatus::AwaitingSignature
    }
}

/// A recorded status-change event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEvent {
    pub id: i64,
    pub proposal_id: i64,
    pub kind: EventKind,
    pub from: ProposalStatus,
    pub to: ProposalStatus,
    pub changed_by: String,
    pub changed_at: DateTime<Utc>,
    /// 1, 2, 3... per proposal, so that receivers can drop stale events.
    pub sequence: i32,
    pub reason: Option<String>,
    /// The category a seller reads instead of `reason` (`proposals::reasons`).
    pub reason_category: Option<ReasonCategory>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_of_states_is_allowed_or_refused_as_the_machine_says() {
        let edges = [
            (New, AwaitingSignature),
            (AwaitingSignature, InAnalysis),
            (InAnalysis, Approved),
            (InAnalysis, Rejected),
            (New, Cancelled),
            (AwaitingSignature, Cancelled),
            (New, InAnalysis),
            (AwaitingSignature, Expired),
            (InAnalysis, Cancelled),
            (Approved, Cancelled),
        ];
        for from in ProposalStatus::ALL {
            for to in ProposalStatus::ALL {
                assert_eq!(is_edge(*from, *to), edges.contains(&(*from, *to)), "{from} -> {to}");
            }
        }
    }

    #[test]
    fn each_trigger_owns_its_moves() {
        assert!(check(New, AwaitingSignature, Trigger::SentForSignature).is_ok());
        assert!(
            check(New, AwaitingSignature, Trigger::BackOffice).is_err(),
            "only sending moves to signature"
        );
        assert!(check(AwaitingSignature, InAnalysis, Trigger::AllPartiesSigned).is_ok());
        assert!(
            check(AwaitingSignature, InAnalysis, Trigger::BackOffice).is_err(),
            "signatures, not the back office, move to analysis"
        );
        for to in [Approved, Rejected] {
            assert!(check(InAnalysis, to, Trigger::BackOffice).is_ok());
            assert!(check(AwaitingSignature, to, Trigger::BackOffice).is_err());
        }
        assert!(check(InAnalysis, Cancelled, Trigger::BackOffice).is_err());
        assert!(check(AwaitingSignature, Cancelled, Trigger::PartyRefused).is_ok());
        for from in [New, AwaitingSignature] {
            assert!(check(from, Cancelled, Trigger::Cancellation).is_ok());
        }
        for from in [InAnalysis, Approved, Rejected, Cancelled] {
            assert!(
                check(from, Cancelled, Trigger::Cancellation).is_err(),
                "{from}: signed or finished"
            );
        }
        assert!(check(New, AwaitingSignature, Trigger::Cancellation).is_err());
        assert!(check(Approved, Cancelled, Trigger::PartyRefused).is_err());
        assert!(check(New, InAnalysis, Trigger::SubscriptionActive).is_ok());
        assert!(
            check(New, InAnalysis, Trigger::BackOffice).is_err(),
            "only a payment skips the signatures"
        );
        assert!(check(AwaitingSignature, InAnalysis, Trigger::SubscriptionActive).is_err());
        assert!(check(AwaitingSignature, Expired, Trigger::DeadlinePassed).is_ok());
        for from in [New, InAnalysis] {
            assert!(
                check(from, Expired, Trigger::DeadlinePassed).is_err(),
                "{from}: no deadline runs"
            );
        }
        assert!(
            check(AwaitingSignature, Expired, Trigger::BackOffice).is_err(),
            "only the deadline expires"
        );
    }

    #[test]
    fn a_refusal_names_both_states() {
        let error = check(Approved, New, Trigger::BackOffice).unwrap_err();
        assert_eq!(error.to_string(), "transição de APROVADO para NOVO não permitida");
    }

    #[test]
    fn finished_states_are_the_ends_and_only_regret_leaves_one() {
        let finished: Vec<_> = ProposalStatus::ALL.iter().filter(|s| s.is_finished()).collect();
        assert_eq!(finished, [&Approved, &Rejected, &Cancelled, &Expired]);
        for end in finished {
            for to in ProposalStatus::ALL {
                let regret = *end == Approved && *to == Cancelled;
                assert_eq!(is_edge(*end, *to), regret, "{end} -> {to}");
                if regret {
                    assert!(
                        check(*end, *to, Trigger::BackOffice).is_err(),
                        "only the customer's regret"
                    );
                    assert!(check(*end, *to, Trigger::Withdrawal).is_ok());
                }
            }
        }
        assert!(check(InAnalysis, Cancelled, Trigger::Withdrawal).is_ok());
        for from in [New, AwaitingSignature, Rejected, Cancelled, Expired] {
            assert!(
                check(from, Cancelled, Trigger::Withdrawal).is_err(),
                "{from}: nothing concluded to undo"
            );
        }
    }
}
