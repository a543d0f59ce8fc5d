//! The end of the operation a status move was for, and the check that admits a move only when
//! no other operation is pending on the proposal (`domain::proposals::operations`); the claims
//! themselves are `PgOperations`'.

use super::change_error::ChangeError;
use crate::rows::stored;
use crate::schema::proposal_operations as operations;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::proposals::operations::{OperationId, OperationKind};
use domain::values::StoredValueError;

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OperationState {
    Done,
    Failed,
}

impl OperationState {
    fn as_str(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Failed => "failed",
        }
    }
}

pub(crate) fn stored_kind(kind: &str) -> Result<OperationKind, StoredValueError> {
    OperationKind::parse(kind).ok_or_else(|| StoredValueError::new("proposal_operations", "kind", kind))
}

/// The pending operation on a proposal, if any (read after the proposal's row lock is held, so
/// that a claim committed meanwhile is seen).
pub(crate) async fn pending_on(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
) -> QueryResult<Option<(OperationId, OperationKind)>> {
    let pending: Option<(uuid::Uuid, String)> = operations::table
        .filter(operations::proposal_id.eq(proposal_id))
        .filter(operations::state.eq("pending"))
        .select((operations::id, operations::kind))
        .first(conn)
        .await
        .optional()?;
    pending
        .map(|(id, kind)| Ok((OperationId(id), stored(stored_kind(&kind))?)))
        .transpose()
}

/// Whether a status move may be applied to a proposal whose row lock the caller holds: refused
/// while an operation other than `ending` is pending; `ending` must still be pending.
pub(crate) async fn admit_move(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    ending: Option<OperationId>,
) -> Result<(), ChangeError> {
    match (pending_on(conn, proposal_id).await?, ending) {
        (Some((pending, _)), Some(ending)) if pending == ending => Ok(()),
        (Some((_, kind)), _) => Err(ChangeError::Busy(kind)),
        (None, Some(_)) => Err(ChangeError::OperationEnded),
        (None, None) => Ok(()),
    }
}

/// Ends a pending operation inside the caller's transaction; a rollback if it is no longer
/// pending (the worker ended it first), so that nothing is recorded twice.
pub(crate) async fn end_in(
    conn: &mut AsyncPgConnection,
    id: OperationId,
    state: OperationState,
    outcome: &str,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    if end(conn, id, state, outcome, at).await? {
        Ok(())
    } else {
        Err(DieselError::RollbackTransaction)
    }
}

/// Ends a pending operation as done inside the caller's transaction; false when it was no
/// longer pending.
pub(crate) async fn end_in_checked(
    conn: &mut AsyncPgConnection,
    id: OperationId,
    outcome: &str,
    at: DateTime<Utc>,
) -> QueryResult<bool> {
    end(conn, id, OperationState::Done, outcome, at).await
}

pub(crate) async fn end(
    conn: &mut AsyncPgConnection,
    id: OperationId,
    state: OperationState,
    outcome: &str,
    at: DateTime<Utc>,
) -> QueryResult<bool> {
    let ended = diesel::update(operations::table.find(id.0))
        .filter(operations::state.eq("pending"))
        .set((
            operations::state.eq(state.as_str()),
            operations::finished_at.eq(at),
            operations::outcome.eq(outcome),
            operations::lease_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)
        .await?;
    Ok(ended == 1)
}
