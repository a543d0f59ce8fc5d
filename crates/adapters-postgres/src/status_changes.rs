//! A proposal's status changes: its move, its numbered event and the webhook deliveries it queues
//! (`event_outbox`), written in one transaction (the event is sent if and only if the move
//! commits). Every store that moves a proposal (signatures, the shop's payments, the back office)
//! goes through `apply_change` here.

use crate::event_outbox;
use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::rows::stored;
use crate::schema::{proposal_events as events, proposals};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::proposals::lifecycle::{StatusChange, StatusEvent};
use domain::store::StoreError;
use domain::values::{EventKind, ProposalStatus, StoredValueError};

#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: i64,
    proposal_id: i64,
    kind: String,
    from_status: String,
    to_status: String,
    changed_by: String,
    changed_at: DateTime<Utc>,
    sequence: i32,
    reason: Option<String>,
}

impl TryFrom<EventRow> for StatusEvent {
    type Error = StoredValueError;

    fn try_from(r: EventRow) -> Result<Self, StoredValueError> {
        Ok(StatusEvent {
            id: r.id,
            proposal_id: r.proposal_id,
            kind: EventKind::from_stored(&r.kind, "proposal_events", "kind")?,
            from: ProposalStatus::from_stored(&r.from_status, "proposal_events", "from_status")?,
            to: ProposalStatus::from_stored(&r.to_status, "proposal_events", "to_status")?,
            changed_by: r.changed_by,
            changed_at: r.changed_at,
            sequence: r.sequence,
            reason: r.reason,
        })
    }
}

/// Errors inside a status-change transaction: diesel's, or the proposal not being where expected.
pub(crate) enum ChangeError {
    Db(DieselError),
    Conflict(ProposalStatus),
}

impl From<DieselError> for ChangeError {
    fn from(e: DieselError) -> Self {
        ChangeError::Db(e)
    }
}

/// Moves the proposal if it is still in `change.from`, writes the event with the next sequence
/// number and queues its webhook deliveries (the transactional outbox); the row lock the UPDATE
/// takes serialises concurrent changes of one proposal.
pub(crate) async fn apply_change(
    conn: &mut AsyncPgConnection,
    change: &StatusChange,
) -> Result<StatusEvent, ChangeError> {
    let moved: Option<(String, Option<i64>, String, String)> =
        diesel::update(proposals::table.find(change.proposal_id))
            .filter(proposals::status.eq(change.from.as_str()))
            .set((
                proposals::status.eq(change.to.as_str()),
                proposals::alterado_por.eq(&change.changed_by),
                proposals::alterado_em.eq(change.at),
            ))
            .returning((
                proposals::identificador,
                proposals::id_parceiro,
                proposals::fluxo,
                proposals::tipo_envio,
            ))
            .get_result(conn)
            .await
            .optional()?;
    let Some((identifier, partner_id, flow, shipping)) = moved else {
        let current: String = proposals::table
            .find(change.proposal_id)
            .select(proposals::status)
            .first(conn)
            .await?;
        return Err(ChangeError::Conflict(stored(ProposalStatus::from_stored(
            &current,
            "proposals",
            "status",
        ))?));
    };
    // The next sequence number is read in the insert itself: the proposal's row lock, taken by
    // the UPDATE above, serialises changes of one proposal.
    let row: EventRow = prepared(
        "INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence, reason)
         SELECT $1, $2, $3, $4, $5, $6, coalesce(max(sequence), 0) + 1, $7
         FROM proposal_events WHERE proposal_id = $1
         RETURNING id, proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence, reason",
        |q| {
            q.bind::<BigInt, _>(change.proposal_id)
                .bind::<Text, _>(EventKind::StatusChange.as_str())
                .bind::<Text, _>(change.from.as_str())
                .bind::<Text, _>(change.to.as_str())
                .bind::<Text, _>(&change.changed_by)
                .bind::<Timestamptz, _>(change.at)
                .bind::<Nullable<Text>, _>(change.reason.as_deref())
        },
    )
    .get_result(conn)
    .await?;
    let event = stored(StatusEvent::try_from(row))?;
    let facts = event_outbox::facts_from(change.proposal_id, identifier, partner_id, &flow, &shipping)?;
    let body = domain::hooks::payload::status_change(&event, &facts.identifier);
    event_outbox::queue(conn, EventKind::StatusChange, Some(event.id), &body, facts.audience).await?;
    if change.is_first_sending() {
        event_outbox::queue_sending(conn, &facts, 1, &change.changed_by, change.at).await?;
    }
    Ok(event)
}

/// Applies a status change inside the caller's transaction (for stores that move a proposal as
/// part of their own write); a proposal no longer in `change.from` rolls the transaction back.
pub(crate) async fn apply_change_in(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<StatusEvent> {
    match apply_change(conn, change).await {
        Ok(event) => Ok(event),
        Err(ChangeError::Db(e)) => Err(e),
        Err(ChangeError::Conflict(_)) => Err(DieselError::RollbackTransaction),
    }
}

/// A proposal's status events, oldest first.
pub(crate) async fn events_of(pool: &PgPool, proposal_id: i64) -> Result<Vec<StatusEvent>, StoreError> {
    let mut conn = connection(pool).await?;
    let rows: Vec<EventRow> = events::table
        .filter(events::proposal_id.eq(proposal_id))
        .order(events::sequence.asc())
        .select(EventRow::as_select())
        .load(&mut conn)
        .await
        .map_err(query_error)?;
    Ok(rows.into_iter().map(StatusEvent::try_from).collect::<Result<_, _>>()?)
}
