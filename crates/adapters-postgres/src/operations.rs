//! The claims of operations with an outside effect (`domain::proposals::operations`): recorded
//! under the proposal's row lock, ended in the transaction of the status move they make
//! (`unit_of_work::status_change::apply_change`), and taken by the worker when their request died.

use crate::pool::{PgPool, connection, query_error};
use crate::rows::stored;
use crate::schema::{proposal_operations as operations, proposals};
use crate::unit_of_work::operation_end::{OperationState, end, pending_on, stored_kind};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::proposals::operations::{
    ClaimError, NewOperation, OperationClaims, OperationId, OperationKind, PendingOperation,
};
use domain::store::StoreError;
use domain::values::{ProposalStatus, ReasonCategory, StoredValueError};

/// The partial unique index that holds one pending operation per proposal.
const ONE_PENDING_INDEX: &str = "proposal_operations_one_pending";

#[derive(Clone)]
pub struct PgOperations {
    pool: PgPool,
}

impl PgOperations {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

enum ClaimRefusal {
    Db(DieselError),
    Refused(ClaimError),
}

impl From<DieselError> for ClaimRefusal {
    fn from(e: DieselError) -> Self {
        ClaimRefusal::Db(e)
    }
}

type PendingRow = (
    uuid::Uuid,
    i64,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    DateTime<Utc>,
    i32,
);

fn pending_of(row: PendingRow) -> Result<PendingOperation, StoredValueError> {
    let (id, proposal_id, identifier, kind, requested_by, reason, reason_category, target, started_at, attempts) = row;
    Ok(PendingOperation {
        id: OperationId(id),
        proposal_id,
        identifier,
        kind: stored_kind(&kind)?,
        requested_by,
        reason,
        reason_category: reason_category
            .map(|c| ReasonCategory::from_stored(&c, "proposal_operations", "reason_category"))
            .transpose()?,
        target: target
            .map(|t| ProposalStatus::from_stored(&t, "proposal_operations", "target"))
            .transpose()?,
        started_at,
        attempts,
    })
}

#[async_trait]
impl OperationClaims for PgOperations {
    async fn claim(&self, operation: &NewOperation) -> Result<(), ClaimError> {
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| {
                let current: Option<String> = proposals::table
                    .find(operation.proposal_id)
                    .select(proposals::status)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some(current) = current else {
                    return Err(ClaimRefusal::Db(DieselError::NotFound));
                };
                if let Some((_, kind)) = pending_on(conn, operation.proposal_id).await? {
                    return Err(ClaimRefusal::Refused(ClaimError::InProgress { kind }));
                }
                let current = stored(ProposalStatus::from_stored(&current, "proposals", "status"))?;
                if current != operation.expected {
                    return Err(ClaimRefusal::Refused(ClaimError::Moved { current }));
                }
                diesel::insert_into(operations::table)
                    .values((
                        operations::id.eq(operation.id.0),
                        operations::proposal_id.eq(operation.proposal_id),
                        operations::kind.eq(operation.kind.as_str()),
                        operations::requested_by.eq(&operation.requested_by),
                        operations::reason.eq(operation.reason.as_deref()),
                        operations::reason_category.eq(operation.reason_category.map(ReasonCategory::as_str)),
                        operations::target.eq(operation.target.map(|t| t.as_str())),
                        operations::started_at.eq(operation.at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(())
            })
            .await;
        match result {
            Ok(()) => Ok(()),
            Err(ClaimRefusal::Refused(refusal)) => Err(refusal),
            // Two claims of one proposal are serialised by its row lock; the index is the
            // backstop all the same.
            Err(ClaimRefusal::Db(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)))
                if info.constraint_name() == Some(ONE_PENDING_INDEX) =>
            {
                Err(ClaimError::InProgress { kind: operation.kind })
            }
            Err(ClaimRefusal::Db(e)) => Err(ClaimError::Store(query_error(e))),
        }
    }

    async fn finish(&self, id: OperationId, outcome: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        end(&mut conn, id, OperationState::Done, outcome, at)
            .await
            .map_err(query_error)
    }

    async fn fail(&self, id: OperationId, why: &str, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        end(&mut conn, id, OperationState::Failed, why, at)
            .await
            .map_err(query_error)
    }

    async fn failed_before(
        &self,
        proposal_id: i64,
        kind: OperationKind,
        except: OperationId,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::select(diesel::dsl::exists(
            operations::table
                .filter(operations::proposal_id.eq(proposal_id))
                .filter(operations::kind.eq(kind.as_str()))
                .filter(operations::state.eq("failed"))
                .filter(operations::id.ne(except.0)),
        ))
        .get_result(&mut conn)
        .await
        .map_err(query_error)
    }

    async fn take_overdue(
        &self,
        started_before: DateTime<Utc>,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<PendingOperation>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let due: Vec<uuid::Uuid> = operations::table
                .filter(operations::state.eq("pending"))
                .filter(operations::started_at.lt(started_before))
                .filter(operations::lease_until.is_null().or(operations::lease_until.lt(now)))
                .order(operations::started_at.asc())
                .limit(limit)
                .select(operations::id)
                .for_update()
                .skip_locked()
                .load(conn)
                .await?;
            if due.is_empty() {
                return Ok(Vec::new());
            }
            diesel::update(operations::table.filter(operations::id.eq_any(&due)))
                .set((
                    operations::lease_until.eq(now + lease),
                    operations::attempts.eq(operations::attempts + 1),
                ))
                .execute(conn)
                .await?;
            let rows: Vec<PendingRow> = operations::table
                .inner_join(proposals::table)
                .filter(operations::id.eq_any(&due))
                .order(operations::started_at.asc())
                .select((
                    operations::id,
                    operations::proposal_id,
                    proposals::identificador,
                    operations::kind,
                    operations::requested_by,
                    operations::reason,
                    operations::reason_category,
                    operations::target,
                    operations::started_at,
                    operations::attempts,
                ))
                .load(conn)
                .await?;
            rows.into_iter()
                .map(|row| {
                    let mut pending = stored(pending_of(row))?;
                    // Counted above: the attempts before this one.
                    pending.attempts -= 1;
                    Ok(pending)
                })
                .collect::<QueryResult<Vec<_>>>()
        })
        .await
        .map_err(query_error)
    }

