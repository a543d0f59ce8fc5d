//! The retention schedule (LGPD art. 15 and 16): personal data kept only while it serves a sale,
//! a contract or the law, then anonymised by the clock. The rules are decided here, for one
//! person at a time, from what the store holds of them; the store applies the plan under a lock
//! on the person (`sales-api privacy retention`, and the workers every
//! `RETENTION_CHECK_INTERVAL_MS`).
//!
//! - A proposal that never became a contract (finished in `REPROVADO`, `CANCELADO` or `EXPIRADO`
//!   without ever reaching `APROVADO`) loses its health answers `health_days` after its last
//!   change, and with them the free text written about the person in its analysis (decision
//!   290: the words of the back office's categorised decisions, the customer's request's reason,
//!   what the requests for documents asked and were answered, and the files), and the rest of the
//!   person's data in it `unconcluded_days` after. A refused one first keeps its defence apart
//!   ([`REFUSAL_DEFENCE_YEARS`]).
//! - A person with nothing left to serve (no proposal in progress, no contract under the legal
//!   hold) and nothing changed for `unconcluded_days` is anonymised whole, as the back office's
//!   anonymisation would; so is a person whose every contract's hold has ended (blocked or not).
//!   Idle for `health_days` only, their registrations' health answers go first.
//! - A proposal in progress is the sale's business, never the schedule's.

use super::export::ExportRecord;
use super::hold::{ContractTerm, HoldPolicy, legal_hold};
use super::{Anonymized, PersonalDataStore, redact_platform_customers};
use crate::clock::Clock;
use crate::store::StoreError;
use crate::values::Cpf;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

/// Who the history names as the author of what the schedule changes.
pub const RETENTION_AUTHOR: &str = "sistema:retencao";

/// How long a refused proposal's defence (what the person declared, the refusal's words and
/// category, what the requests for documents asked and were answered) is kept apart for the back
/// office once the schedule or an anonymisation takes the proposal's data: the consumer's claim
/// for damages prescribes in five years (CDC, Lei 8.078/1990, art. 27), and the insurer keeps
/// what it needs to defend the refusal "para o exercício regular de direitos em processo judicial,
/// administrativo ou arbitral" (LGPD art. 7º, VI, and art. 11, II, "d"). Decision 290.
pub const REFUSAL_DEFENCE_YEARS: i32 = 5;

/// How long unconcluded sales keep their personal data (`RETENTION_UNCONCLUDED_DAYS`,
/// `RETENTION_HEALTH_UNCONCLUDED_DAYS`) and contracts theirs (`RETENTION_CONTRACT_YEARS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionSchedule {
    pub unconcluded_days: u32,
    pub health_days: u32,
    pub hold: HoldPolicy,
}

impl Default for RetentionSchedule {
    fn default() -> Self {
        Self {
            unconcluded_days: 180,
            health_days: 30,
            hold: HoldPolicy::default(),
        }
    }
}

impl RetentionSchedule {
    fn idle_for(days: u32, last_change: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        last_change + Duration::days(i64::from(days)) <= now
    }
}

/// One of the person's proposals, as the schedule sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptProposal {
    pub identifier: String,
    /// In a final status (`APROVADO`, `REPROVADO`, `CANCELADO`, `EXPIRADO`).
    pub finished: bool,
    /// Reached `APROVADO` (now or by a recorded move): a contract, with when it ended.
    pub contract: Option<ContractTerm>,
    pub last_change: DateTime<Utc>,
    /// Its copy of the customer still holds health answers.
    pub health_answers: bool,
    /// It still holds free text written about the person in its analysis (decision 290).
    pub free_text: bool,
}

impl KeptProposal {
    fn unconcluded(&self) -> bool {
        self.finished && self.contract.is_none()
    }
}

/// Everything of one person (one CPF) the schedule judges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersonRecords {
    /// The latest change of any of the sellers' registrations of the CPF (`None`: none left).
    pub registrations_changed: Option<DateTime<Utc>>,
    /// A registration still holds health answers.
    pub registrations_health_answers: bool,
    pub proposals: Vec<KeptProposal>,
}

