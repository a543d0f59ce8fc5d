//! A proposal's status changes: its move, its numbered event and the webhook deliveries it queues
//! (`event_outbox`), written in one transaction (the event is sent if and only if the move
//! commits). Every store that moves a proposal (signatures, the shop's payments, the back office)
//! goes through `apply_change` here.

use super::change_error::ChangeError;
use super::on_move;
use super::operation_end::{self, OperationState};
use crate::event_outbox;
use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::read_model;
use crate::rows::stored;
use crate::schema::{proposal_events as events, proposals};
use crate::statement::statement;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::proposals::lifecycle::{StatusChange, StatusEvent};
use domain::store::StoreError;
use domain::values::{EventKind, ProposalStatus, ReasonCategory, StoredValueError};

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
    reason_category: Option<String>,
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
            reason_category: r
                .reason_category
                .map(|c| ReasonCategory::from_stored(&c, "proposal_events", "reason_category"))
                .transpose()?,
        })
    }
}

/// Moves the proposal if it is still in `change.from`, writes the event with the next sequence
/// number and queues its webhook deliveries (the transactional outbox). The proposal's row is
/// locked first, which serialises concurrent changes of one proposal and the claims of its
/// operations (`PgOperations`' claim takes the same lock): a move is refused while an operation
/// other than the one it ends is pending, before anything is written, and a move that ends an
/// operation marks it done in the same transaction. The proposal's document is written last.
pub(crate) async fn apply_change(
    conn: &mut AsyncPgConnection,
    change: &StatusChange,
) -> Result<StatusEvent, ChangeError> {
    statement! {
        INSERT_PROPOSAL_EVENTS => EventRow = "INSERT INTO proposal_events (proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence, reason, reason_category)
             SELECT $1, $2, $3, $4, $5, $6, coalesce(max(sequence), 0) + 1, $7, $8
             FROM proposal_events WHERE proposal_id = $1
             RETURNING id, proposal_id, kind, from_status, to_status, changed_by, changed_at, sequence, reason, reason_category";
    }
    let current: String = proposals::table
        .find(change.proposal_id)
        .select(proposals::status)
        .for_update()
        .first(conn)
        .await?;
    operation_end::admit_move(conn, change.proposal_id, change.operation).await?;
    let current = stored(ProposalStatus::from_stored(&current, "proposals", "status"))?;
    if current != change.from {
        return Err(ChangeError::Conflict(current));
    }
    let (identifier, partner_id, flow, shipping): (String, Option<i64>, String, String) =
        diesel::update(proposals::table.find(change.proposal_id))
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
            .await?;
    if let Some(operation) = change.operation {
        operation_end::end_in(conn, operation, OperationState::Done, "estado registrado", change.at).await?;
    }
    // The next sequence number is read in the insert itself: the proposal's row lock, taken by
    // the UPDATE above, serialises changes of one proposal.
    let row: EventRow = prepared(INSERT_PROPOSAL_EVENTS, |q| {
        q.bind::<BigInt, _>(change.proposal_id)
            .bind::<Text, _>(EventKind::StatusChange.as_str())
            .bind::<Text, _>(change.from.as_str())
            .bind::<Text, _>(change.to.as_str())
            .bind::<Text, _>(&change.changed_by)
            .bind::<Timestamptz, _>(change.at)
            .bind::<Nullable<Text>, _>(change.reason.as_deref())
            .bind::<Nullable<Text>, _>(change.reason_category.map(ReasonCategory::as_str))
    })
    .get_result(conn)
    .await?;
    let event = stored(StatusEvent::try_from(row))?;
    let facts = event_outbox::facts_from(change.proposal_id, identifier, partner_id, &flow, &shipping)?;
    let body = domain::hooks::payload::status_change(&event, &facts.identifier);
    event_outbox::queue(conn, EventKind::StatusChange, Some(event.id), &body, facts.audience).await?;
    if change.is_first_sending() {
        event_outbox::queue_sending(conn, &facts, 1, &change.changed_by, change.at).await?;
    }
    on_move::acceptance_clock(conn, change).await?;
    on_move::documents_due(conn, change).await?;
    on_move::term(conn, change).await?;
    on_move::billing(conn, change).await?;
    read_model::write_documents(conn, &[change.proposal_id]).await?;
    Ok(event)
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
