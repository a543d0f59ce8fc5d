//! `Idempotency-Key`s in PostgreSQL: the domain's `IdempotencyStore`. A claim is one transaction:
//! the key's row locked (or inserted, where a concurrent insert of the same key waits for ours
//! and then finds it), judged, and taken or left.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::idempotency_keys as keys;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::idempotency::{Claim, Fingerprint, IdempotencyKey, IdempotencyStore, StoredAnswer};
use domain::store::StoreError;

#[derive(Clone)]
pub struct PgIdempotency {
    pool: PgPool,
}

impl PgIdempotency {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

type Row = (
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    Option<i16>,
    Option<String>,
    Option<Vec<u8>>,
);

#[async_trait]
impl IdempotencyStore for PgIdempotency {
    async fn claim(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        expired_before: DateTime<Utc>,
        abandoned_before: DateTime<Utc>,
    ) -> Result<Claim, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let key = key.as_str();
        let claim = conn
            .transaction(async |conn| {
                let row: Option<Row> = keys::table
                    .find((user_id, key))
                    .select((
                        keys::fingerprint,
                        keys::created_at,
                        keys::claimed_at,
                        keys::status,
                        keys::content_type,
                        keys::body,
                    ))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let take_over = |conn| {
                    diesel::update(keys::table.find((user_id, key)))
                        .set((
                            keys::fingerprint.eq(&fingerprint.0),
                            keys::created_at.eq(diesel::dsl::now),
                            keys::claimed_at.eq(diesel::dsl::now),
                            keys::completed_at.eq(None::<DateTime<Utc>>),
                            keys::status.eq(None::<i16>),
                            keys::content_type.eq(None::<String>),
                            keys::body.eq(None::<Vec<u8>>),
                        ))
                        .execute(conn)
                };
                let Some((stored, created_at, claimed_at, status, content_type, body)) = row else {
                    // A concurrent first use of the key inserts too: one row wins, the other
                    // statement waits for it and inserts nothing.
                    let inserted = diesel::insert_into(keys::table)
                        .values((
                            keys::user_id.eq(user_id),
                            keys::key.eq(key),
                            keys::fingerprint.eq(&fingerprint.0),
                        ))
                        .on_conflict_do_nothing()
                        .execute(conn)
                        .await?;
                    return Ok(if inserted == 1 { Claim::Fresh } else { Claim::InFlight });
                };
                if created_at < expired_before {
                    take_over(conn).await?;
                    return Ok(Claim::Fresh);
                }
                if stored != fingerprint.0 {
                    return Ok(Claim::OtherRequest);
                }
                if let (Some(status), Some(body)) = (status, body) {
                    return Ok(Claim::Replay(StoredAnswer {
                        status: u16::try_from(status).unwrap_or(500),
                        content_type,
                        body,
                    }));
                }
                if claimed_at < abandoned_before {
                    take_over(conn).await?;
                    return Ok(Claim::Fresh);
                }
                Ok::<_, diesel::result::Error>(Claim::InFlight)
            })
            .await
            .map_err(query_error)?;
        Ok(claim)
    }

    async fn complete(&self, user_id: i64, key: &IdempotencyKey, answer: &StoredAnswer) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(keys::table.find((user_id, key.as_str())))
            .filter(keys::completed_at.is_null())
            .set((
                keys::completed_at.eq(diesel::dsl::now),
                keys::status.eq(i16::try_from(answer.status).unwrap_or(500)),
                keys::content_type.eq(answer.content_type.as_deref()),
                keys::body.eq(&answer.body),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn release(&self, user_id: i64, key: &IdempotencyKey) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::delete(keys::table.find((user_id, key.as_str())))
            .filter(keys::completed_at.is_null())
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}
