//! Users, their administration, and the sign-in and recovery throttling counters in PostgreSQL.

use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::schema::{partners, representatives, signin_throttle, user_applications, users};
use crate::sessions::SESSIONS_CHANNEL;

statement! {
    /// Tells every instance on the channel `$1` that sessions changed (sent at commit).
    NOTIFY_SESSIONS = "SELECT pg_notify($1, '')";
}
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::auth::model::{ThrottleKey, UserAccount, UserId};
use domain::auth::password::PasswordHash;
use domain::auth::ports::{Admission, SignInThrottle, UserRepository};
use domain::auth::throttle::{CounterState, Tier};
use domain::store::StoreError;
use domain::users::{AdministerUserError, CreateUserError, NewUser, UserAdministration, UserWriter};
use domain::values::{Application, Email};

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

/// Id, e-mail, password hash, credentials generation, disabled.
type UserRow = (i64, String, String, i32, Option<DateTime<Utc>>);

const USER_COLUMNS: (
    users::id,
    users::email,
    users::password_hash,
    users::credentials_epoch,
    users::disabled_at,
) = (
    users::id,
    users::email,
    users::password_hash,
    users::credentials_epoch,
    users::disabled_at,
);

async fn load_user(conn: &mut AsyncPgConnection, row: Option<UserRow>) -> Result<Option<UserAccount>, StoreError> {
    let Some((id, email, hash, credentials_epoch, disabled_at)) = row else {
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
        credentials_epoch,
        disabled: disabled_at.is_some(),
    }))
}

async fn insert_applications(
    conn: &mut AsyncPgConnection,
    user_id: i64,
    applications: &[Application],
) -> Result<(), DieselError> {
    let rows: Vec<_> = applications
        .iter()
        .map(|a| {
            (
                user_applications::user_id.eq(user_id),
                user_applications::application.eq(a.as_str()),
            )
        })
        .collect();
    diesel::insert_into(user_applications::table)
        .values(&rows)
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl UserRepository for PgAccounts {
    async fn find_by_email(&self, email: &Email) -> Result<Option<UserAccount>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = users::table
            .filter(users::email.eq(email.as_str()))
            .select(USER_COLUMNS)
            .first::<UserRow>(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        load_user(&mut conn, row).await
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<UserAccount>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = users::table
            .find(id)
            .select(USER_COLUMNS)
            .first::<UserRow>(&mut conn)
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
                insert_applications(conn, id, &user.applications).await?;
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
impl UserAdministration for PgAccounts {
    async fn disable(&self, email: &Email) -> Result<(), AdministerUserError> {
        let mut conn = connection(&self.pool).await?;
        let now = Utc::now();
        // Moving the credentials on ends every session (the trigger tells every instance).
        let changed = diesel::update(users::table.filter(users::email.eq(email.as_str())))
            .set((
                users::disabled_at.eq(diesel::dsl::sql::<
                    diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
                >("coalesce(disabled_at, now())")),
                users::credentials_epoch.eq(users::credentials_epoch + 1),
                users::updated_at.eq(now),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        if changed == 0 {
            return Err(AdministerUserError::NotFound);
        }
        Ok(())
    }

    async fn set_applications(&self, email: &Email, applications: &[Application]) -> Result<(), AdministerUserError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let Some(id) = users::table
                .filter(users::email.eq(email.as_str()))
                .select(users::id)
                .for_update()
                .first::<i64>(conn)
                .await
                .optional()?
            else {
                return Ok(Err(AdministerUserError::NotFound));
            };
            if applications.contains(&Application::Partner) {
                let represents: bool = diesel::select(diesel::dsl::exists(
                    representatives::table.filter(representatives::user_id.eq(id)),
                ))
                .get_result(conn)
                .await?;
                if !represents {
                    return Ok(Err(AdministerUserError::NoPartner));
                }
            }
            // Moving the credentials on ends every session: their tokens name applications.
            diesel::update(users::table.find(id))
                .set((
                    users::credentials_epoch.eq(users::credentials_epoch + 1),
                    users::updated_at.eq(Utc::now()),
                ))
                .execute(conn)
                .await?;
            diesel::delete(user_applications::table.filter(user_applications::user_id.eq(id)))
                .execute(conn)
                .await?;
            insert_applications(conn, id, applications).await?;
            Ok::<_, DieselError>(Ok(()))
        })
        .await
        .map_err(query_error)?
    }

    async fn pin_version<'a>(&self, email: &Email, version: Option<&'a str>) -> Result<(), AdministerUserError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let changed = diesel::update(users::table.filter(users::email.eq(email.as_str())))
                .set((users::api_version.eq(version), users::updated_at.eq(Utc::now())))
                .execute(conn)
                .await?;
            if changed == 0 {
                return Ok(Err(AdministerUserError::NotFound));
            }
            // Every instance drops its kept answers of "does this session hold?", which carry the
            // pin: the user's next request reads the new one, its sessions go on.
            NOTIFY_SESSIONS
                .query()
                .bind::<diesel::sql_types::Text, _>(SESSIONS_CHANNEL)
                .execute(conn)
                .await?;
            Ok::<_, DieselError>(Ok(()))
        })
        .await
        .map_err(query_error)?
    }
}