/// What the schedule has due for one person now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RetentionPlan {
    /// Anonymise the person whole (every registration and proposal).
    pub anonymise_person: bool,
    /// Drop the health answers of the person's registrations (kept otherwise).
    pub registrations_health: bool,
    /// Proposals whose health answers and free text go.
    pub proposals_health: Vec<String>,
    /// Unconcluded proposals whose copy of the person is anonymised (the person's other records
    /// stay: they serve a contract or a sale in progress).
    pub proposals_anonymised: Vec<String>,
}

impl RetentionPlan {
    pub fn is_empty(&self) -> bool {
        *self == RetentionPlan::default()
    }
}

/// The schedule's rules for one person at `now` (see the module's documentation).
pub fn plan(records: &PersonRecords, now: DateTime<Utc>, schedule: &RetentionSchedule) -> RetentionPlan {
    let in_progress = records.proposals.iter().any(|p| !p.finished);
    let contracts: Vec<ContractTerm> = records.proposals.iter().filter_map(|p| p.contract.clone()).collect();
    let held = legal_hold(&contracts, now, schedule.hold).is_some();
    let last_change = records
        .proposals
        .iter()
        .map(|p| p.last_change)
        .chain(records.registrations_changed)
        .max();
    if !in_progress && !held {
        let anonymise_person = if contracts.is_empty() {
            last_change.is_some_and(|at| RetentionSchedule::idle_for(schedule.unconcluded_days, at, now))
        } else {
            // Every contract's hold has ended: nothing is left for the law to keep.
            true
        };
        if anonymise_person {
            return RetentionPlan {
                anonymise_person,
                ..RetentionPlan::default()
            };
        }
    }
    let mut due = RetentionPlan {
        registrations_health: !in_progress
            && contracts.is_empty()
            && records.registrations_health_answers
            && last_change.is_some_and(|at| RetentionSchedule::idle_for(schedule.health_days, at, now)),
        ..RetentionPlan::default()
    };
    for proposal in records.proposals.iter().filter(|p| p.unconcluded()) {
        if RetentionSchedule::idle_for(schedule.unconcluded_days, proposal.last_change, now) {
            due.proposals_anonymised.push(proposal.identifier.clone());
        } else if (proposal.health_answers || proposal.free_text)
            && RetentionSchedule::idle_for(schedule.health_days, proposal.last_change, now)
        {
            due.proposals_health.push(proposal.identifier.clone());
        }
    }
    due
}

/// What one person's plan did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonDue {
    /// The CPF masked, as logs and reports may show it.
    pub masked_cpf: String,
    pub plan: RetentionPlan,
    /// Applied, the person's anonymisation as the back office's would report it.
    pub anonymized: Option<Anonymized>,
}

/// One pass of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RetentionReport {
    /// Nothing was changed: the report lists what is due.
    pub dry_run: bool,
    pub persons: Vec<PersonDue>,
}

impl RetentionReport {
    pub fn persons_anonymised(&self) -> usize {
        self.persons.iter().filter(|p| p.plan.anonymise_person).count()
    }
    pub fn proposals_anonymised(&self) -> usize {
        self.persons.iter().map(|p| p.plan.proposals_anonymised.len()).sum()
    }
    /// Health answers dropped: each proposal's, and each person's registrations' counted once.
    pub fn health_answers_dropped(&self) -> usize {
        self.persons
            .iter()
            .map(|p| p.plan.proposals_health.len() + usize::from(p.plan.registrations_health))
            .sum()
    }
}

/// The store's side of the schedule.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RetentionStore: Send + Sync {
    /// The CPFs that may have something due at `now`: a superset (each is judged by [`plan`]).
    async fn candidates(&self, now: DateTime<Utc>, schedule: RetentionSchedule) -> Result<Vec<Cpf>, StoreError>;

    /// The person's records as they stand (for a dry run's plan).
    async fn records(&self, cpf: &Cpf) -> Result<PersonRecords, StoreError>;

    /// Judges the person again under a lock on their records and applies [`plan`]'s answer in one
    /// transaction (each change in the history by [`RETENTION_AUTHOR`]). `None` when another
    /// instance holds the person now (it applies the plan).
    async fn apply(
        &self,
        cpf: &Cpf,
        now: DateTime<Utc>,
        schedule: RetentionSchedule,
    ) -> Result<Option<(RetentionPlan, Option<Anonymized>)>, StoreError>;

    /// Records a pass that changed something (what, when), for the metrics.
    async fn record_run(&self, report: &RetentionReport, at: DateTime<Utc>) -> Result<(), StoreError>;
}

