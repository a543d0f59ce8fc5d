//! `Idempotency-Key`s in PostgreSQL: the domain's `IdempotencyStore`. A claim is one transaction:
//! the key's row locked (or inserted, where a concurrent insert of the same key waits for ours
//! and then finds it), judged, and taken or left.
//!
//! Nothing kept here is readable without the service's key (decision 127): the answer is sealed
//! (bound to its user and key), the request's fingerprint and the people the answer concerns are
//! keyed digests. Rows from before sealing (a clear `body`, a plain fingerprint) are still read
//! until the purge removes them.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::idempotency_keys as keys;
use crate::sealing::SecretSealer;
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Bytea, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::idempotency::{Claim, Fingerprint, IdempotencyKey, IdempotencyStore, StoredAnswer};
use domain::store::StoreError;
use domain::values::Cpf;
use std::sync::Arc;

/// What the keyed digests are for (each purpose its own digests).
const FINGERPRINT: &str = "idempotency-fingerprint";
const SUBJECT: &str = "idempotency-subject";

#[derive(Clone)]
pub struct PgIdempotency {
    pool: PgPool,
    sealer: Arc<SecretSealer>,
}

/// What a sealed answer is bound to: it opens only as the answer of this user's key.
fn answer_aad(user_id: i64, key: &str) -> Vec<u8> {
    let mut aad = b"idempotency-answer\0".to_vec();
    aad.extend_from_slice(&user_id.to_le_bytes());
    aad.extend_from_slice(key.as_bytes());
    aad
}

/// The keyed digests of a CPF under every known key (a rotation keeps older rows findable).
pub(crate) fn subject_tags(sealer: &SecretSealer, cpf: &Cpf) -> Vec<Vec<u8>> {
    sealer
        .tags(SUBJECT, cpf.as_str().as_bytes())
        .into_iter()
        .map(|t| t.to_vec())
        .collect()
}

statement! {
    /// Every kept answer about the person forgotten (`concerns_the_person!`'s parameters).
    FORGET_SUBJECT = concat!(
        "UPDATE idempotency_keys k \
         SET forgotten_at = now(), body = NULL, answer_sealed = NULL, subjects = '{}', \
             fingerprint = repeat('0', 64) \
         WHERE ",
        concerns_the_person!()
    );
}

/// Erases every kept answer about the person (found by digest, or in the clear text of rows from
/// before sealing, formatted or not), inside the caller's transaction: the rows stay, forgotten, so
/// that a retry is told the answer is gone instead of running again. Answers how many.
pub(crate) async fn forget_subject(
    conn: &mut AsyncPgConnection,
    sealer: &SecretSealer,
    cpf: &Cpf,
) -> QueryResult<usize> {
    FORGET_SUBJECT
        .query()
        .bind::<Array<Bytea>, _>(subject_tags(sealer, cpf))
        .bind::<Text, _>(cpf.as_str())
        .bind::<Text, _>(cpf.formatted())
        .execute(conn)
        .await
}

/// The kept, not yet forgotten answers about a person: by keyed digest (`$1`, under every known
/// key), or for rows from before sealing by their clear text holding the CPF (`$2` digits, `$3`
/// formatted).
macro_rules! concerns_the_person {
    () => {
        "k.forgotten_at IS NULL AND k.status IS NOT NULL
  AND (k.subjects && $1
       OR (k.body IS NOT NULL AND (position(convert_to($2, 'UTF8') IN k.body) > 0
                                   OR position(convert_to($3, 'UTF8') IN k.body) > 0)))"
    };
}

/// The kept answers about the person (for the export): key and when, never the answer; the
/// parameters are `concerns_the_person!`'s.
macro_rules! kept_answers {
    () => {
        concat!(
            "SELECT coalesce(jsonb_agg(jsonb_build_object(
                'chave', k.key, 'usuario', u.email, 'status', k.status, 'em', k.completed_at)
                ORDER BY k.completed_at), '[]'::jsonb) AS document
             FROM idempotency_keys k JOIN users u ON u.id = k.user_id
             WHERE ",
            $crate::idempotency::concerns_the_person!()
        )
    };
}

pub(crate) use {concerns_the_person, kept_answers};

impl PgIdempotency {
    pub fn new(pool: PgPool, sealer: Arc<SecretSealer>) -> Self {
        Self { pool, sealer }
    }

    /// The fingerprint as stored: a keyed digest of the request's (which is a plain SHA-256 of a
    /// body that may be as guessable as a CPF).
    fn stored_fingerprint(&self, fingerprint: &Fingerprint) -> String {
        hex::encode(self.sealer.tag(FINGERPRINT, fingerprint.0.as_bytes()))
    }

