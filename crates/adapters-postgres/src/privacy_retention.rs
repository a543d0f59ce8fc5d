//! The retention schedule in PostgreSQL (`domain::privacy::retention`): who may have something
//! due, each person's records read under a lock, and the plan the domain makes of them applied
//! in one transaction. Instances share the work: a person is taken by one at a time
//! (`pg_try_advisory_xact_lock`), and the others pass over them.

use crate::person_columns::{
    ANONYMIZE_PROPOSAL_COPY, ANONYMIZED_NAME, DROP_COPY_HEALTH, DROP_REGISTRATION_HEALTH, holds_health_answers,
};
use crate::pool::{PgPool, connection, query_error};
use crate::privacy::{Stop, anonymize_contents, anonymize_in, contract_terms, read_statuses};
use crate::read_model;
use crate::refusal_defences::{self, holds_free_text};
use crate::sealing::SecretSealer;
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::QueryableByName;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::privacy::retention::{
    KeptProposal, PersonRecords, RETENTION_AUTHOR, RetentionPlan, RetentionReport, RetentionSchedule, RetentionStore,
    plan,
};
use domain::privacy::{AnonymizeOutcome, Anonymized};
use domain::store::StoreError;
use domain::values::{Cpf, ProposalStatus};
use std::sync::Arc;

#[derive(Clone)]
pub struct PgRetention {
    pool: PgPool,
    /// Finds the kept idempotent answers about a person anonymised whole.
    sealer: Arc<SecretSealer>,
}

impl PgRetention {
    pub fn new(pool: PgPool, sealer: Arc<SecretSealer>) -> Self {
        Self { pool, sealer }
    }
}

statement! {
    /// The proposal `$1`'s CPF replaced by its registration's stand-in `$2` (by `$3`).
    STAND_IN_PROPOSAL_CPF = "UPDATE proposals SET cpf_cliente = $2, alterado_por = $3, alterado_em = now() WHERE id = $1";
}

statement! {
    /// A superset of the people with something due (each is judged by the domain's plan): with a
    /// registration idle past the health days that still holds health answers or is idle past the
    /// unconcluded days, and no contract or sale in progress; with an unconcluded proposal idle as
    /// long that is not yet anonymised; blocked past the hold's end; with a contract that ended
    /// longer ago than the hold's years (in days of 365, which errs on the early side).
    /// `$1` now less the health days, `$2` now less the unconcluded days, `$3` now, `$4` now less the
    /// hold's years, `$5` the anonymised name, `$6` the unconcluded final statuses.
    CANDIDATES => CandidateRow = concat!(
    "SELECT c.cpf FROM customers c
     WHERE c.alterado_em <= $1 AND c.nome_completo <> $5 AND (",
    holds_health_answers!("c."),
    " OR c.alterado_em <= $2)
       AND NOT EXISTS (SELECT 1 FROM proposals p WHERE p.cpf_cliente = c.cpf AND p.status <> ALL($6))
       AND NOT EXISTS (SELECT 1 FROM proposals p JOIN proposal_events e ON e.proposal_id = p.id
                       WHERE p.cpf_cliente = c.cpf AND e.to_status = 'APROVADO')
     UNION
     SELECT p.cpf_cliente FROM proposals p JOIN proposal_customers pc ON pc.id_proposta = p.id
     WHERE p.alterado_em <= $1 AND p.status = ANY($6) AND pc.nome_completo <> $5 AND (",
    holds_health_answers!("pc."),
    " OR ",
    holds_free_text!(),
    " OR p.alterado_em <= $2)
     UNION
     SELECT b.cpf FROM personal_data_blocks b WHERE b.retido_ate <= $3
     UNION
     SELECT p.cpf_cliente FROM proposal_events e JOIN proposals p ON p.id = e.proposal_id
         JOIN proposal_customers pc ON pc.id_proposta = p.id
     WHERE e.from_status = 'APROVADO' AND e.changed_at <= $4 AND pc.nome_completo <> $5
     ORDER BY 1"
);
}

#[derive(QueryableByName)]
struct CandidateRow {
    #[diesel(sql_type = Text)]
    cpf: String,
}

statement! {
    /// The registrations of the CPF: their latest change and whether any holds health answers.
    REGISTRATIONS => RegistrationsRow = concat!(
    "SELECT max(alterado_em) AS changed, coalesce(bool_or(",
    holds_health_answers!(""),
    "), false) AS health FROM customers WHERE cpf = $1"
);
}

#[derive(QueryableByName)]
struct RegistrationsRow {
    #[diesel(sql_type = Nullable<Timestamptz>)]
    changed: Option<DateTime<Utc>>,
    #[diesel(sql_type = Bool)]
    health: bool,
}

statement! {
    /// The proposals of the CPF, each with its registration, whether its copy holds health answers
    /// and whether it holds free text about the person (whether each was a contract, and until
    /// when, is `contract_terms`'s).
    PROPOSALS => ProposalRow = concat!(
    "SELECT p.id, p.id_cliente, p.identificador, p.status, p.alterado_em,
         coalesce(",
    holds_health_answers!("pc."),
    ", false) AS health, ",
    holds_free_text!(),
    " AS free_text
     FROM proposals p LEFT JOIN proposal_customers pc ON pc.id_proposta = p.id
     WHERE p.cpf_cliente = $1 ORDER BY p.id"
);
}

#[derive(QueryableByName)]
struct ProposalRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = BigInt)]
    id_cliente: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Timestamptz)]
    alterado_em: DateTime<Utc>,
    #[diesel(sql_type = Bool)]
    health: bool,
    #[diesel(sql_type = Bool)]
    free_text: bool,
}

