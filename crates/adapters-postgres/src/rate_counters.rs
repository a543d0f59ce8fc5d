//! The rate limits' shared counters: the domain's `RateCounter`, in PostgreSQL with a count kept
//! in each instance's memory.
//!
//! A request costs no round trip: it is counted in memory and added to the window's row
//! (`rate_limit_counters`) by a flush every `sync_interval`, which reads back the total of every
//! instance. The first request of a caller in a window that an instance has not seen reads the
//! row, so that an instance joining late starts from what the others counted. Error bound: a
//! caller can exceed the limit by what it sends to the other instances during one interval (at
//! most `instances - 1` intervals' worth of its requests), never more; an instance that loses
//! the database keeps counting locally and adds its counts when it returns.

use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::statement::statement;
use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::sql_types::{Array, BigInt, Text};
use diesel_async::RunQueryDsl;
use domain::rate_limit::{RateCounter, WINDOW_SECS};
use domain::store::StoreError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// One caller's window as this instance knows it.
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    /// The total of every instance at the last flush (or read).
    shared: u64,
    /// Counted here and being added by a flush now.
    sending: u64,
    /// Counted here since.
    unsent: u64,
}

impl Count {
    fn total(&self) -> u64 {
        self.shared + self.sending + self.unsent
    }
}

/// A caller's window: its subject and the window's first second.
type Key = (String, i64);

type Counts = HashMap<Key, Count>;

#[derive(Clone)]
pub struct PgRateCounter {
    pool: PgPool,
    counts: Arc<Mutex<Counts>>,
    /// The most callers' windows kept in memory (`RATE_LIMIT_MAX_KEYS`): past it, the oldest
    /// windows go first, then the current window's smallest counts, so that a flood of new
    /// addresses costs bounded memory.
    max_keys: usize,
}

/// The default of `RATE_LIMIT_MAX_KEYS`.
pub const DEFAULT_MAX_KEYS: usize = 100_000;

#[derive(QueryableByName)]
struct CounterRow {
    #[diesel(sql_type = Text)]
    subject: String,
    #[diesel(sql_type = BigInt)]
    window_start: i64,
    #[diesel(sql_type = BigInt)]
    hits: i64,
}

statement! {
    /// Adds each instance's counts in one statement, in key order so that two instances adding the
    /// same keys take their row locks in the same order.
    ADD => CounterRow = "
    INSERT INTO rate_limit_counters (subject, window_start, hits)
    SELECT subject, window_start, hits FROM unnest($1::text[], $2::bigint[], $3::bigint[])
        AS added (subject, window_start, hits)
    ORDER BY subject, window_start
    ON CONFLICT (subject, window_start)
    DO UPDATE SET hits = rate_limit_counters.hits + EXCLUDED.hits
    RETURNING subject, window_start, hits";
}

