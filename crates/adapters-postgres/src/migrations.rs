//! The schema changes in `migrations/`, embedded in the binary.

use crate::statement::{Statement, built_at_run_time, statement};
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

#[derive(diesel::QueryableByName)]
struct Recorded {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    sha256: String,
}

#[derive(diesel::QueryableByName)]
struct Found {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    found: bool,
}

statement! {
    /// The migrations' lock (`$1`), held by one process at a time.
    MIGRATION_LOCK_TAKEN = "SELECT pg_advisory_lock($1)";
}
statement! {
    MIGRATION_LOCK_RELEASED = "SELECT pg_advisory_unlock($1)";
}
statement! {
    /// The repeatable files applied, with the digest of each as applied.
    RECORDED_REPEATABLE => Recorded = "SELECT name, sha256 FROM __repeatable_sql";
}
statement! {
    /// A repeatable file recorded as applied (`$1` its name, `$2` its digest).
    RECORD_REPEATABLE = "INSERT INTO __repeatable_sql (name, sha256) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET sha256 = EXCLUDED.sha256, applied_at = now()";
}
statement! {
    /// Whether the database `$1` exists on the server.
    DATABASE_EXISTS => Found = "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS found";
}

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

/// Applies every pending migration and answers the names applied, then, when it applied any,
/// writes again the documents of the proposals they changed: the read model is defined in Rust
/// (decision 168), so a migration that changes a part in SQL leaves its documents marked by the
/// guard (`migrations-repeatable/proposal_read_model_guard.sql`) for this pass.
pub async fn run_pending(url: &str) -> Result<Vec<String>, MigrationError> {
    let applied = apply_pending(url).await?;
    if !applied.is_empty() {
        let mut conn = <AsyncPgConnection as diesel_async::AsyncConnection>::establish(url)
            .await
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        let written = crate::read_model::write_marked(&mut conn)
            .await
            .map_err(|e| MigrationError::Apply(e.to_string()))?;
        if written > 0 {
            tracing::info!(written, "documentos de leitura reescritos após as migrações");
        }
    }
    Ok(applied)
}

/// Applies every pending migration under the migration lock (held by this connection's session,
/// so a crash releases it). Runs on a blocking thread: diesel's migration harness is synchronous.
async fn apply_pending(url: &str) -> Result<Vec<String>, MigrationError> {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || {
        use diesel::{Connection, RunQueryDsl};
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrationError::Connect(e.to_string()))?;
        let lock = |statement: Statement, conn: &mut AsyncConnectionWrapper<AsyncPgConnection>| {
            statement
                .query()
                .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK)
                .execute(conn)
                .map_err(|e| MigrationError::Apply(e.to_string()))
        };
        lock(MIGRATION_LOCK_TAKEN, &mut conn)?;
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map(|applied| applied.iter().map(ToString::to_string).collect())
            .map_err(|e| MigrationError::Apply(e.to_string()))
            .and_then(|applied: Vec<String>| {
                apply_repeatable(&mut conn, !applied.is_empty()).map_err(|e| MigrationError::Apply(e.to_string()))?;
                Ok(applied)
            });
        // Released with the session anyway; said explicitly so a pooled caller could reuse it.
        let unlocked = lock(MIGRATION_LOCK_RELEASED, &mut conn);
        let applied = applied?;
        unlocked?;
        Ok(applied)
    })
    .await
    .map_err(|e| MigrationError::Apply(e.to_string()))?
}

/// A function (with its triggers) the database keeps, defined in one file of
/// `migrations-repeatable/`: the live definition of each is that file (decision 169).
pub struct Repeatable {
    pub name: &'static str,
    pub sql: &'static str,
}

macro_rules! repeatable {
    ($($name:literal),* $(,)?) => {
        &[$(Repeatable {
            name: $name,
            sql: include_str!(concat!("../../../migrations-repeatable/", $name, ".sql")),
        }),*]
    };
}

/// Every file of `migrations-repeatable/`, in the order they are applied: the SQL functions
/// (whose bodies PostgreSQL checks when they are made) before those that call them.
pub const REPEATABLE: &[Repeatable] = repeatable![
    "search_text",
    "history_masked",
    "history_changes",
    "history_action",
    "history_reason_marker",
    "history_without_reasons",
    "history_without_free_text",
    "callback_applied_once",
    "drop_month_partitions_counted",
    "ensure_delivery_month_partition",
    "ensure_month_partition",
    "ledger_entries_never_change",
    "ledger_on_card_invoice",
    "ledger_on_charge",
    "ledger_on_refund",
    "notify_catalog_changed",
    "notify_sessions_changed",
    "proposal_copy_refreshable",
    "proposal_history_is_append_only",
    "proposal_history_on_acceptance",
    "proposal_history_on_billing",
    "proposal_history_on_create",
    "proposal_history_on_customer",
    "proposal_history_on_debit_authorization",
    "proposal_history_on_party",
    "proposal_history_on_payment",
    "proposal_history_on_request",
    "proposal_history_on_status",
    "proposal_history_on_subscription",
    "proposal_history_on_update",
    "proposal_read_model_guard",
    "refuse_blocked_person",
];

/// Applies the repeatable files after the migrations, each with its checksum recorded: all of
/// them when a migration ran (its down or up may have re-created an older body), otherwise those
/// whose file changed. Each file is `CREATE OR REPLACE`, so applying one again changes nothing.
fn apply_repeatable(conn: &mut AsyncConnectionWrapper<AsyncPgConnection>, migrated: bool) -> diesel::QueryResult<()> {
    use diesel::connection::SimpleConnection;
    use diesel::{Connection, RunQueryDsl};
    use sha2::{Digest, Sha256};

    conn.batch_execute(
        "CREATE TABLE IF NOT EXISTS __repeatable_sql (
             name TEXT PRIMARY KEY, sha256 TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
    )?;
    let recorded: Vec<Recorded> = RECORDED_REPEATABLE.query().load(conn)?;
    for file in REPEATABLE {
        let sha256 = hex::encode(Sha256::digest(file.sql.as_bytes()));
        let current = recorded.iter().any(|r| r.name == file.name && r.sha256 == sha256);
        if current && !migrated {
            continue;
        }
        conn.transaction(|conn| {
            conn.batch_execute(file.sql)?;
            RECORD_REPEATABLE
                .query()
                .bind::<diesel::sql_types::Text, _>(file.name)
                .bind::<diesel::sql_types::Text, _>(&sha256)
                .execute(conn)
                .map(|_| ())
        })?;
    }
    Ok(())
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
    use diesel_async::{AsyncConnection, RunQueryDsl};

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
    let exists = DATABASE_EXISTS
        .query()
        .bind::<diesel::sql_types::Text, _>(name.to_owned());
    let found = exists
        .clone()
        .get_result::<Found>(&mut conn)
        .await
        .map_err(|e| MigrationError::Connect(e.to_string()))?;
    if found.found {
        return Ok(false);
    }
    let created = built_at_run_time(format!("CREATE DATABASE \"{name}\""))
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
