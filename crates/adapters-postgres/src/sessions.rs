//! Sessions in PostgreSQL: opened by a sign-in, rotated by each refresh, ended by a sign-out or a
//! reused refresh token, and over for good once the user's credentials move on (a reset, a
//! disable, a change of applications: migration `sessions`).
//!
//! Whether a session holds is asked on every authenticated request, so each instance keeps the
//! answers it has read (`CachedSessions`), as the catalog is kept: triggers `NOTIFY` the
//! `sessions_changed` channel whenever a session ends or a user's credentials move on, however
//! made, and every instance `LISTEN`s and drops what it kept. While the listening connection is
//! down nothing is kept or served from memory.

use crate::listener::{Freshness, spawn_listener};
use crate::pool::{PgPool, connection, query_error};
use crate::schema::{refresh_tokens, sessions, users};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::auth::model::{NewSession, RefreshTokenRecord, RotateOutcome, SessionId};
use domain::auth::ports::{SessionHolding, SessionRegistry, SessionStore};
use domain::store::StoreError;
use domain::users::{AdministerUserError, UserAdministration};
use domain::values::{Application, Email};
use quick_cache::sync::Cache;
use std::sync::Arc;
use uuid::Uuid;

/// The channel the session triggers notify.
pub const SESSIONS_CHANNEL: &str = "sessions_changed";

#[derive(Clone)]
pub struct PgSessions {
    pool: PgPool,
}

impl PgSessions {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

/// Whether the session holds: not ended, its user not disabled and its credentials of the
/// generation the session opened under; and, when it holds, its user's pinned version.
async fn session_holding(
    conn: &mut diesel_async::AsyncPgConnection,
    session: SessionId,
) -> Result<Option<SessionHolding>, DieselError> {
    let row: Option<(bool, Option<String>)> = sessions::table
        .inner_join(users::table)
        .filter(sessions::id.eq(session))
        .select((
            sessions::ended_at
                .is_null()
                .and(users::disabled_at.is_null())
                .and(sessions::credentials_epoch.eq(users::credentials_epoch)),
            users::api_version,
        ))
        .first(conn)
        .await
        .optional()?;
    Ok(row
        .filter(|(holds, _)| *holds)
        .map(|(_, pinned_version)| SessionHolding { pinned_version }))
}

#[async_trait]
impl SessionStore for PgSessions {
    async fn open(&self, session: &NewSession, first: &RefreshTokenRecord) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            diesel::insert_into(sessions::table)
                .values((
                    sessions::id.eq(session.id),
                    sessions::user_id.eq(session.user_id),
                    sessions::application.eq(session.application.as_str()),
                    sessions::credentials_epoch.eq(session.credentials_epoch),
                    sessions::expires_at.eq(first.expires_at),
                ))
                .execute(conn)
                .await?;
            insert_refresh_token(conn, first).await
        })
        .await
        .map_err(query_error)
    }

    async fn rotate(
        &self,
        presented: Uuid,
        next: &RefreshTokenRecord,
        now: DateTime<Utc>,
    ) -> Result<RotateOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // One UPDATE decides: of two concurrent calls, the second waits for the first's row
            // lock and then finds `used_at` set.
            let spent_in: Option<Uuid> = diesel::update(
                refresh_tokens::table
                    .filter(refresh_tokens::jti.eq(presented))
                    .filter(refresh_tokens::used_at.is_null())
                    .filter(refresh_tokens::revoked_at.is_null())
                    .filter(refresh_tokens::expires_at.gt(now)),
            )
            .set(refresh_tokens::used_at.eq(now))
            .returning(refresh_tokens::session_id)
            .get_result(conn)
            .await
            .optional()?;
            let Some(session) = spent_in else {
                return reuse_or_invalid(conn, presented, now).await;
            };
            // A token's session is what the store says, whatever the token claims. Whether the
            // session holds is read after the token is spent: an end committed at any moment
            // around this is seen here or, later, by every check of the new tokens, which carry
            // the same session.
            if session != next.session_id || session_holding(conn, session).await?.is_none() {
                return Ok(RotateOutcome::Invalid);
            }
            insert_refresh_token(conn, next).await?;
            diesel::update(sessions::table.find(session))
                .set(sessions::expires_at.eq(next.expires_at))
                .execute(conn)
                .await?;
            Ok(RotateOutcome::Rotated)
        })
        .await
        .map_err(query_error)
    }

    async fn end(&self, session: SessionId, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        end_session(&mut conn, session, "signout", now)
            .await
            .map_err(query_error)
    }
}