    async fn overdue_count(&self, started_before: DateTime<Utc>) -> Result<i64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        operations::table
            .filter(operations::state.eq("pending"))
            .filter(operations::started_at.lt(started_before))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)
    }
}

/// The operations pending now and those pending since before `started_before`, per kind (every
/// kind answered, with zeros): what the metrics sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationLevel {
    pub kind: OperationKind,
    pub pending: i64,
    pub overdue: i64,
}

pub async fn operation_levels(pool: &PgPool, started_before: DateTime<Utc>) -> Result<Vec<OperationLevel>, StoreError> {
    let mut conn = connection(pool).await?;
    let rows: Vec<(String, i64, i64)> = operations::table
        .filter(operations::state.eq("pending"))
        .group_by(operations::kind)
        .select((
            operations::kind,
            diesel::dsl::count_star(),
            diesel::dsl::sql::<diesel::sql_types::BigInt>("count(*) FILTER (WHERE started_at < ")
                .bind::<diesel::sql_types::Timestamptz, _>(started_before)
                .sql(")"),
        ))
        .load(&mut conn)
        .await
        .map_err(query_error)?;
    Ok(OperationKind::ALL
        .into_iter()
        .map(|kind| {
            let (pending, overdue) = rows
                .iter()
                .find(|(stored, _, _)| stored == kind.as_str())
                .map_or((0, 0), |(_, pending, overdue)| (*pending, *overdue));
            OperationLevel { kind, pending, overdue }
        })
        .collect())
}