    /// Whether a stored fingerprint is this request's, under any known key or from before keyed
    /// digests.
    fn same_request(&self, stored: &str, fingerprint: &Fingerprint) -> bool {
        stored == fingerprint.0
            || self
                .sealer
                .tags(FINGERPRINT, fingerprint.0.as_bytes())
                .iter()
                .any(|tag| hex::encode(tag) == stored)
    }

    /// Re-encrypts every kept answer under the current key (after a key rotation, beside the
    /// webhook secrets); answers (moved, already current).
    pub async fn reseal_all(&self) -> Result<(usize, usize), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(i64, String, Vec<u8>)> = keys::table
            .filter(keys::answer_sealed.is_not_null())
            .select((keys::user_id, keys::key, keys::answer_sealed.assume_not_null()))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let (mut moved, mut current) = (0, 0);
        for (user_id, key, sealed) in rows {
            match self.sealer.reseal_bytes(&answer_aad(user_id, &key), &sealed)? {
                Some(resealed) => {
                    diesel::update(keys::table.find((user_id, &key)))
                        .filter(keys::answer_sealed.eq(&sealed))
                        .set(keys::answer_sealed.eq(resealed))
                        .execute(&mut conn)
                        .await
                        .map_err(query_error)?;
                    moved += 1;
                }
                None => current += 1,
            }
        }
        Ok((moved, current))
    }
}

type Row = (
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    Option<i16>,
    Option<String>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<DateTime<Utc>>,
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
        let stored_fingerprint = self.stored_fingerprint(fingerprint);
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
                        keys::answer_sealed,
                        keys::forgotten_at,
                    ))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let take_over = |conn| {
                    diesel::update(keys::table.find((user_id, key)))
                        .set((
                            keys::fingerprint.eq(&stored_fingerprint),
                            keys::created_at.eq(diesel::dsl::now),
                            keys::claimed_at.eq(diesel::dsl::now),
                            keys::completed_at.eq(None::<DateTime<Utc>>),
                            keys::status.eq(None::<i16>),
                            keys::content_type.eq(None::<String>),
                            keys::body.eq(None::<Vec<u8>>),
                            keys::answer_sealed.eq(None::<Vec<u8>>),
                            keys::subjects.eq(Vec::<Option<Vec<u8>>>::new()),
                            keys::forgotten_at.eq(None::<DateTime<Utc>>),
                        ))
                        .execute(conn)
                };
                let Some((stored, created_at, claimed_at, status, content_type, body, sealed, forgotten)) = row else {
                    // A concurrent first use of the key inserts too: one row wins, the other
                    // statement waits for it and inserts nothing.
                    let inserted = diesel::insert_into(keys::table)
                        .values((
                            keys::user_id.eq(user_id),
                            keys::key.eq(key),
                            keys::fingerprint.eq(&stored_fingerprint),
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
                // Before the fingerprint: a forgotten answer's fingerprint is erased too.
                if forgotten.is_some() {
                    return Ok(Claim::Forgotten);
                }
                if !self.same_request(&stored, fingerprint) {
                    return Ok(Claim::OtherRequest);
                }
                if let Some(status) = status {
                    let body = match (body, sealed) {
                        (Some(clear), _) => Some(clear),
                        (None, Some(sealed)) => self.sealer.open_bytes(&answer_aad(user_id, key), &sealed),
                        (None, None) => None,
                    };
                    // An answer no configured key opens cannot be replayed; it is not run twice.
                    return Ok(match body {
                        Some(body) => Claim::Replay(StoredAnswer {
                            status: u16::try_from(status).unwrap_or(500),
                            content_type,
                            body,
                        }),
                        None => {
                            tracing::error!("kept idempotent answer unreadable with the configured keys");
                            Claim::Forgotten
                        }
                    });
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

    async fn complete(
        &self,
        user_id: i64,
        key: &IdempotencyKey,
        answer: &StoredAnswer,
        subjects: &[Cpf],
    ) -> Result<(), StoreError> {
        let sealed = self
            .sealer
            .seal_bytes(&answer_aad(user_id, key.as_str()), &answer.body)?;
        let tags: Vec<Option<Vec<u8>>> = subjects
            .iter()
            .map(|cpf| Some(self.sealer.tag(SUBJECT, cpf.as_str().as_bytes()).to_vec()))
            .collect();
        let mut conn = connection(&self.pool).await?;
        diesel::update(keys::table.find((user_id, key.as_str())))
            .filter(keys::completed_at.is_null())
            .set((
                keys::completed_at.eq(diesel::dsl::now),
                keys::status.eq(i16::try_from(answer.status).unwrap_or(500)),
                keys::content_type.eq(answer.content_type.as_deref()),
                keys::answer_sealed.eq(sealed),
                keys::subjects.eq(tags),
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
