//! A customer's requests about a proposal, each under its protocol: the domain's
//! `CustomerRequestStore`. A request and the status move it makes are one transaction.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{customer_requests as requests, proposals, signature_parties, signatures, subscriptions};
use crate::unit_of_work::change_error::ChangeError;
use crate::unit_of_work::status_change::apply_change;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::proposals::lifecycle::{StatusChange, StatusEvent};
use domain::proposals::requests::{
    CustomerRequest, CustomerRequestStore, NewCustomerRequest, Protocol, RequestKind, SaleMoments, SubscriptionStart,
};
use domain::signature::ChangeStatusError;
use domain::store::StoreError;
use domain::values::StoredValueError;

diesel::define_sql_function! {
    /// The next number of the requests' sequence.
    fn nextval(sequence: diesel::sql_types::Text) -> diesel::sql_types::BigInt;
}

#[derive(Clone)]
pub struct PgCustomerRequests {
    pool: PgPool,
}

impl PgCustomerRequests {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

type RequestRow = (String, String, String, String, String, DateTime<Utc>);

fn request_of(row: RequestRow) -> Result<CustomerRequest, StoredValueError> {
    let (protocol, identifier, kind, reason, requested_by, at) = row;
    Ok(CustomerRequest {
        protocol: Protocol::parse(&protocol)
            .ok_or_else(|| StoredValueError::new("customer_requests", "protocolo", &protocol))?,
        kind: RequestKind::parse(&kind).ok_or_else(|| StoredValueError::new("customer_requests", "tipo", &kind))?,
        identifier,
        reason,
        requested_by,
        at,
    })
}

/// What a request is read as, with its proposal's identifier.
macro_rules! request_columns {
    () => {
        (
            requests::protocolo,
            proposals::identificador,
            requests::tipo,
            requests::motivo,
            requests::solicitado_por,
            requests::solicitado_em,
        )
    };
}

/// The move first: its row lock orders concurrent requests, and a proposal no longer where the
/// request found it draws no number. Then the request under its new protocol.
pub(crate) async fn insert_request(
    conn: &mut AsyncPgConnection,
    change: &StatusChange,
    request: &NewCustomerRequest,
) -> Result<(StatusEvent, Protocol), ChangeError> {
    let event = apply_change(conn, change).await?;
    let protocol = record_request(conn, change.proposal_id, request).await?;
    Ok((event, protocol))
}

/// A customer's request under a new protocol (its history entry by the table's trigger), in the
/// caller's transaction.
pub(crate) async fn record_request(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    request: &NewCustomerRequest,
) -> QueryResult<Protocol> {
    let number: i64 = diesel::select(nextval("customer_request_numbers"))
        .get_result(conn)
        .await?;
    let protocol = Protocol::new(request.day, number);
    diesel::insert_into(requests::table)
        .values((
            requests::protocolo.eq(protocol.as_str()),
            requests::proposal_id.eq(proposal_id),
            requests::tipo.eq(request.kind.as_str()),
            requests::motivo.eq(&request.reason),
            requests::solicitado_por.eq(&request.requested_by),
            requests::solicitado_em.eq(request.at),
        ))
        .execute(conn)
        .await?;
    Ok(protocol)
}

#[async_trait]
impl CustomerRequestStore for PgCustomerRequests {
    async fn record(
        &self,
        change: &StatusChange,
        request: &NewCustomerRequest,
    ) -> Result<(StatusEvent, Protocol), ChangeStatusError> {
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| insert_request(conn, change, request).await)
            .await;
        result.map_err(ChangeStatusError::from)
    }

    async fn sale_moments(&self, proposal_id: i64) -> Result<SaleMoments, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let last_signature: Option<DateTime<Utc>> = signature_parties::table
            .inner_join(signatures::table.on(signatures::id.eq(signature_parties::signature_id)))
            .filter(signatures::proposal_id.eq(proposal_id))
            .select(diesel::dsl::max(signature_parties::signed_at))
            .first(&mut conn)
            .await
            .map_err(query_error)?;
        // The platform's own start (`start_date`) when it told one, else when it was stored.
        let subscription: Option<(String, DateTime<Utc>, String)> = subscriptions::table
            .filter(subscriptions::proposal_id.eq(proposal_id))
            .filter(subscriptions::platform_id.is_not_null())
            .order(subscriptions::id.desc())
            .select((
                subscriptions::platform_id.assume_not_null(),
                diesel::dsl::sql::<diesel::sql_types::Timestamptz>(
                    "coalesce(to_timestamp((subscriptions.object ->> 'start_date')::float8), subscriptions.created_at)",
                ),
                subscriptions::status,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(SaleMoments {
            last_signature,
            subscription: subscription.map(|(platform_id, started_at, status)| SubscriptionStart {
                platform_id,
                started_at,
                status,
            }),
        })
    }

    async fn find(&self, protocol: &Protocol) -> Result<Option<CustomerRequest>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<RequestRow> = requests::table
            .inner_join(proposals::table)
            .filter(requests::protocolo.eq(protocol.as_str()))
            .select(request_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(request_of).transpose()?)
    }

    async fn of_proposal(&self, proposal_id: i64) -> Result<Vec<CustomerRequest>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<RequestRow> = requests::table
            .inner_join(proposals::table)
            .filter(requests::proposal_id.eq(proposal_id))
            .order(requests::solicitado_em.asc())
            .select(request_columns!())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows.into_iter().map(request_of).collect::<Result<_, _>>()?)
    }
}
