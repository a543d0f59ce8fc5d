//! The connection pool, and the translation of its failures and diesel's into the domain's.

use crate::statement::statement;
use deadpool::managed::TimeoutType;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::AsyncPgConnection;
use diesel_async::RunQueryDsl;
use diesel_async::pooled_connection::deadpool::{Object, Pool, PoolError};
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use domain::store::StoreError;
use futures_util::FutureExt;
use observability::metric;
use std::time::{Duration, Instant};

pub type PgPool = Pool<AsyncPgConnection>;
pub type PooledConnection = Object<AsyncPgConnection>;

/// How the pool reaches PostgreSQL and how long anything may wait.
#[derive(Debug, Clone)]
pub struct PoolSettings {
    pub url: String,
    pub max_size: usize,
    /// How long a request waits for a free connection before answering "unavailable".
    pub wait_timeout: Duration,
    /// How long opening a new connection may take.
    pub connect_timeout: Duration,
    /// Set on every connection, so that no query can hold a connection forever.
    pub statement_timeout: Duration,
    /// `synchronous_commit = off` on every connection: only for pools whose writes may be lost in
    /// a database crash without harm (the webhook outbox's leases and attempts).
    pub relaxed_commit: bool,
    /// The connections go through a transaction pooler (PgBouncer): a `SET` there would stay on
    /// whichever server connection ran it and reach other clients' transactions, so none is sent
    /// (`statement_timeout` is then the database role's: README, "PgBouncer").
    pub through_pooler: bool,
}

impl PoolSettings {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_size: 16,
            wait_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(15),
            relaxed_commit: false,
            through_pooler: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("configuração do pool de conexões inválida: {0}")]
pub struct PoolBuildError(String);

/// Builds the pool. Connections are opened lazily, so this succeeds while the database is down
/// and the service recovers by itself when it comes back.
pub fn build_pool(settings: &PoolSettings) -> Result<PgPool, PoolBuildError> {
    let statement_timeout_ms = settings.statement_timeout.as_millis();
    let synchronous_commit = if settings.relaxed_commit { "off" } else { "on" };
    let through_pooler = settings.through_pooler;
    let mut config = ManagerConfig::default();
    // `Fast` skips the ping on every checkout; broken connections are still discarded.
    config.recycling_method = RecyclingMethod::Fast;
    config.custom_setup = Box::new(move |url| {
        let url = url.to_owned();
        async move {
            use diesel_async::{AsyncConnection, SimpleAsyncConnection};
            let mut conn = AsyncPgConnection::establish(&url).await?;
            if through_pooler {
                return Ok(conn);
            }
            conn.batch_execute(&format!(
                "SET statement_timeout = {statement_timeout_ms}; SET synchronous_commit = {synchronous_commit}; \
                 SET application_name = 'sales-api'"
            ))
            .await
            .map_err(|e| diesel::ConnectionError::BadConnection(e.to_string()))?;
            Ok(conn)
        }
        .boxed()
    });
    let manager = AsyncDieselConnectionManager::<AsyncPgConnection>::new_with_config(&settings.url, config);
    Pool::builder(manager)
        .max_size(settings.max_size)
        .wait_timeout(Some(settings.wait_timeout))
        .create_timeout(Some(settings.connect_timeout))
        .recycle_timeout(Some(settings.connect_timeout))
        .runtime(deadpool::Runtime::Tokio1)
        .build()
        .map_err(|e| PoolBuildError(e.to_string()))
}

/// A connection from the pool, or "unavailable". How long it took, and each time-out, are
/// recorded (`db_pool_acquire_duration_seconds`, `db_pool_timeouts_total`).
pub async fn connection(pool: &PgPool) -> Result<PooledConnection, StoreError> {
    let started = Instant::now();
    let got = pool.get().await;
    metrics::histogram!(metric::DB_POOL_ACQUIRE_DURATION).record(started.elapsed().as_secs_f64());
    got.map_err(pool_error)
}

