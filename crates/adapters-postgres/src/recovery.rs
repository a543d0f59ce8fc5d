//! Password-recovery tokens in PostgreSQL: the domain's `RecoveryStore`.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{password_recovery_tokens as tokens, users};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::auth::model::UserId;
use domain::auth::password::PasswordHash;
use domain::recovery::{RecoveryStore, ResetOutcome, StoredRecoveryToken};
use domain::store::StoreError;
use domain::values::Email;

#[derive(Clone)]
pub struct PgRecovery {
    pool: PgPool,
}

impl PgRecovery {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl RecoveryStore for PgRecovery {
    async fn issue(&self, user_id: UserId, token_hash: &str, expires_at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(tokens::table)
            .values((
                tokens::user_id.eq(user_id),
                tokens::token_hash.eq(token_hash),
                tokens::expires_at.eq(expires_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn issued_since(&self, user_id: UserId, since: DateTime<Utc>) -> Result<u32, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let n: i64 = tokens::table
            .filter(tokens::user_id.eq(user_id))
            .filter(tokens::created_at.ge(since))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    async fn find(&self, token_hash: &str) -> Result<Option<StoredRecoveryToken>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type Row = (
            i64,
            i64,
            String,
            DateTime<Utc>,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        );
        let row: Option<Row> = tokens::table
            .inner_join(users::table)
            .filter(tokens::token_hash.eq(token_hash))
            .select((
                tokens::id,
                tokens::user_id,
                users::email,
                tokens::expires_at,
                tokens::used_at,
                tokens::revoked_at,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(|(id, user_id, email, expires_at, used_at, revoked_at)| {
            let email =
                Email::parse(&email).map_err(|e| StoreError::Unexpected(format!("e-mail armazenado inválido: {e}")))?;
            Ok(StoredRecoveryToken {
                id,
                user_id,
                email,
                expires_at,
                used_at,
                revoked_at,
            })
        })
        .transpose()
    }

    async fn reset_password(
        &self,
        token_id: i64,
        user_id: UserId,
        new_hash: &PasswordHash,
        now: DateTime<Utc>,
    ) -> Result<ResetOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // Spends the token only if nobody else did: of two concurrent resets one wins.
            let spent = diesel::update(tokens::table.find(token_id))
                .filter(tokens::used_at.is_null())
                .filter(tokens::revoked_at.is_null())
                .filter(tokens::expires_at.gt(now))
                .set(tokens::used_at.eq(now))
                .execute(conn)
                .await?;
            if spent == 0 {
                return Ok(ResetOutcome::AlreadySpent);
            }
            // Moving the credentials on ends every session of the user, on every instance: a
            // stolen token dies with the old password.
            diesel::update(users::table.find(user_id))
                .set((
                    users::password_hash.eq(&new_hash.0),
                    users::credentials_epoch.eq(users::credentials_epoch + 1),
                    users::updated_at.eq(now),
                ))
                .execute(conn)
                .await?;
            diesel::update(tokens::table.filter(tokens::user_id.eq(user_id)))
                .filter(tokens::id.ne(token_id))
                .filter(tokens::used_at.is_null())
                .filter(tokens::revoked_at.is_null())
                .set(tokens::revoked_at.eq(now))
                .execute(conn)
                .await?;
            Ok::<_, diesel::result::Error>(ResetOutcome::Done)
        })
        .await
        .map_err(query_error)
    }
}
