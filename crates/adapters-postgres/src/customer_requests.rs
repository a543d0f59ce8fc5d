//! A customer's requests about a proposal, each under its protocol: the domain's
//! `CustomerRequestStore`. A request and the status move it makes are one transaction.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{customer_requests as requests, proposals};
use crate::status_changes::{ChangeError, apply_change};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::proposals::lifecycle::{StatusChange, StatusEvent};
use domain::proposals::requests::{CustomerRequest, CustomerRequestStore, NewCustomerRequest, Protocol, RequestKind};
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

#[async_trait]
impl CustomerRequestStore for PgCustomerRequests {
    async fn record(
        &self,
        change: &StatusChange,
        request: &NewCustomerRequest,
    ) -> Result<(StatusEvent, Protocol), ChangeStatusError> {
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| {
                // The move first: its row lock orders concurrent requests, and a proposal no
                // longer where the request found it draws no number.
                let event = apply_change(conn, change).await?;
                let number: i64 = diesel::select(nextval("customer_request_numbers"))
                    .get_result(conn)
                    .await?;
                let protocol = Protocol::new(request.day, number);
                diesel::insert_into(requests::table)
                    .values((
                        requests::protocolo.eq(protocol.as_str()),
                        requests::proposal_id.eq(change.proposal_id),
                        requests::tipo.eq(request.kind.as_str()),
                        requests::motivo.eq(&request.reason),
                        requests::solicitado_por.eq(&request.requested_by),
                        requests::solicitado_em.eq(request.at),
                    ))
                    .execute(conn)
                    .await?;
                Ok::<_, ChangeError>((event, protocol))
            })
            .await;
        match result {
            Ok(recorded) => Ok(recorded),
            Err(ChangeError::Conflict(current)) => Err(ChangeStatusError::Conflict { current }),
            Err(ChangeError::Db(e)) => Err(ChangeStatusError::Store(query_error(e))),
        }
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