/// A pool's connections as the metrics show them: its ceiling, those in use and idle, and the
/// callers waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolGauges {
    pub max: usize,
    pub in_use: usize,
    pub idle: usize,
    pub waiting: usize,
}

pub fn pool_gauges(pool: &PgPool) -> PoolGauges {
    let status = pool.status();
    PoolGauges {
        max: status.max_size,
        in_use: status.size.saturating_sub(status.available),
        idle: status.available,
        waiting: status.waiting,
    }
}

pub(crate) fn pool_error(error: PoolError) -> StoreError {
    let kind = match &error {
        PoolError::Timeout(TimeoutType::Wait) => "wait",
        PoolError::Timeout(TimeoutType::Create) => "create",
        PoolError::Timeout(TimeoutType::Recycle) => "recycle",
        PoolError::Closed | PoolError::NoRuntimeSpecified => "closed",
        PoolError::Backend(_) | PoolError::PostCreateHook(_) => "refused",
    };
    metrics::counter!(metric::DB_POOL_TIMEOUTS, "kind" => kind).increment(1);
    match error {
        PoolError::Closed => StoreError::Unavailable("pool fechado".into()),
        PoolError::Timeout(kind) => StoreError::Unavailable(format!("tempo esgotado no pool ({kind:?})")),
        PoolError::Backend(e) => StoreError::Unavailable(format!("conexão recusada: {e}")),
        PoolError::PostCreateHook(e) => StoreError::Unavailable(format!("conexão recusada: {e}")),
        PoolError::NoRuntimeSpecified => StoreError::Unexpected("pool sem runtime".into()),
    }
}

/// PostgreSQL's text cannot hold U+0000 (the server refuses such a parameter), so a key holding it
/// names no row: a lookup by it answers "absent" without asking.
pub(crate) fn names_no_row(key: &str) -> bool {
    key.contains('\0')
}

/// diesel's failures as the domain sees them: a lost connection is "unavailable", the rest unexpected.
pub(crate) fn query_error(error: DieselError) -> StoreError {
    match &error {
        // A serialization failure (and a move refused while an operation on the proposal is
        // pending, told the same way) is worth a retry: nothing was written.
        DieselError::DatabaseError(
            DatabaseErrorKind::ClosedConnection
            | DatabaseErrorKind::UnableToSendCommand
            | DatabaseErrorKind::SerializationFailure,
            _,
        ) => StoreError::Unavailable(error.to_string()),
        DieselError::DatabaseError(_, info) if is_unavailable_sqlstate(info.message()) => {
            StoreError::Unavailable(error.to_string())
        }
        _ => StoreError::Unexpected(error.to_string()),
    }
}

/// The refusal of migration 46's trigger: a new registration or proposal of a person whose data
/// is blocked under a legal hold.
pub(crate) fn is_blocked_person(error: &DieselError) -> bool {
    matches!(error, DieselError::DatabaseError(DatabaseErrorKind::CheckViolation, info)
        if info.constraint_name() == Some("personal_data_blocked"))
}

fn is_unavailable_sqlstate(message: &str) -> bool {
    // Admin shutdown and termination reach us as plain messages through tokio-postgres.
    message.contains("terminating connection") || message.contains("the database system is shutting down")
}

/// Whether the database answers a trivial query now.
pub async fn ping(pool: &PgPool) -> Result<(), StoreError> {
    statement! {
        PING = "SELECT 1";
    }
    let mut conn = connection(pool).await?;
    PING.query().execute(&mut conn).await.map_err(query_error)?;
    Ok(())
}

/// The domain's readiness port: the database answers `SELECT 1`.
#[derive(Clone)]
pub struct PgReadiness(pub PgPool);

#[async_trait::async_trait]
impl domain::health::Readiness for PgReadiness {
    async fn check(&self) -> Result<(), StoreError> {
        ping(&self.0).await
    }
}