statement! {
    /// The latest refusal among the counters, read without locks.
    LATEST_REFUSAL => LatestRefusal = "
    SELECT max(blocked_until) AS until FROM signin_throttle
    WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND blocked_until > $3";
}

#[derive(diesel::QueryableByName)]
struct LatestRefusal {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    until: Option<DateTime<Utc>>,
}

async fn latest_refusal(
    conn: &mut AsyncPgConnection,
    counters: &[(ThrottleKey, Tier)],
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, DieselError> {
    use diesel::sql_types::{Array, Text, Timestamptz};
    let scopes: Vec<&str> = counters.iter().map(|(k, _)| k.scope()).collect();
    let keys: Vec<&str> = counters.iter().map(|(k, _)| k.value()).collect();
    let found: LatestRefusal = prepared(LATEST_REFUSAL, |q| {
        q.bind::<Array<Text>, _>(scopes)
            .bind::<Array<Text>, _>(keys)
            .bind::<Timestamptz, _>(now)
    })
    .get_result(conn)
    .await?;
    Ok(found.until)
}

/// Every attempt locks its counters in this one order, so that two attempts never wait on each
/// other in a cycle.
fn in_lock_order(counters: &[(ThrottleKey, Tier)]) -> Vec<&(ThrottleKey, Tier)> {
    let mut ordered: Vec<_> = counters.iter().collect();
    ordered.sort_by(|(a, _), (b, _)| (a.scope(), a.value()).cmp(&(b.scope(), b.value())));
    ordered
}

/// The counter's row, created at zero when new, locked until the transaction ends.
async fn lock_counter(
    conn: &mut AsyncPgConnection,
    key: &ThrottleKey,
    now: DateTime<Utc>,
) -> Result<CounterState, DieselError> {
    let (failures, window_started_at, blocked_until): (i32, DateTime<Utc>, Option<DateTime<Utc>>) =
        diesel::insert_into(signin_throttle::table)
            .values((
                signin_throttle::scope.eq(key.scope()),
                signin_throttle::key.eq(key.value()),
                signin_throttle::failures.eq(0),
                signin_throttle::window_started_at.eq(now),
            ))
            .on_conflict((signin_throttle::scope, signin_throttle::key))
            .do_update()
            // A write of the same value: it takes the row lock and returns the row as it stands.
            .set(signin_throttle::failures.eq(signin_throttle::failures))
            .returning((
                signin_throttle::failures,
                signin_throttle::window_started_at,
                signin_throttle::blocked_until,
            ))
            .get_result(conn)
            .await?;
    Ok(CounterState {
        failures: u32::try_from(failures).unwrap_or(0),
        window_started_at,
        blocked_until,
    })
}

async fn store_counter(
    conn: &mut AsyncPgConnection,
    key: &ThrottleKey,
    state: CounterState,
) -> Result<(), DieselError> {
    diesel::update(signin_throttle::table.find((key.scope(), key.value())))
        .set((
            signin_throttle::failures.eq(i32::try_from(state.failures).unwrap_or(i32::MAX)),
            signin_throttle::window_started_at.eq(state.window_started_at),
            signin_throttle::blocked_until.eq(state.blocked_until),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl SignInThrottle for PgAccounts {
    async fn admit(&self, counters: &[(ThrottleKey, Tier)], now: DateTime<Utc>) -> Result<Admission, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // A counter already refusing is seen without a lock or a transaction: someone hammering a
        // refused account costs one indexed read a request, and never holds connections waiting
        // on each other's row locks (which would starve every other route of the pool).
        if let Some(until) = latest_refusal(&mut conn, counters, now).await.map_err(query_error)? {
            return Ok(Admission::Refused { until });
        }
        conn.transaction(async |conn| {
            let mut moved = Vec::with_capacity(counters.len());
            let mut refused_until: Option<DateTime<Utc>> = None;
            for (key, tier) in in_lock_order(counters) {
                let state = lock_counter(conn, key, now).await?;
                match tier.admit(Some(state), now) {
                    Ok(next) => moved.push((key, next)),
                    Err(until) => refused_until = Some(refused_until.map_or(until, |u| u.max(until))),
                }
            }
            if let Some(until) = refused_until {
                return Ok(Admission::Refused { until });
            }
            for (key, next) in moved {
                store_counter(conn, key, next).await?;
            }
            Ok::<_, DieselError>(Admission::Admitted)
        })
        .await
        .map_err(query_error)
    }

    async fn give_back(&self, counters: &[(ThrottleKey, Tier)]) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            for (key, tier) in in_lock_order(counters) {
                let state: Option<(i32, DateTime<Utc>, Option<DateTime<Utc>>)> = signin_throttle::table
                    .find((key.scope(), key.value()))
                    .select((
                        signin_throttle::failures,
                        signin_throttle::window_started_at,
                        signin_throttle::blocked_until,
                    ))
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                if let Some((failures, window_started_at, blocked_until)) = state {
                    let state = CounterState {
                        failures: u32::try_from(failures).unwrap_or(0),
                        window_started_at,
                        blocked_until,
                    };
                    store_counter(conn, key, tier.give_back(state)).await?;
                }
            }
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)
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