async fn insert_refresh_token(
    conn: &mut diesel_async::AsyncPgConnection,
    token: &RefreshTokenRecord,
) -> Result<(), DieselError> {
    diesel::insert_into(refresh_tokens::table)
        .values((
            refresh_tokens::jti.eq(token.jti),
            refresh_tokens::session_id.eq(token.session_id),
            refresh_tokens::user_id.eq(token.user_id),
            refresh_tokens::application.eq(token.application.as_str()),
            refresh_tokens::expires_at.eq(token.expires_at),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

/// A token that could not be spent: a spent one ends its session (someone holds a copy); an
/// expired, revoked or unknown one is simply invalid.
async fn reuse_or_invalid(
    conn: &mut diesel_async::AsyncPgConnection,
    presented: Uuid,
    now: DateTime<Utc>,
) -> Result<RotateOutcome, DieselError> {
    let found: Option<(Uuid, Option<DateTime<Utc>>)> = refresh_tokens::table
        .find(presented)
        .select((refresh_tokens::session_id, refresh_tokens::used_at))
        .first(conn)
        .await
        .optional()?;
    match found {
        Some((session, Some(_))) => {
            end_session(conn, session, "reuse", now).await?;
            Ok(RotateOutcome::Reused)
        }
        _ => Ok(RotateOutcome::Invalid),
    }
}

/// Ends the session unless it already ended (the first reason stays).
async fn end_session(
    conn: &mut diesel_async::AsyncPgConnection,
    session: SessionId,
    reason: &'static str,
    now: DateTime<Utc>,
) -> Result<(), DieselError> {
    diesel::update(sessions::table.find(session))
        .filter(sessions::ended_at.is_null())
        .set((sessions::ended_at.eq(now), sessions::end_reason.eq(reason)))
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl SessionRegistry for PgSessions {
    async fn holding(&self, session: SessionId) -> Result<Option<SessionHolding>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        session_holding(&mut conn, session).await.map_err(query_error)
    }
}

/// `PgSessions`' answers to "does this session hold?" kept in memory until a session ends or a
/// user's credentials or pinned version move on anywhere. An ended session never holds again, so
/// only a "holds" can go stale, and the notification that makes it so drops everything.
#[derive(Clone)]
pub struct CachedSessions {
    store: PgSessions,
    freshness: Arc<Freshness>,
    /// Session → (generation read in, what it holds if it holds).
    answers: Arc<Cache<SessionId, (u64, Option<SessionHolding>)>>,
}

impl CachedSessions {
    /// Starts listening on the current tokio runtime; `capacity` bounds the sessions kept.
    pub fn start(store: PgSessions, database_url: &str, capacity: usize) -> Self {
        let freshness = Arc::new(Freshness::default());
        let answers = Arc::new(Cache::new(capacity.max(1)));
        let (listener_freshness, listener_answers) = (freshness.clone(), answers.clone());
        spawn_listener(database_url, SESSIONS_CHANNEL, move |event| {
            listener_freshness.on_event(event);
            listener_answers.clear();
        });
        Self {
            store,
            freshness,
            answers,
        }
    }

    /// Whether answers are being kept: the listener is connected.
    pub fn is_listening(&self) -> bool {
        self.freshness.current().is_some()
    }

    /// Drops what this instance kept, now: a change this instance made is read by its next
    /// request without waiting for its own notification (every other instance drops it when the
    /// notification arrives).
    pub fn forget(&self) {
        self.freshness.move_on();
        self.answers.clear();
    }
}

/// The operator's changes to users, each followed on this instance by [`CachedSessions::forget`]:
/// a user pinned, unpinned, disabled or given other applications is read so by the next request
/// this instance serves (read-your-writes), not only once the notification comes back.
pub struct ForgettingAdministration {
    pub inner: Arc<dyn UserAdministration>,
    pub sessions: CachedSessions,
}

#[async_trait]
impl UserAdministration for ForgettingAdministration {
    async fn disable(&self, email: &Email) -> Result<(), AdministerUserError> {
        let done = self.inner.disable(email).await;
        self.sessions.forget();
        done
    }

    async fn set_applications(&self, email: &Email, applications: &[Application]) -> Result<(), AdministerUserError> {
        let done = self.inner.set_applications(email, applications).await;
        self.sessions.forget();
        done
    }

    async fn pin_version<'a>(&self, email: &Email, version: Option<&'a str>) -> Result<(), AdministerUserError> {
        let done = self.inner.pin_version(email, version).await;
        self.sessions.forget();
        done
    }
}

#[async_trait]
impl SessionRegistry for CachedSessions {
    async fn holding(&self, session: SessionId) -> Result<Option<SessionHolding>, StoreError> {
        let read_in = self.freshness.current();
        if let Some(generation) = read_in
            && let Some((stored_in, holds)) = self.answers.get(&session)
            && stored_in == generation
        {
            return Ok(holds);
        }
        let holds = self.store.holding(session).await?;
        // Kept only if nothing moved on while it was read.
        if let Some(generation) = read_in
            && self.freshness.current() == Some(generation)
        {
            self.answers.insert(session, (generation, holds.clone()));
        }
        Ok(holds)
    }
}
