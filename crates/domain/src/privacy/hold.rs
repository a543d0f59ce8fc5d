//! The legal hold: what the law says to keep after a person asks to be forgotten.
//!
//! An insurer keeps a contract's records for five years after it ends: the records of the
//! operation (Lei 9.613/1998, art. 10, and Circular SUSEP 612/2020) and what it needs to defend
//! itself (LGPD, art. 7, VI). The LGPD lets it keep them for a legal obligation (art. 16, I) and
//! asks that they be blocked meanwhile (art. 18, IV): kept, shown to no seller, used for nothing
//! new. A person with no contract, only proposals that never concluded, is anonymised at once.

use crate::values::ProposalStatus;
use chrono::{DateTime, Months, Utc};

/// The basis of the hold, as the refusal and the export name it.
pub const HOLD_BASIS: &str = "LGPD art. 16, I (obrigação legal: Lei 9.613/1998, art. 10, e Circular SUSEP 612/2020) \
     e art. 7, VI (exercício regular de direitos)";

/// How long a concluded contract's records are kept after it ends (`RETENTION_CONTRACT_YEARS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldPolicy {
    pub contract_years: u32,
}

impl Default for HoldPolicy {
    fn default() -> Self {
        Self { contract_years: 5 }
    }
}

/// A proposal of the person that became a contract (it reached `APROVADO`): when it ended, if it
/// has (it left `APROVADO`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractTerm {
    pub identifier: String,
    pub ended_at: Option<DateTime<Utc>>,
}

/// A proposal's move between statuses, as its events record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusMove {
    pub from: ProposalStatus,
    pub to: ProposalStatus,
    pub at: DateTime<Utc>,
}

impl ContractTerm {
    /// The one reading of "a contract, ended when", behind the export's notice, the retention
    /// schedule's plan and the legal hold: a proposal became a contract when it is or ever was
    /// `APROVADO`; a contract ended when it first left `APROVADO`, and is in force while it is
    /// `APROVADO` (a contract suspended for a late payment is still `APROVADO`). `None`: never a
    /// contract.
    pub fn of(identifier: &str, status: ProposalStatus, moves: &[StatusMove]) -> Option<ContractTerm> {
        let approved = ProposalStatus::Approved;
        if status != approved && !moves.iter().any(|m| m.to == approved) {
            return None;
        }
        let ended_at = if status == approved {
            None
        } else {
            moves.iter().filter(|m| m.from == approved).map(|m| m.at).min()
        };
        Some(ContractTerm {
            identifier: identifier.to_owned(),
            ended_at,
        })
    }
}

/// Why and until when the person's data is kept, blocked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegalHold {
    pub basis: &'static str,
    /// When the hold ends: `None` while a contract is in force (the date is not known yet).
    pub until: Option<DateTime<Utc>>,
    /// The contracts that hold it: those in force, or ended less than the policy's years ago.
    pub contracts: Vec<String>,
}

impl LegalHold {
    /// The hold's end as the person and the back office read it.
    pub fn until_text(&self, policy: HoldPolicy) -> String {
        match self.until {
            Some(until) => until.date_naive().format("%d/%m/%Y").to_string(),
            None => format!("o fim do contrato em vigor e mais {} anos", policy.contract_years),
        }
    }
}

impl LegalHold {
    /// The answer to an erasure request the hold refuses (LGPD art. 16, I and art. 18, IV): until
    /// when, on what basis, which contracts, what is kept and what the block still lets happen.
    pub fn erasure_answer(&self, policy: HoldPolicy) -> String {
        format!(
            "Retenção legal até {} ({}): os dados do titular foram bloqueados, não anonimizados; \
             contratos: {}. Ficam guardados, bloqueados, o cadastro, as propostas, os documentos \
             assinados, as cobranças e os pagamentos desses contratos; nada novo é feito com eles, \
             e o contrato em vigor segue atendido pelo seu vendedor. A anonimização acontece \
             quando a retenção terminar.",
            self.until_text(policy),
            self.basis,
            self.contracts.join(", ")
        )
    }
}