/// The statuses in which a proposal ended without becoming a contract (when it never reached
/// `APROVADO`, which the plan tells).
fn unconcluded_statuses() -> Vec<&'static str> {
    ProposalStatus::ALL
        .iter()
        .filter(|s| s.is_finished() && **s != ProposalStatus::Approved)
        .map(|s| s.as_str())
        .collect()
}

async fn read_records(
    conn: &mut AsyncPgConnection,
    cpf: &Cpf,
) -> Result<(PersonRecords, Vec<ProposalRow>), DieselError> {
    let registrations: RegistrationsRow = REGISTRATIONS
        .query()
        .bind::<Text, _>(cpf.as_str())
        .get_result(conn)
        .await?;
    let rows: Vec<ProposalRow> = PROPOSALS.query().bind::<Text, _>(cpf.as_str()).load(conn).await?;
    let statuses = read_statuses(rows.iter().map(|r| (r.id, r.identificador.as_str(), r.status.as_str())))?;
    let mut terms = contract_terms(conn, &statuses).await?;
    let mut proposals = Vec::with_capacity(rows.len());
    for (row, (_, _, status)) in rows.iter().zip(&statuses) {
        proposals.push(KeptProposal {
            identifier: row.identificador.clone(),
            finished: status.is_finished(),
            contract: terms.remove(&row.id),
            last_change: row.alterado_em,
            health_answers: row.health,
            free_text: row.free_text,
        });
    }
    let records = PersonRecords {
        registrations_changed: registrations.changed,
        registrations_health_answers: registrations.health,
        proposals,
    };
    Ok((records, rows))
}

