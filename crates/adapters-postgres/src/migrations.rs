//! The schema changes in `migrations/`, embedded in the binary.

use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("não foi possível conectar ao banco para migrar: {0}")]
    Connect(String),
    #[error("falha ao aplicar migrações: {0}")]
    Apply(String),
}

/// The advisory lock every migrating process takes on the database (`sales-api` in hex): of any
/// number of `migrate` or starting `serve` processes, one migrates while the others wait, then find
/// nothing pending.
const MIGRATION_LOCK: i64 = 0x73616c65_732d6170;

/// Applies every pending migration and answers the names applied, under the migration lock (held by
/// this connection's session, so a crash releases it). Runs on a blocking thread: diesel's
/// migration harness is synchronous.
pub async fn run_pending(url: &str) -> Result<Vec<String>, MigrationError> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        use diesel::{Connection, RunQueryDsl};
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        let lock = |sql: &str, conn: &mut AsyncConnectionWrapper<AsyncPgConnection>| {
            diesel::sql_query(sql)
                .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK)
                .execute(conn)
                .map_err(|e| MigrationError::Apply(e.to_string()))
        };
        lock("SELECT pg_advisory_lock($1)", &mut conn)?;
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map(|applied| applied.iter().map(ToString::to_string).collect())
            .map_err(|e| MigrationError::Apply(e.to_string()));
        // Released with the session anyway; said explicitly so a pooled caller could reuse it.
        let unlocked = lock("SELECT pg_advisory_unlock($1)", &mut conn);
        let applied = applied?;
        unlocked?;
        Ok(applied)
    })
    .await
    .map_err(|e| MigrationError::Apply(e.to_string()))?
}

/// Reverts every applied migration, newest first (for the up-down-up test and operators).
pub async fn revert_all(url: &str) -> Result<(), MigrationError> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        use diesel::Connection;
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        conn.revert_all_migrations(MIGRATIONS)
            .map_err(|e| MigrationError::Apply(e.to_string()))?;
        Ok(())
    })
    .await
    .map_err(|e| MigrationError::Apply(e.to_string()))?
}

/// Reverts the newest applied migration and answers its name (operators undoing one step; the
/// data-migration tests).
pub async fn revert_last(url: &str) -> Result<String, MigrationError> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        use diesel::Connection;
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        conn.revert_last_migration(MIGRATIONS)
            .map(|version| version.to_string())
            .map_err(|e| MigrationError::Apply(e.to_string()))
    })
    .await
    .map_err(|e| MigrationError::Apply(e.to_string()))?
}

/// Creates the database named by `url` when it does not exist yet, connecting to the server's
/// `postgres` database to do so. Answers whether it was created.
pub async fn create_database_if_missing(url: &str) -> Result<bool, MigrationError> {
    use diesel::prelude::*;
    use diesel_async::{AsyncConnection, RunQueryDsl};

    #[derive(QueryableByName)]
    struct Found {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        found: bool,
    }

    let path = url.split('?').next().unwrap_or(url);
    let name = path
        .rsplit_once('/')
        .map(|(_, n)| n)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| MigrationError::Connect("DATABASE_URL sem nome de banco".into()))?;
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(MigrationError::Connect(format!("nome de banco não suportado: {name}")));
    }
    let admin = url.replacen(&format!("/{name}"), "/postgres", 1);
    let mut conn = AsyncPgConnection::establish(&admin)
        .await
        .map_err(|e| MigrationError::Connect(e.to_string()))?;
    let exists = diesel::sql_query("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS found")
        .bind::<diesel::sql_types::Text, _>(name.to_owned());
    let found = exists
        .clone()
        .get_result::<Found>(&mut conn)
        .await
        .map_err(|e| MigrationError::Connect(e.to_string()))?;
    if found.found {
        return Ok(false);
    }
    let created = diesel::sql_query(format!("CREATE DATABASE \"{name}\""))
        .execute(&mut conn)
        .await;
    match created {
        Ok(_) => Ok(true),
        // Another process created it between the check and here: it exists, which is all we want.
        Err(e) => match exists.get_result::<Found>(&mut conn).await {
            Ok(Found { found: true }) => Ok(false),
            _ => Err(MigrationError::Apply(e.to_string())),
        },
    }
}