statement! {
    /// This window's totals of callers this instance knows.
    READ => CounterRow = "
    SELECT subject, window_start, hits FROM rate_limit_counters
    WHERE subject = ANY ($1::text[]) AND window_start = $2";
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl PgRateCounter {
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            counts: Arc::new(Mutex::new(HashMap::new())),
            max_keys: DEFAULT_MAX_KEYS,
        }
    }

    /// The same counter keeping at most `max_keys` callers' windows in memory.
    pub fn with_max_keys(self, max_keys: usize) -> Self {
        Self {
            max_keys: max_keys.max(1),
            ..self
        }
    }

    /// How many callers' windows are in memory now (and the map's capacity).
    pub fn kept(&self) -> (usize, usize) {
        let counts = self.counts();
        (counts.len(), counts.capacity())
    }

    /// Makes room for one more key: drops a tenth of the map at once (so that a flood pays the
    /// sort once per many keys), the oldest windows first, then the smallest counts, and gives
    /// the memory back. A dropped caller's unsent count is lost: under a flood, precision yields
    /// to memory.
    fn evict(counts: &mut Counts, max_keys: usize) {
        let keep = max_keys - max_keys.div_ceil(10).max(1);
        let mut ranked: Vec<(Key, i64, u64)> = counts
            .iter()
            .map(|(key, count)| (key.clone(), key.1, count.total()))
            .collect();
        // Newest window first, then the largest counts: the ones kept.
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
        for (key, _, _) in ranked.into_iter().skip(keep) {
            counts.remove(&key);
        }
        counts.shrink_to_fit();
        tracing::warn!(
            kept = counts.len(),
            max_keys,
            "limites de requisição: contadores demais na memória; os mais antigos descartados"
        );
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        // A panic while counting leaves plain numbers behind: still usable.
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one more in memory if the window is known here: the total so far.
    fn count_known(&self, key: &str, window: i64) -> Option<u64> {
        let mut counts = self.counts();
        let count = counts.get_mut(&(key.to_owned(), window))?;
        count.unsent += 1;
        Some(count.total())
    }

    /// Adds what this instance counted since the last flush, learns every instance's totals,
    /// and forgets windows that are over (in memory, and in the table two windows later).
    pub async fn flush(&self, now: i64) -> Result<(), StoreError> {
        statement! {
            DELETE_RATE_LIMIT_COUNTERS = "DELETE FROM rate_limit_counters WHERE window_start < $1";
        }
        let current = now - now.rem_euclid(WINDOW_SECS);
        // What to add (counted here since the last flush), and what only to learn (this window's
        // callers that sent nothing here since: the others may have counted them).
        let (taken, idle): (Vec<(Key, u64)>, Vec<Key>) = {
            let mut counts = self.counts();
            counts.retain(|(_, window), _| *window >= current - WINDOW_SECS);
            // A flood gone, its memory goes too.
            if counts.capacity() > 1024 && counts.capacity() > counts.len() * 4 {
                counts.shrink_to_fit();
            }
            let mut taken = Vec::new();
            let mut idle = Vec::new();
            for (key, count) in counts.iter_mut() {
                if count.unsent > 0 {
                    count.sending = std::mem::take(&mut count.unsent);
                    taken.push((key.clone(), count.sending));
                } else if key.1 == current {
                    idle.push(key.clone());
                }
            }
            (taken, idle)
        };
        if taken.is_empty() && idle.is_empty() {
            return Ok(());
        }
        let mut conn = match connection(&self.pool).await {
            Ok(conn) => conn,
            Err(error) => {
                self.keep_unsent(taken);
                return Err(error);
            }
        };
        if !taken.is_empty() {
            let subjects: Vec<&str> = taken.iter().map(|((subject, _), _)| subject.as_str()).collect();
            let windows: Vec<i64> = taken.iter().map(|((_, window), _)| *window).collect();
            let hits: Vec<i64> = taken
                .iter()
                .map(|(_, n)| i64::try_from(*n).unwrap_or(i64::MAX))
                .collect();
            let added: Result<Vec<CounterRow>, _> = prepared(ADD, |q| {
                q.bind::<Array<Text>, _>(&subjects)
                    .bind::<Array<BigInt>, _>(&windows)
                    .bind::<Array<BigInt>, _>(&hits)
            })
            .load(&mut conn)
            .await;
            match added {
                Ok(rows) => self.learn(rows, true),
                Err(error) => {
                    self.keep_unsent(taken);
                    return Err(query_error(error));
                }
            }
        }
        if !idle.is_empty() {
            let subjects: Vec<&str> = idle.iter().map(|(subject, _)| subject.as_str()).collect();
            let rows: Vec<CounterRow> =
                prepared(READ, |q| q.bind::<Array<Text>, _>(&subjects).bind::<BigInt, _>(current))
                    .load(&mut conn)
                    .await
                    .map_err(query_error)?;
            self.learn(rows, false);
        }
        DELETE_RATE_LIMIT_COUNTERS
            .query()
            .bind::<BigInt, _>(current - 2 * WINDOW_SECS)
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    /// Every instance's totals, as the table holds them (`sent`: including what this flush
    /// added).
    fn learn(&self, rows: Vec<CounterRow>, sent: bool) {
        let mut counts = self.counts();
        for row in rows {
            if let Some(count) = counts.get_mut(&(row.subject, row.window_start)) {
                if sent {
                    count.sending = 0;
                }
                count.shared = count.shared.max(to_u64(row.hits));
            }
        }
    }

    /// Counts a failed flush was adding, to be sent with the next one.
    fn keep_unsent(&self, taken: Vec<(Key, u64)>) {
        let mut counts = self.counts();
        for (key, _) in taken {
            let count = counts.entry(key).or_default();
            count.unsent += std::mem::take(&mut count.sending);
        }
    }

    /// Flushes every `interval` until the process ends (each instance runs one).
    pub fn spawn_flusher(&self, interval: Duration) -> tokio::task::JoinHandle<()> {
        let counter = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                if let Err(error) = counter.flush(chrono::Utc::now().timestamp()).await {
                    tracing::warn!(%error, "limites de requisição: contagem não enviada, será reenviada");
                }
            }
        })
    }
}

#[derive(QueryableByName)]
struct HitsRow {
    #[diesel(sql_type = BigInt)]
    hits: i64,
}

#[async_trait]
impl RateCounter for PgRateCounter {
    async fn hit(&self, key: &str, window: i64) -> Result<u64, StoreError> {
        statement! {
            SELECT_RATE_LIMIT_COUNTERS => HitsRow = "SELECT hits FROM rate_limit_counters WHERE subject = $1 AND window_start = $2";
        }
        if let Some(total) = self.count_known(key, window) {
            return Ok(total);
        }
        // First sight of this caller's window here: start from what the others counted.
        let mut conn = connection(&self.pool).await?;
        let shared: Vec<HitsRow> = prepared(SELECT_RATE_LIMIT_COUNTERS, |q| {
            q.bind::<Text, _>(key).bind::<BigInt, _>(window)
        })
        .load(&mut conn)
        .await
        .map_err(query_error)?;
        drop(conn);
        let mut counts = self.counts();
        if counts.len() >= self.max_keys && !counts.contains_key(&(key.to_owned(), window)) {
            Self::evict(&mut counts, self.max_keys);
        }
        let count = counts.entry((key.to_owned(), window)).or_default();
        count.shared = count.shared.max(shared.iter().map(|r| to_u64(r.hits)).sum());
        count.unsent += 1;
        Ok(count.total())
    }
}