/// The part of a plan that keeps the person: the refused proposals' defences kept first, health
/// answers and free text dropped (history action `retencao`), then the unconcluded proposals'
/// copies and contents anonymised (`anonimizacao`).
async fn apply_partial(
    conn: &mut AsyncPgConnection,
    (sealer, now): (&SecretSealer, DateTime<Utc>),
    cpf: &Cpf,
    due: &RetentionPlan,
    rows: &[ProposalRow],
) -> Result<(), DieselError> {
    statement! {
        HISTORY_SAYS_ANONYMISATION = "SET LOCAL sales.history_action = 'anonimizacao'";
    }
    statement! {
        HISTORY_SAYS_RETENTION = "SET LOCAL sales.history_action = 'retencao'";
    }
    let ids_of = |identifiers: &[String]| -> Vec<i64> {
        rows.iter()
            .filter(|r| identifiers.contains(&r.identificador))
            .map(|r| r.id)
            .collect()
    };
    let health = ids_of(&due.proposals_health);
    let anonymised = ids_of(&due.proposals_anonymised);
    let leaving: Vec<i64> = health.iter().chain(&anonymised).copied().collect();
    refusal_defences::keep(conn, sealer, cpf, &leaving, RETENTION_AUTHOR, now).await?;
    HISTORY_SAYS_RETENTION.query().execute(conn).await?;
    if due.registrations_health {
        DROP_REGISTRATION_HEALTH
            .query()
            .bind::<Text, _>(cpf.as_str())
            .bind::<Text, _>(RETENTION_AUTHOR)
            .execute(conn)
            .await?;
    }
    if !health.is_empty() {
        DROP_COPY_HEALTH
            .query()
            .bind::<Array<BigInt>, _>(&health)
            .bind::<Text, _>(RETENTION_AUTHOR)
            .execute(conn)
            .await?;
    }
    if !leaving.is_empty() {
        refusal_defences::drop_free_text(conn, &leaving).await?;
    }
    if !anonymised.is_empty() {
        HISTORY_SAYS_ANONYMISATION.query().execute(conn).await?;
        for row in rows.iter().filter(|r| anonymised.contains(&r.id)) {
            // The registration's stand-in, which its own anonymisation will take too.
            let stand_in = Cpf::anonymous_placeholder(row.id_cliente.unsigned_abs());
            for statement in [ANONYMIZE_PROPOSAL_COPY, STAND_IN_PROPOSAL_CPF] {
                statement
                    .query()
                    .bind::<BigInt, _>(row.id)
                    .bind::<Text, _>(&stand_in)
                    .bind::<Text, _>(RETENTION_AUTHOR)
                    .execute(conn)
                    .await?;
            }
        }
        anonymize_contents(conn, &anonymised, RETENTION_AUTHOR).await?;
    }
    let touched: Vec<i64> = health.into_iter().chain(anonymised).collect();
    if !touched.is_empty() {
        read_model::write_documents(conn, &touched).await?;
    }
    Ok(())
}

/// What one person's transaction ended with.
enum Applied {
    /// Another instance holds the person.
    Busy,
    Done(RetentionPlan, Option<Anonymized>),
}

