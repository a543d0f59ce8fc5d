//! Users, refresh tokens and sign-in throttling in PostgreSQL.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{partners, refresh_tokens, representatives, signin_throttle, user_applications, users};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::auth::model::{ConsumeOutcome, RefreshTokenRecord, ThrottleKey, UserAccount, UserId};
use domain::auth::password::PasswordHash;
use domain::auth::ports::{RefreshTokenStore, SignInThrottle, UserRepository};
use domain::store::StoreError;
use domain::users::{CreateUserError, NewUser, UserWriter};
use domain::values::{Application, Email};
use uuid::Uuid;

/// The users, refresh tokens and throttling counters, over one pool.
#[derive(Clone)]
pub struct PgAccounts {
    pool: PgPool,
}

impl PgAccounts {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// Every user, by e-mail, with its applications and the partner it represents (an operator's
    /// listing: `sales-api user list`).
    pub async fn list_users(&self) -> Result<Vec<UserListing>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<ListingRow> = users::table
            .left_join(representatives::table.inner_join(partners::table))
            .order(users::email)
            .select((
                users::id,
                users::email,
                users::name,
                users::created_at,
                partners::cpf_cnpj.nullable(),
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let mut applications: Vec<(i64, String)> = user_applications::table
            .select((user_applications::user_id, user_applications::application))
            .order((user_applications::user_id, user_applications::application))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(|(id, email, name, created_at, partner_document)| UserListing {
                id,
                email,
                name,
                created_at,
                partner_document,
                applications: applications
                    .extract_if(.., |(user, _)| *user == id)
                    .map(|(_, application)| application)
                    .collect(),
            })
            .collect())
    }
}

/// Id, e-mail, name, creation and the represented partner's document.
type ListingRow = (i64, String, Option<String>, DateTime<Utc>, Option<String>);

/// A user as an operator's listing shows it (never its password hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserListing {
    pub id: i64,
    pub email: String,
    pub name: Option<String>,
    pub created_at: DateTime<Utc>,
    pub applications: Vec<String>,
    pub partner_document: Option<String>,
}

async fn load_user(
    conn: &mut AsyncPgConnection,
    row: Option<(i64, String, String)>,
) -> Result<Option<UserAccount>, StoreError> {
    let Some((id, email, hash)) = row else {
        return Ok(None);
    };
    let apps: Vec<String> = user_applications::table
        .filter(user_applications::user_id.eq(id))
        .select(user_applications::application)
        .load(conn)
        .await
        .map_err(query_error)?;
    let email = Email::parse(&email).map_err(|e| StoreError::Unexpected(format!("e-mail armazenado inválido: {e}")))?;
    Ok(Some(UserAccount {
        id,
        email,
        password_hash: PasswordHash(hash),
        // The database's check constraint admits only the three known names.
        applications: apps.iter().filter_map(|a| Application::parse(a).ok()).collect(),
    }))
}

#[async_trait]
impl UserRepository for PgAccounts {
    async fn find_by_email(&self, email: &Email) -> Result<Option<UserAccount>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = users::table
            .filter(users::email.eq(email.as_str()))
            .select((users::id, users::email, users::password_hash))
            .first::<(i64, String, String)>(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        load_user(&mut conn, row).await
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<UserAccount>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = users::table
            .find(id)
            .select((users::id, users::email, users::password_hash))
            .first::<(i64, String, String)>(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        load_user(&mut conn, row).await
    }
}

#[async_trait]
impl UserWriter for PgAccounts {
    async fn create(&self, user: &NewUser) -> Result<UserId, CreateUserError> {
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| {
                let id: i64 = diesel::insert_into(users::table)
                    .values((
                        users::email.eq(user.email.as_str()),
                        users::password_hash.eq(&user.password_hash.0),
                        users::name.eq(user.name.as_ref().map(|n| n.as_str())),
                        users::cpf.eq(user.cpf.as_ref().map(|c| c.as_str())),
                    ))
                    .returning(users::id)
                    .get_result(conn)
                    .await?;
                let apps: Vec<_> = user
                    .applications
                    .iter()
                    .map(|a| {
                        (
                            user_applications::user_id.eq(id),
                            user_applications::application.eq(a.as_str()),
                        )
                    })
                    .collect();
                diesel::insert_into(user_applications::table)
                    .values(&apps)
                    .execute(conn)
                    .await?;
                if let Some(partner) = &user.partner {
                    let social_reason = partner
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("Parceiro {}", partner.cnpj.as_str()));
                    diesel::insert_into(partners::table)
                        .values((
                            partners::cpf_cnpj.eq(partner.cnpj.as_str()),
                            partners::social_reason.eq(&social_reason),
                            partners::fantasy_name.eq(partner.name.as_deref()),
                            partners::alterado_por.eq(user.email.as_str()),
                        ))
                        .on_conflict(partners::cpf_cnpj)
                        .do_nothing()
                        .execute(conn)
                        .await?;
                    let partner_id: i64 = partners::table
                        .filter(partners::cpf_cnpj.eq(partner.cnpj.as_str()))
                        .select(partners::id)
                        .first(conn)
                        .await?;
                    diesel::insert_into(representatives::table)
                        .values((
                            representatives::user_id.eq(id),
                            representatives::partner_id.eq(partner_id),
                        ))
                        .execute(conn)
                        .await?;
                }
                Ok::<_, DieselError>(id)
            })
            .await;
        match result {
            Ok(id) => Ok(id),
            Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info))
                if info.constraint_name() == Some("users_email_key") =>
            {
                Err(CreateUserError::DuplicateEmail)
            }
            Err(e) => Err(CreateUserError::Store(query_error(e))),
        }
    }
}

