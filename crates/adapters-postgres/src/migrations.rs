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

/// Applies every pending migration and answers the names applied. Runs on a blocking thread:
/// diesel's migration harness is synchronous.
pub async fn run_pending(url: &str) -> Result<Vec<String>, MigrationError> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        use diesel::Connection;
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map_err(|e| MigrationError::Apply(e.to_string()))?;
        Ok(applied.iter().map(ToString::to_string).collect())
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
