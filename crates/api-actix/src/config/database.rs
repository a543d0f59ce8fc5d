//! PostgreSQL: where it is (and, behind a transaction pooler such as PgBouncer, where its sessions
//! are), the pool's size and time-outs, the catalog reads kept in memory, and the replicas reads
//! may go to.

use super::{ConfigError, bad, masked, split_list};
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(serialize_with = "masked::url")]
    database_url: String,
    #[serde(serialize_with = "masked::optional_url")]
    database_direct_url: Option<String>,
    #[serde(default = "pool_max_size")]
    db_pool_max_size: usize,
    #[serde(default = "five_seconds_ms")]
    db_pool_wait_timeout_ms: u64,
    #[serde(default = "five_seconds_ms")]
    db_connect_timeout_ms: u64,
    #[serde(default = "statement_timeout_ms")]
    db_statement_timeout_ms: u64,
    #[serde(default = "catalog_cache_entries")]
    catalog_cache_entries: usize,
    /// Hot standbys, comma-separated; unset: every read goes to the primary.
    #[serde(serialize_with = "masked::url_list")]
    database_read_urls: Option<String>,
    #[serde(default = "read_max_lag_ms")]
    database_read_max_lag_ms: u64,
}

fn pool_max_size() -> usize {
    16
}
fn five_seconds_ms() -> u64 {
    5_000
}
fn statement_timeout_ms() -> u64 {
    15_000
}
fn catalog_cache_entries() -> usize {
    1_000
}
fn read_max_lag_ms() -> u64 {
    1_000
}

#[derive(Debug, Clone, Copy)]
pub struct PoolTimeouts {
    pub max_size: usize,
    pub wait: Duration,
    pub connect: Duration,
    pub statement: Duration,
}

/// The database: where the pools connect, how they wait, and the replicas reads may use.
#[derive(Debug, Clone)]
pub struct DatabaseSettings {
    pub url: String,
    pub direct_url: Option<String>,
    pub pool: PoolTimeouts,
    pub catalog_cache_entries: usize,
    pub read_replicas: ReadReplicas,
}

/// Where reads that may be a little behind go (README, "Réplicas de leitura").
#[derive(Debug, Clone, Default)]
pub struct ReadReplicas {
    /// `DATABASE_READ_URLS`: each a hot standby of `DATABASE_URL`'s primary; empty: none.
    pub urls: Vec<String>,
    /// `DATABASE_READ_MAX_LAG_MS`: a replica further behind is skipped until it catches up.
    pub max_lag: Duration,
}

impl Raw {
    pub(super) fn check(&self) -> Result<DatabaseSettings, ConfigError> {
        let postgres = |url: &str| url.starts_with("postgres://") || url.starts_with("postgresql://");
        if !postgres(&self.database_url) {
            return Err(bad("DATABASE_URL", "deve começar com postgres:// ou postgresql://"));
        }
        if let Some(direct) = &self.database_direct_url
            && !postgres(direct)
        {
            return Err(bad(
                "DATABASE_DIRECT_URL",
                "deve começar com postgres:// ou postgresql://",
            ));
        }
        let read_urls = split_list(self.database_read_urls.as_deref().unwrap_or_default());
        if read_urls.iter().any(|url| !postgres(url)) {
            return Err(bad(
                "DATABASE_READ_URLS",
                "cada endereço deve começar com postgres:// ou postgresql://",
            ));
        }
        if self.database_read_max_lag_ms == 0 {
            return Err(bad("DATABASE_READ_MAX_LAG_MS", "deve ser ao menos 1"));
        }
        if self.db_pool_max_size == 0 {
            return Err(bad("DB_POOL_MAX_SIZE", "deve ser ao menos 1"));
        }
        Ok(DatabaseSettings {
            url: self.database_url.clone(),
            direct_url: self.database_direct_url.clone(),
            pool: PoolTimeouts {
                max_size: self.db_pool_max_size,
                wait: Duration::from_millis(self.db_pool_wait_timeout_ms),
                connect: Duration::from_millis(self.db_connect_timeout_ms),
                statement: Duration::from_millis(self.db_statement_timeout_ms),
            },
            catalog_cache_entries: self.catalog_cache_entries,
            read_replicas: ReadReplicas {
                urls: read_urls,
                max_lag: Duration::from_millis(self.database_read_max_lag_ms),
            },
        })
    }
}