#[async_trait]
impl RefreshTokenStore for PgAccounts {
    async fn record(&self, token: &RefreshTokenRecord) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(refresh_tokens::table)
            .values((
                refresh_tokens::jti.eq(token.jti),
                refresh_tokens::family_id.eq(token.family_id),
                refresh_tokens::user_id.eq(token.user_id),
                refresh_tokens::application.eq(token.application.as_str()),
                refresh_tokens::expires_at.eq(token.expires_at),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn consume(&self, jti: Uuid, now: DateTime<Utc>) -> Result<ConsumeOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // One UPDATE decides: of two concurrent calls, the second waits for the first's row lock
        // and then finds `used_at` set.
        let consumed: Option<Uuid> = diesel::update(
            refresh_tokens::table
                .filter(refresh_tokens::jti.eq(jti))
                .filter(refresh_tokens::used_at.is_null())
                .filter(refresh_tokens::revoked_at.is_null())
                .filter(refresh_tokens::expires_at.gt(now)),
        )
        .set(refresh_tokens::used_at.eq(now))
        .returning(refresh_tokens::family_id)
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
        if let Some(family_id) = consumed {
            return Ok(ConsumeOutcome::Consumed { family_id });
        }
        let existing: Option<(Uuid, Option<DateTime<Utc>>, Option<DateTime<Utc>>)> = refresh_tokens::table
            .find(jti)
            .select((
                refresh_tokens::family_id,
                refresh_tokens::used_at,
                refresh_tokens::revoked_at,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        match existing {
            None => Ok(ConsumeOutcome::Unknown),
            // Expired, never used: simply no longer valid.
            Some((_, None, None)) => Ok(ConsumeOutcome::Unknown),
            Some((family_id, _, _)) => {
                diesel::update(refresh_tokens::table.filter(refresh_tokens::family_id.eq(family_id)))
                    .filter(refresh_tokens::revoked_at.is_null())
                    .set(refresh_tokens::revoked_at.eq(now))
                    .execute(&mut conn)
                    .await
                    .map_err(query_error)?;
                Ok(ConsumeOutcome::Reused)
            }
        }
    }
}

#[async_trait]
impl SignInThrottle for PgAccounts {
    async fn blocked_until(
        &self,
        keys: &[ThrottleKey],
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let mut latest: Option<DateTime<Utc>> = None;
        for key in keys {
            let until: Option<Option<DateTime<Utc>>> = signin_throttle::table
                .find((key.scope(), key.value()))
                .select(signin_throttle::blocked_until)
                .first(&mut conn)
                .await
                .optional()
                .map_err(query_error)?;
            if let Some(Some(until)) = until
                && until > now
                && latest.is_none_or(|l| until > l)
            {
                latest = Some(until);
            }
        }
        Ok(latest)
    }

    async fn register_failure(
        &self,
        key: &ThrottleKey,
        now: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<u32, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let window_start = now - Duration::seconds(window_secs);
        // A window older than `window_secs` starts again at one failure.
        let failures: i32 = diesel::insert_into(signin_throttle::table)
            .values((
                signin_throttle::scope.eq(key.scope()),
                signin_throttle::key.eq(key.value()),
                signin_throttle::failures.eq(1),
                signin_throttle::window_started_at.eq(now),
            ))
            .on_conflict((signin_throttle::scope, signin_throttle::key))
            .do_update()
            .set((
                signin_throttle::failures.eq(diesel::dsl::case_when(
                    signin_throttle::window_started_at.gt(window_start),
                    signin_throttle::failures + 1,
                )
                .otherwise(1)),
                signin_throttle::window_started_at.eq(diesel::dsl::case_when(
                    signin_throttle::window_started_at.gt(window_start),
                    signin_throttle::window_started_at,
                )
                .otherwise(excluded(signin_throttle::window_started_at))),
            ))
            .returning(signin_throttle::failures)
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(u32::try_from(failures).unwrap_or(0))
    }

    async fn block(&self, key: &ThrottleKey, until: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(signin_throttle::table.find((key.scope(), key.value())))
            .set(signin_throttle::blocked_until.eq(until))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn reset(&self, key: &ThrottleKey) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::delete(signin_throttle::table.find((key.scope(), key.value())))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}