#[async_trait]
impl RetentionStore for PgRetention {
    async fn candidates(&self, now: DateTime<Utc>, schedule: RetentionSchedule) -> Result<Vec<Cpf>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let days = |n: u32| now - Duration::days(i64::from(n));
        let rows: Vec<CandidateRow> = CANDIDATES
            .query()
            .bind::<Timestamptz, _>(days(schedule.health_days))
            .bind::<Timestamptz, _>(days(schedule.unconcluded_days))
            .bind::<Timestamptz, _>(now)
            .bind::<Timestamptz, _>(days(schedule.hold.contract_years.saturating_mul(365)))
            .bind::<Text, _>(ANONYMIZED_NAME)
            .bind::<Array<Text>, _>(unconcluded_statuses())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        // An anonymised record's stand-in is never a valid CPF: nothing of a person is left there.
        Ok(rows.into_iter().filter_map(|r| Cpf::parse(&r.cpf).ok()).collect())
    }

    async fn records(&self, cpf: &Cpf) -> Result<PersonRecords, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let (records, _) = read_records(&mut conn, cpf).await.map_err(query_error)?;
        Ok(records)
    }

    async fn apply(
        &self,
        cpf: &Cpf,
        now: DateTime<Utc>,
        schedule: RetentionSchedule,
    ) -> Result<Option<(RetentionPlan, Option<Anonymized>)>, StoreError> {
        statement! {
            LOCK_PROPOSALS = "SELECT id FROM proposals WHERE cpf_cliente = $1 ORDER BY id FOR UPDATE";
        }
        statement! {
            LOCK_CUSTOMERS = "SELECT id FROM customers WHERE cpf = $1 ORDER BY id FOR UPDATE";
        }
        statement! {
            CLAIM_PERSON => Claimed = "SELECT pg_try_advisory_xact_lock(hashtext('retencao'), hashtext($1)) AS claimed";
        }
        let mut conn = connection(&self.pool).await?;
        let sealer = self.sealer.clone();
        let applied = conn
            .transaction(async |conn| {
                let claimed: Claimed = CLAIM_PERSON
                    .query()
                    .bind::<Text, _>(cpf.as_str())
                    .get_result(conn)
                    .await?;
                if !claimed.claimed {
                    return Ok(Applied::Busy);
                }
                // The person's rows locked before they are judged: a request changing them waits.
                LOCK_CUSTOMERS
                    .query()
                    .bind::<Text, _>(cpf.as_str())
                    .execute(conn)
                    .await?;
                LOCK_PROPOSALS
                    .query()
                    .bind::<Text, _>(cpf.as_str())
                    .execute(conn)
                    .await?;
                let (records, rows) = read_records(conn, cpf).await?;
                let due = plan(&records, now, &schedule);
                if due.anonymise_person {
                    return match anonymize_in(conn, &sealer, cpf, RETENTION_AUTHOR, now, schedule.hold).await? {
                        AnonymizeOutcome::Done(done) => Ok(Applied::Done(due, Some(done))),
                        // Judged under the same lock, neither happens; were it to, nothing is due.
                        _ => Err(Stop::Blocked(Vec::new())),
                    };
                }
                if !due.is_empty() {
                    apply_partial(conn, (&sealer, now), cpf, &due, &rows).await?;
                }
                Ok(Applied::Done(due, None))
            })
            .await;
        match applied {
            Ok(Applied::Busy) => Ok(None),
            Ok(Applied::Done(due, anonymized)) => Ok(Some((due, anonymized))),
            Err(Stop::Blocked(_)) => Ok(Some((RetentionPlan::default(), None))),
            Err(Stop::Db(e)) => Err(query_error(e)),
        }
    }

    async fn record_run(&self, report: &RetentionReport, at: DateTime<Utc>) -> Result<(), StoreError> {
        statement! {
            INSERT_PRIVACY_RETENTION_RUNS = "INSERT INTO privacy_retention_runs (referencia, titulares, propostas, respostas_saude) VALUES ($1, $2, $3, $4)";
        }
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        let mut conn = connection(&self.pool).await?;
        INSERT_PRIVACY_RETENTION_RUNS
            .query()
            .bind::<Timestamptz, _>(at)
            .bind::<Integer, _>(count(report.persons_anonymised()))
            .bind::<Integer, _>(count(report.proposals_anonymised()))
            .bind::<Integer, _>(count(report.health_answers_dropped()))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Claimed {
    #[diesel(sql_type = Bool)]
    claimed: bool,
}

/// What the schedule has done in all, by kind (the metrics' sample).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, QueryableByName)]
pub struct RetentionTotals {
    #[diesel(sql_type = BigInt)]
    pub persons: i64,
    #[diesel(sql_type = BigInt)]
    pub proposals: i64,
    #[diesel(sql_type = BigInt)]
    pub health_answers: i64,
}

pub async fn retention_totals(pool: &PgPool) -> Result<RetentionTotals, StoreError> {
    statement! {
        RETENTION_TOTALS => RetentionTotals = "SELECT coalesce(sum(titulares), 0)::bigint AS persons, coalesce(sum(propostas), 0)::bigint AS proposals,
                 coalesce(sum(respostas_saude), 0)::bigint AS health_answers
             FROM privacy_retention_runs";
    }
    let mut conn = connection(pool).await?;
    RETENTION_TOTALS
        .query()
        .get_result(&mut conn)
        .await
        .map_err(query_error)
}