#[derive(Clone)]
pub struct RetentionService {
    pub store: Arc<dyn RetentionStore>,
    /// Records the platform's answers to redactions of anonymised persons.
    pub personal_data: Arc<dyn PersonalDataStore>,
    pub gateway: Arc<dyn crate::ecommerce::PaymentGateway>,
    pub schedule: RetentionSchedule,
    pub clock: Arc<dyn Clock>,
}

impl RetentionService {
    /// One pass: every person with something due, planned (`dry_run`) or applied.
    #[tracing::instrument(skip(self))]
    pub async fn run(&self, dry_run: bool) -> Result<RetentionReport, StoreError> {
        let now = self.clock.now();
        let mut report = RetentionReport {
            dry_run,
            persons: Vec::new(),
        };
        for cpf in self.store.candidates(now, self.schedule).await? {
            let (plan, anonymized) = if dry_run {
                (plan(&self.store.records(&cpf).await?, now, &self.schedule), None)
            } else {
                match self.store.apply(&cpf, now, self.schedule).await? {
                    Some(applied) => applied,
                    None => continue,
                }
            };
            if plan.is_empty() {
                continue;
            }
            let mut anonymized = anonymized;
            if let Some(done) = &mut anonymized {
                redact_platform_customers(self.gateway.as_ref(), self.personal_data.as_ref(), done).await?;
            }
            report.persons.push(PersonDue {
                masked_cpf: cpf.masked(),
                plan,
                anonymized,
            });
        }
        if !dry_run && !report.persons.is_empty() {
            self.store.record_run(&report, now).await?;
            tracing::info!(
                persons = report.persons_anonymised(),
                proposals = report.proposals_anonymised(),
                health = report.health_answers_dropped(),
                "retention schedule applied"
            );
        }
        Ok(report)
    }
}

/// Why an unconcluded sale is kept no longer (LGPD art. 15, I and art. 16).
const UNCONCLUDED_REASON: &str = "proposta não concluída: mantida para eventual contestação da venda e \
     anonimizada no prazo de retenção (LGPD art. 15, I, e art. 16); as respostas de saúde antes (art. 11)";
const IN_PROGRESS_REASON: &str = "venda em andamento: mantida para concluí-la (LGPD art. 7º, V)";