/// When a contract's hold ends: `ended_at` plus the policy's years (a date past the calendar's
/// end holds for ever).
pub fn hold_end(ended_at: DateTime<Utc>, policy: HoldPolicy) -> DateTime<Utc> {
    ended_at
        .checked_add_months(Months::new(policy.contract_years.saturating_mul(12)))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The hold on a person with these contracts at `now`, if any holds: one in force holds with no
/// end; else the latest end among those ended less than the policy's years ago.
pub fn legal_hold(contracts: &[ContractTerm], now: DateTime<Utc>, policy: HoldPolicy) -> Option<LegalHold> {
    let holding: Vec<(&ContractTerm, Option<DateTime<Utc>>)> = contracts
        .iter()
        .map(|c| (c, c.ended_at.map(|ended| hold_end(ended, policy))))
        .filter(|(_, end)| end.is_none_or(|end| end > now))
        .collect();
    if holding.is_empty() {
        return None;
    }
    let until = if holding.iter().any(|(_, end)| end.is_none()) {
        None
    } else {
        holding.iter().filter_map(|(_, end)| *end).max()
    };
    Some(LegalHold {
        basis: HOLD_BASIS,
        until,
        contracts: holding.iter().map(|(c, _)| c.identifier.clone()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(year: i32, month: u32, day: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(year, month, day, 12, 0, 0).unwrap()
    }

    fn contract(identifier: &str, ended_at: Option<DateTime<Utc>>) -> ContractTerm {
        ContractTerm {
            identifier: identifier.into(),
            ended_at,
        }
    }

    fn moved(from: ProposalStatus, to: ProposalStatus, at: DateTime<Utc>) -> StatusMove {
        StatusMove { from, to, at }
    }

    #[test]
    fn a_proposal_never_approved_is_no_contract() {
        use ProposalStatus::*;
        let moves = [
            moved(New, InAnalysis, at(2026, 1, 1)),
            moved(InAnalysis, Rejected, at(2026, 1, 2)),
        ];
        assert_eq!(ContractTerm::of("a", Rejected, &moves), None);
        assert_eq!(ContractTerm::of("a", New, &[]), None);
    }

    #[test]
    fn an_approved_proposal_is_a_contract_in_force() {
        use ProposalStatus::*;
        let moves = [moved(InAnalysis, Approved, at(2026, 1, 2))];
        assert_eq!(ContractTerm::of("a", Approved, &moves), Some(contract("a", None)));
        // Approved with no recorded move (rows from before the events): in force all the same.
        assert_eq!(ContractTerm::of("a", Approved, &[]), Some(contract("a", None)));
    }

    #[test]
    fn a_contract_ended_when_it_first_left_approval() {
        use ProposalStatus::*;
        let moves = [
            moved(InAnalysis, Approved, at(2026, 1, 2)),
            moved(Approved, Cancelled, at(2026, 3, 4)),
        ];
        assert_eq!(
            ContractTerm::of("a", Cancelled, &moves),
            Some(contract("a", Some(at(2026, 3, 4))))
        );
    }

    #[test]
    fn no_contract_holds_nothing() {
        assert_eq!(legal_hold(&[], at(2026, 11, 28), HoldPolicy::default()), None);
    }

    #[test]
    fn a_contract_in_force_holds_with_no_end() {
        let hold = legal_hold(
            &[contract("a", Some(at(2020, 1, 1))), contract("b", None)],
            at(2026, 11, 28),
            HoldPolicy::default(),
        )
        .unwrap();
        assert_eq!(hold.until, None);
        assert_eq!(hold.contracts, ["b"], "the one ended in 2020 no longer holds");
        assert_eq!(hold.basis, HOLD_BASIS);
        assert_eq!(
            hold.until_text(HoldPolicy::default()),
            "o fim do contrato em vigor e mais 5 anos"
        );
        let answer = hold.erasure_answer(HoldPolicy::default());
        for said in [
            "o fim do contrato em vigor e mais 5 anos",
            "LGPD art. 16, I",
            "contratos: b.",
            "Ficam guardados, bloqueados,",
            "o contrato em vigor segue atendido pelo seu vendedor",
        ] {
            assert!(answer.contains(said), "{said} not in: {answer}");
        }
    }

    #[test]
    fn an_ended_contract_holds_for_the_policys_years_after_its_end_then_not_at_all() {
        let ended = at(2024, 2, 29);
        let contracts = [contract("a", Some(ended))];
        let policy = HoldPolicy { contract_years: 5 };
        let hold = legal_hold(&contracts, at(2029, 2, 27), policy).unwrap();
        // Five years after a 29 February: the last day of that February.
        assert_eq!(hold.until, Some(at(2029, 2, 28)));
        assert_eq!(hold.until_text(policy), "28/02/2029");
        assert_eq!(legal_hold(&contracts, at(2029, 2, 28), policy), None, "ends on its day");
        assert_eq!(
            legal_hold(&contracts, at(2026, 1, 1), HoldPolicy { contract_years: 1 }),
            None
        );
    }

    #[test]
    fn the_latest_end_among_ended_contracts_is_the_holds() {
        let hold = legal_hold(
            &[contract("a", Some(at(2025, 6, 1))), contract("b", Some(at(2026, 3, 1)))],
            at(2026, 11, 28),
            HoldPolicy::default(),
        )
        .unwrap();
        assert_eq!(hold.until, Some(at(2031, 3, 1)));
        assert_eq!(hold.contracts, ["a", "b"]);
    }
}
