//! PostgreSQL: where it is (and, behind a transaction pooler such as PgBouncer, where its sessions
//! are), the pool's size and time-outs, and the catalog reads kept in memory.

use super::{ConfigError, bad};
use serde::Deserialize;
use std::time::Duration;

#[derive(Debug, Deserialize)]
pub(super) struct Raw {
    database_url: String,
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

#[derive(Debug, Clone, Copy)]
pub struct PoolTimeouts {
    pub max_size: usize,
    pub wait: Duration,
    pub connect: Duration,
    pub statement: Duration,
}

pub(super) struct Database {
    pub url: String,
    pub direct_url: Option<String>,
    pub pool: PoolTimeouts,
    pub catalog_cache_entries: usize,
}

impl Raw {
    pub(super) fn check(self) -> Result<Database, ConfigError> {
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
        if self.db_pool_max_size == 0 {
            return Err(bad("DB_POOL_MAX_SIZE", "deve ser ao menos 1"));
        }
        Ok(Database {
            url: self.database_url,
            direct_url: self.database_direct_url,
            pool: PoolTimeouts {
                max_size: self.db_pool_max_size,
                wait: Duration::from_millis(self.db_pool_wait_timeout_ms),
                connect: Duration::from_millis(self.db_connect_timeout_ms),
                statement: Duration::from_millis(self.db_statement_timeout_ms),
            },
            catalog_cache_entries: self.catalog_cache_entries,
        })
    }
}