/// Until when and why each of the person's proposals is kept, and the person as a whole (the
/// latest of them; `null` while a sale is in progress or a contract in force): the export's
/// `retencao`, read from the export's record (each proposal's status, last change and status
/// moves) by the schedule's rules.
pub fn retention_notice(export: &ExportRecord, now: DateTime<Utc>, schedule: &RetentionSchedule) -> serde_json::Value {
    use serde_json::json;
    let mut proposals = Vec::new();
    // The person's end: `None` once any record has no end yet.
    let mut person_until: Option<Option<DateTime<Utc>>> = None;
    for item in &export.proposals {
        let proposal = &item.proposal;
        let last_change = proposal.changed_at;
        let term = ContractTerm::of("", proposal.status, &item.moves);
        let finished = proposal.status.is_finished();
        let (until, health_until, reason) = if let Some(term) = term {
            let ended_at = term.ended_at;
            let hold = super::hold::legal_hold(&[term], now, schedule.hold);
            let until = ended_at.map(|end| super::hold::hold_end(end, schedule.hold));
            let reason = match &hold {
                Some(hold) => format!(
                    "contrato: retenção legal até {} ({})",
                    hold.until_text(schedule.hold),
                    hold.basis
                ),
                None => "contrato: retenção legal encerrada; anonimizado na próxima passagem do prazo".to_owned(),
            };
            (until, None, reason)
        } else if finished {
            let days = |n: u32| last_change + Duration::days(i64::from(n));
            (
                Some(days(schedule.unconcluded_days)),
                Some(days(schedule.health_days)),
                UNCONCLUDED_REASON.to_owned(),
            )
        } else {
            (None, None, IN_PROGRESS_REASON.to_owned())
        };
        person_until = Some(match (person_until, until) {
            (None, until) => until,
            (Some(Some(a)), Some(b)) => Some(a.max(b)),
            _ => None,
        });
        let mut entry = json!({
            "identificador": proposal.identifier,
            "ate": until,
            "motivo": reason,
        });
        if let (Some(entry), Some(health)) = (entry.as_object_mut(), health_until) {
            entry.insert("saudeAte".into(), json!(health));
        }
        proposals.push(entry);
    }
    json!({
        "titular": {
            "ate": person_until.flatten(),
            "motivo": "os dados do titular são mantidos enquanto algum registro acima o exigir",
        },
        "propostas": proposals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(days: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default()
            + Duration::days(days)
    }

    fn proposal(identifier: &str, finished: bool, last_change: i64) -> KeptProposal {
        KeptProposal {
            identifier: identifier.into(),
            finished,
            contract: None,
            last_change: at(last_change),
            health_answers: true,
            free_text: false,
        }
    }

    fn contract(identifier: &str, ended: Option<i64>) -> KeptProposal {
        KeptProposal {
            contract: Some(ContractTerm {
                identifier: identifier.into(),
                ended_at: ended.map(at),
            }),
            ..proposal(identifier, true, ended.unwrap_or(0))
        }
    }

    fn person(proposals: Vec<KeptProposal>) -> PersonRecords {
        PersonRecords {
            registrations_changed: Some(at(0)),
            registrations_health_answers: true,
            proposals,
        }
    }

    fn schedule() -> RetentionSchedule {
        RetentionSchedule::default()
    }

    #[test]
    fn an_unconcluded_sale_loses_its_health_answers_at_30_days_and_the_person_goes_at_180() {
        let records = person(vec![proposal("a", true, 0)]);
        assert!(plan(&records, at(29), &schedule()).is_empty());
        assert_eq!(
            plan(&records, at(30), &schedule()),
            RetentionPlan {
                registrations_health: true,
                proposals_health: vec!["a".into()],
                ..RetentionPlan::default()
            }
        );
        let answered = PersonRecords {
            registrations_health_answers: false,
            proposals: vec![KeptProposal {
                health_answers: false,
                ..proposal("a", true, 0)
            }],
            ..records.clone()
        };
        assert!(plan(&answered, at(179), &schedule()).is_empty(), "nothing left to drop");
        // Free text about the person is dropped at the same horizon as the answers.
        let written = PersonRecords {
            proposals: vec![KeptProposal {
                health_answers: false,
                free_text: true,
                ..proposal("a", true, 0)
            }],
            ..answered.clone()
        };
        assert!(plan(&written, at(29), &schedule()).is_empty());
        assert_eq!(plan(&written, at(30), &schedule()).proposals_health, ["a"]);
        assert_eq!(
            plan(&records, at(180), &schedule()),
            RetentionPlan {
                anonymise_person: true,
                ..RetentionPlan::default()
            }
        );
    }

    #[test]
    fn the_latest_change_of_any_record_counts_for_the_person() {
        let records = PersonRecords {
            registrations_changed: Some(at(100)),
            ..person(vec![proposal("a", true, 0)])
        };
        let due = plan(&records, at(180), &schedule());
        assert!(!due.anonymise_person);
        assert_eq!(
            due.proposals_anonymised,
            ["a"],
            "the proposal itself is past its 180 days"
        );
        assert!(plan(&records, at(280), &schedule()).anonymise_person);
    }

    #[test]
    fn a_sale_in_progress_keeps_the_person_but_not_the_old_unconcluded_proposals() {
        let records = person(vec![proposal("old", true, 0), proposal("open", false, 0)]);
        let due = plan(&records, at(400), &schedule());
        assert_eq!(
            due,
            RetentionPlan {
                proposals_anonymised: vec!["old".into()],
                ..RetentionPlan::default()
            },
            "the registration serves the open sale, and the open proposal is the sale's business"
        );
        let due = plan(&records, at(45), &schedule());
        assert_eq!(due.proposals_health, ["old"]);
        assert!(!due.registrations_health);
    }

    #[test]
    fn a_contract_under_its_hold_keeps_the_person_and_its_end_lets_the_schedule_anonymise() {
        let in_force = person(vec![contract("c", None), proposal("refused", true, 0)]);
        let due = plan(&in_force, at(10_000), &schedule());
        assert!(!due.anonymise_person);
        assert!(
            !due.registrations_health,
            "the contract's registration keeps what was declared"
        );
        assert_eq!(due.proposals_anonymised, ["refused"]);

        let ended = person(vec![contract("c", Some(10))]);
        let hold_ends = crate::privacy::hold::hold_end(at(10), schedule().hold);
        assert!(plan(&ended, hold_ends - Duration::seconds(1), &schedule()).is_empty());
        assert!(plan(&ended, hold_ends, &schedule()).anonymise_person);
    }

    #[test]
    fn a_longer_contract_retention_holds_longer() {
        let ended = person(vec![contract("c", Some(0))]);
        let ten_years = RetentionSchedule {
            hold: HoldPolicy { contract_years: 10 },
            ..schedule()
        };
        assert!(plan(&ended, at(6 * 366), &schedule()).anonymise_person);
        assert!(!plan(&ended, at(6 * 366), &ten_years).anonymise_person);
    }

    #[test]
    fn a_registration_without_proposals_goes_after_its_idle_days() {
        let records = person(Vec::new());
        assert!(plan(&records, at(30), &schedule()).registrations_health);
        assert!(plan(&records, at(180), &schedule()).anonymise_person);
        assert!(plan(&PersonRecords::default(), at(1000), &schedule()).is_empty());
    }

    fn record(document: serde_json::Value) -> ExportRecord {
        crate::privacy::export::PersonalDataExport::of(document).unwrap().record
    }

    #[test]
    fn the_notice_says_until_when_each_proposal_is_kept_and_why() {
        let export = serde_json::json!({"propostas": [
            {"proposta": {"identificador": "reprovada", "status": "REPROVADO", "alterado_em": "2026-01-01T12:00:00+00:00"},
             "eventos": [{"from_status": "EM ANÁLISE", "to_status": "REPROVADO", "changed_at": "2026-01-01T12:00:00+00:00"}]},
            {"proposta": {"identificador": "encerrado", "status": "CANCELADO", "alterado_em": "2026-01-11T12:00:00+00:00"},
             "eventos": [{"from_status": "EM ANÁLISE", "to_status": "APROVADO", "changed_at": "2026-01-02T12:00:00+00:00"},
                         {"from_status": "APROVADO", "to_status": "CANCELADO", "changed_at": "2026-01-11T12:00:00+00:00"}]}
        ]});
        let notice = retention_notice(&record(export), at(20), &schedule());
        let unconcluded = &notice["propostas"][0];
        assert_eq!(unconcluded["ate"], serde_json::json!(at(180)));
        assert_eq!(unconcluded["saudeAte"], serde_json::json!(at(30)));
        assert!(unconcluded["motivo"].as_str().unwrap().contains("art. 16"));
        let ended = &notice["propostas"][1];
        let hold_ends = crate::privacy::hold::hold_end(at(10), schedule().hold);
        assert_eq!(ended["ate"], serde_json::json!(hold_ends));
        assert!(ended["motivo"].as_str().unwrap().contains("Lei 9.613/1998"), "{ended}");
        assert_eq!(ended.get("saudeAte"), None);
        assert_eq!(
            notice["titular"]["ate"],
            serde_json::json!(hold_ends),
            "the latest of them"
        );

        let in_force = serde_json::json!({"propostas": [
            {"proposta": {"identificador": "c", "status": "APROVADO", "alterado_em": "2026-01-01T12:00:00+00:00"}, "eventos": []},
            {"proposta": {"identificador": "r", "status": "REPROVADO", "alterado_em": "2026-01-01T12:00:00+00:00"}, "eventos": []}
        ]});
        let notice = retention_notice(&record(in_force), at(20), &schedule());
        assert_eq!(notice["propostas"][0]["ate"], serde_json::Value::Null);
        assert!(
            notice["propostas"][0]["motivo"]
                .as_str()
                .unwrap()
                .contains("contrato em vigor")
        );
        assert_eq!(
            notice["titular"]["ate"],
            serde_json::Value::Null,
            "no end while a contract is in force"
        );
    }

    #[test]
    fn shorter_schedules_apply_sooner() {
        let records = person(vec![proposal("a", true, 0)]);
        let short = RetentionSchedule {
            unconcluded_days: 60,
            health_days: 7,
            ..schedule()
        };
        assert_eq!(plan(&records, at(7), &short).proposals_health, ["a"]);
        assert!(plan(&records, at(60), &short).anonymise_person);
    }
}
