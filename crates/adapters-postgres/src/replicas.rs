//! Reads from PostgreSQL's hot standbys (streaming replicas), each as fresh as its caller needs.
//!
//! Route 7, the list, the console's reads, the export and the catalog's reloads read through
//! [`ReadPools`]; everything else, writes and whatever a write transaction reads, and the session
//! check, stays on the primary.
//!
//! Read-your-writes without any state in process memory: after a write the HTTP edge answers the
//! primary's WAL position ([`ReadPools::write_position`], the `Sales-Read-After` header); a client
//! that sends it back has its reads served by a replica only once that replica has replayed up to
//! it, else by the primary. The position travels with the request as a task-local
//! ([`reading_after`]), as the tracing span does, so that no use case has to carry it.
//!
//! Each instance watches its replicas ([`ReadPools::start`]): every poll it reads how far each has
//! replayed and how far behind it is. A replica that does not answer, is not in recovery, or is
//! more than `max_lag` behind is skipped until a later poll finds it well; a read that fails on a
//! replica is read again on the primary, so a replica going away costs no request an error.

use crate::pool::{PgPool, PooledConnection, connection, query_error};
use crate::prepared::prepared;
use crate::statement::statement;
use diesel::QueryableByName;
use diesel::sql_types::{Bool, Int8, Nullable, Text};
use diesel_async::RunQueryDsl;
use domain::store::StoreError;
use observability::metric;
use std::fmt;
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// A position in PostgreSQL's write-ahead log (`pg_lsn`), written as PostgreSQL writes it:
/// two hexadecimal halves, `16/B374D848`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("posição do log inválida: esperado o formato 16/B374D848")]
pub struct LsnParseError;

impl FromStr for Lsn {
    type Err = LsnParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (high, low) = text.split_once('/').ok_or(LsnParseError)?;
        let half = |part: &str| {
            if part.is_empty() || part.len() > 8 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(LsnParseError);
            }
            u32::from_str_radix(part, 16).map_err(|_| LsnParseError)
        };
        Ok(Lsn((u64::from(half(high)?) << 32) | u64::from(half(low)?)))
    }
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

/// How fresh a read must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAfter {
    /// At least this position: the client's last write.
    Position(Lsn),
    /// Everything committed before the read began (the catalog's reload after a change notice):
    /// the primary's position is asked first.
    Now,
}

tokio::task_local! {
    static READ_AFTER: ReadAfter;
}

/// Runs `work` with its reads at least as fresh as `after` (no requirement when `None`).
pub async fn reading_after<F: Future>(after: Option<ReadAfter>, work: F) -> F::Output {
    match after {
        Some(after) => READ_AFTER.scope(after, work).await,
        None => work.await,
    }
}

fn required_freshness() -> Option<ReadAfter> {
    READ_AFTER.try_with(|after| *after).ok()
}

/// How replicas are watched and when one is skipped.
#[derive(Debug, Clone, Copy)]
pub struct ReplicaPolicy {
    /// A replica further behind than this is skipped (`DATABASE_READ_MAX_LAG_MS`).
    pub max_lag: Duration,
    /// How often each instance asks each replica how far it has replayed.
    pub poll_interval: Duration,
}

impl Default for ReplicaPolicy {
    fn default() -> Self {
        Self {
            max_lag: Duration::from_millis(1_000),
            poll_interval: Duration::from_millis(100),
        }
    }
}

/// One replica: its pool and what the last poll found.
struct Replica {
    /// `replica-1`, `replica-2`… in the order of `DATABASE_READ_URLS`: the metrics' label (never
    /// the address, which may carry a password).
    label: String,
    pool: PgPool,
    /// What the last poll found ([`Health`]).
    health: AtomicU8,
    /// Replayed up to here at the last poll.
    replayed: AtomicU64,
    /// Its reads in the metrics (the handle taken once: a read does not build a key).
    reads: metrics::Counter,
}

/// What the last poll found of a replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Health {
    /// Answered, in recovery, within `max_lag`: reads may go to it.
    Usable = 0,
    /// Not polled yet, or did not answer, or a read on it just failed.
    Down = 1,
    /// Further behind than `max_lag`.
    Lagging = 2,
    /// Answered, but is not in recovery: not a replica (a configuration mistake, or promoted).
    NotReplica = 3,
}

impl Health {
    fn from_u8(value: u8) -> Self {
        match value {
            0 => Health::Usable,
            2 => Health::Lagging,
            3 => Health::NotReplica,
            _ => Health::Down,
        }
    }

    /// The skip's reason in the metrics.
    fn reason(self) -> &'static str {
        match self {
            Health::Usable => "usable",
            Health::Down => "down",
            Health::Lagging => "lagging",
            Health::NotReplica => "not_replica",
        }
    }
}

impl Replica {
    fn health(&self) -> Health {
        Health::from_u8(AtomicU8::load(&self.health, Ordering::Relaxed))
    }

    fn set_health(&self, health: Health) {
        self.health.store(health as u8, Ordering::Relaxed);
    }

    fn skip(&self, reason: &'static str) {
        metrics::counter!(metric::DB_REPLICA_SKIPS, "replica" => self.label.clone(), "reason" => reason).increment(1);
    }
}

/// `replica-1`, `replica-2`…: the label of the replica at `index` of `DATABASE_READ_URLS`.
pub fn replica_label(index: usize) -> String {
    format!("replica-{}", index + 1)
}

/// The primary's pool and the replicas reads may go to.
#[derive(Clone)]
pub struct ReadPools {
    primary: PgPool,
    replicas: Arc<[Arc<Replica>]>,
    /// Where the next read starts looking: reads are spread over the usable replicas in turn.
    next: Arc<AtomicUsize>,
    /// The reads the primary served although replicas exist.
    primary_reads: metrics::Counter,
}

/// What a poll reads off a replica.
#[derive(QueryableByName)]
struct ReplayState {
    #[diesel(sql_type = Bool)]
    in_recovery: bool,
    #[diesel(sql_type = Nullable<Text>)]
    replayed: Option<String>,
    /// Milliseconds behind: zero when it has replayed all it received, else the age of the last
    /// transaction it replayed (so a replica told to wait, or cut off, shows it).
    #[diesel(sql_type = Nullable<Int8>)]
    lag_ms: Option<i64>,
}

// A standby that has replayed all it received is not behind. After a restart it counts from the
// start of the segment it streams from, below what it replayed from its own files, and has no
// replayed commit's time until the primary writes: an idle primary would keep it lagging forever.
statement! {
    REPLAY_STATE => ReplayState = "SELECT pg_is_in_recovery() AS in_recovery, \
     pg_last_wal_replay_lsn()::text AS replayed, \
     CASE WHEN pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0 \
          ELSE (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::int8 END AS lag_ms";
}

#[derive(QueryableByName)]
struct Position {
    #[diesel(sql_type = Text)]
    position: String,
}

impl ReadPools {
    /// Everything reads the primary (no `DATABASE_READ_URLS`).
    pub fn primary_only(primary: PgPool) -> Self {
        Self {
            primary,
            replicas: Arc::from(Vec::new()),
            next: Arc::new(AtomicUsize::new(0)),
            primary_reads: metrics::Counter::noop(),
        }
    }

    /// Reads spread over `replicas`, each watched from now on (on the current tokio runtime).
    /// None is used before its first poll finds it well.
    pub fn start(primary: PgPool, replicas: Vec<PgPool>, policy: ReplicaPolicy) -> Self {
        Self::start_with(primary, replicas, Some(policy))
    }

    fn start_with(primary: PgPool, replicas: Vec<PgPool>, watched: Option<ReplicaPolicy>) -> Self {
        let replicas: Vec<Arc<Replica>> = replicas
            .into_iter()
            .enumerate()
            .map(|(index, pool)| {
                Arc::new(Replica {
                    label: replica_label(index),
                    pool,
                    health: AtomicU8::new(Health::Down as u8),
                    replayed: AtomicU64::new(0),
                    reads: metrics::counter!(metric::DB_READS, "target" => replica_label(index)),
                })
            })
            .collect();
        if let Some(policy) = watched {
            for replica in &replicas {
                tokio::spawn(watch(replica.clone(), policy));
            }
        }
        Self {
            primary,
            replicas: Arc::from(replicas),
            next: Arc::new(AtomicUsize::new(0)),
            primary_reads: metrics::counter!(metric::DB_READS, "target" => "primary"),
        }
    }

    /// Replicas not watched: each stays as [`ReadPools::assume_replayed`] sets it (tests of the
    /// choice and the fallback, without a standby).
    #[cfg(feature = "testing")]
    pub fn unwatched(primary: PgPool, replicas: Vec<PgPool>) -> Self {
        Self::start_with(primary, replicas, None)
    }

    /// Marks every replica usable, replayed up to `position`.
    #[cfg(feature = "testing")]
    pub fn assume_replayed(&self, position: Lsn) {
        for replica in self.replicas.iter() {
            replica.set_health(Health::Usable);
            replica.replayed.store(position.0, Ordering::Relaxed);
        }
    }

    /// How many replicas the last polls (or failed reads) left usable.
    pub fn usable_replicas(&self) -> usize {
        self.replicas.iter().filter(|r| r.health() == Health::Usable).count()
    }

    pub fn has_replicas(&self) -> bool {
        !self.replicas.is_empty()
    }

    /// The replicas' pools with their labels (the metrics sample their connections).
    pub fn replica_pools(&self) -> Vec<(String, PgPool)> {
        self.replicas
            .iter()
            .map(|r| (r.label.clone(), r.pool.clone()))
            .collect()
    }

    /// The primary's position now: a read made with it as its requirement sees every write
    /// committed before this call. `None` without replicas (nothing to ask for).
    pub async fn write_position(&self) -> Result<Option<Lsn>, StoreError> {
        if !self.has_replicas() {
            return Ok(None);
        }
        self.primary_position().await.map(Some)
    }

    async fn primary_position(&self) -> Result<Lsn, StoreError> {
        statement! {
            WAL_POSITION => Position = "SELECT pg_current_wal_insert_lsn()::text AS position";
        }
        let mut conn = connection(&self.primary).await?;
        // The insert position: at or past every commit record written so far, whether or not it
        // has been flushed (the webhooks' pool commits without waiting for the flush).
        let found: Position = prepared(WAL_POSITION, |q| q)
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        found
            .position
            .parse()
            .map_err(|e: LsnParseError| StoreError::Unexpected(e.to_string()))
    }

    /// Runs `read` on a replica fresh enough for the caller, else on the primary; if it fails on
    /// the replica, runs it again on the primary.
    pub async fn read<T, F, Fut>(&self, read: F) -> Result<T, StoreError>
    where
        F: Fn(PooledConnection) -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        match self.on_replica(&read).await {
            Some((found, _)) => Ok(found),
            None => self.on_primary(&read).await,
        }
    }

    /// A read by key, as [`Self::read`], except that a replica's "not found" is read again on the
    /// primary: a client that does not send `Sales-Read-After` back still finds what it created a
    /// moment ago (a replica behind answers "no such row", never a wrong one), so route 7, the
    /// document and the history never answer 404 for something that exists.
    pub async fn read_existing<T, F, Fut>(&self, read: F) -> Result<Option<T>, StoreError>
    where
        F: Fn(PooledConnection) -> Fut,
        Fut: Future<Output = Result<Option<T>, StoreError>>,
    {
        match self.on_replica(&read).await {
            Some((Some(found), _)) => Ok(Some(found)),
            Some((None, replica)) => {
                replica.skip("not_found");
                self.on_primary(&read).await
            }
            None => self.on_primary(&read).await,
        }
    }

    /// The read on a chosen replica, with the replica; `None` when none was chosen or the read
    /// failed there.
    async fn on_replica<T, F, Fut>(&self, read: &F) -> Option<(T, Arc<Replica>)>
    where
        F: Fn(PooledConnection) -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        let replica = self.choose().await?;
        match connection(&replica.pool).await {
            Ok(conn) => match read(conn).await {
                Ok(found) => {
                    replica.reads.increment(1);
                    Some((found, replica))
                }
                Err(error) => {
                    tracing::warn!(replica = %replica.label, %error, "leitura falhou na réplica; lida no primário");
                    if matches!(error, StoreError::Unavailable(_)) {
                        replica.set_health(Health::Down);
                    }
                    replica.skip("failed");
                    None
                }
            },
            Err(error) => {
                tracing::warn!(replica = %replica.label, %error, "réplica indisponível; lida no primário");
                replica.set_health(Health::Down);
                replica.skip("failed");
                None
            }
        }
    }

    async fn on_primary<T, F, Fut>(&self, read: &F) -> Result<T, StoreError>
    where
        F: Fn(PooledConnection) -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        self.primary_reads.increment(1);
        read(connection(&self.primary).await?).await
    }

    /// A usable replica that has replayed what the caller needs, taken in turn; `None` means the
    /// primary.
    async fn choose(&self) -> Option<Arc<Replica>> {
        if self.replicas.is_empty() {
            return None;
        }
        let needed = match required_freshness() {
            None => None,
            Some(ReadAfter::Position(position)) => Some(position),
            // Without the primary's position no replica can be shown fresh enough.
            Some(ReadAfter::Now) => Some(self.primary_position().await.ok()?),
        };
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let count = self.replicas.len();
        for offset in 0..count {
            let replica = &self.replicas[(start + offset) % count];
            let health = replica.health();
            if health != Health::Usable {
                replica.skip(health.reason());
                continue;
            }
            if needed.is_some_and(|needed| AtomicU64::load(&replica.replayed, Ordering::Relaxed) < needed.0) {
                replica.skip("behind_write");
                continue;
            }
            return Some(replica.clone());
        }
        None
    }
}

/// Polls one replica for as long as the service runs.
async fn watch(replica: Arc<Replica>, policy: ReplicaPolicy) {
    let mut ticks = tokio::time::interval(policy.poll_interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut was = Health::Down;
    loop {
        ticks.tick().await;
        // A replica that hangs counts as down for as long as it hangs.
        let polled = tokio::time::timeout(policy.poll_interval.max(Duration::from_millis(500)), poll(&replica)).await;
        let health = match polled {
            Ok(Ok(state)) => judge(&replica, state, policy.max_lag),
            Ok(Err(error)) => {
                if was == Health::Usable {
                    tracing::warn!(replica = %replica.label, %error, "réplica não responde; leituras vão ao primário");
                }
                Health::Down
            }
            Err(_) => {
                if was == Health::Usable {
                    tracing::warn!(replica = %replica.label, "réplica não respondeu a tempo; leituras vão ao primário");
                }
                Health::Down
            }
        };
        match health {
            Health::Usable if was != Health::Usable => {
                tracing::info!(replica = %replica.label, "réplica em uso para leituras")
            }
            Health::Lagging if was == Health::Usable => {
                tracing::warn!(replica = %replica.label, "réplica atrasada além do limite; leituras vão ao primário")
            }
            Health::NotReplica if was != Health::NotReplica => {
                tracing::error!(replica = %replica.label, "o servidor não é uma réplica em recuperação; não é usado")
            }
            _ => {}
        }
        replica.set_health(health);
        let usable = if health == Health::Usable { 1.0 } else { 0.0 };
        metrics::gauge!(metric::DB_REPLICA_USABLE, "replica" => replica.label.clone()).set(usable);
        was = health;
    }
}

async fn poll(replica: &Replica) -> Result<ReplayState, StoreError> {
    let mut conn = connection(&replica.pool).await?;
    prepared(REPLAY_STATE, |q| q)
        .get_result(&mut conn)
        .await
        .map_err(query_error)
}

/// Records what a poll found and judges the replica by it.
fn judge(replica: &Replica, state: ReplayState, max_lag: Duration) -> Health {
    let replayed = match (state.in_recovery, state.replayed.as_deref().map(str::parse::<Lsn>)) {
        (true, Some(Ok(position))) => position,
        _ => return Health::NotReplica,
    };
    replica.replayed.fetch_max(replayed.0, Ordering::Relaxed);
    // No replayed transaction yet (a fresh standby of an idle primary) counts as far behind.
    let lag_ms = state.lag_ms.unwrap_or(i64::MAX).max(0);
    metrics::gauge!(metric::DB_REPLICA_LAG, "replica" => replica.label.clone()).set(lag_ms as f64 / 1000.0);
    if u128::try_from(lag_ms).unwrap_or(u128::MAX) <= max_lag.as_millis() {
        Health::Usable
    } else {
        Health::Lagging
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_reads_and_writes_as_postgresql_writes_it() {
        let position: Lsn = "16/B374D848".parse().unwrap();
        assert_eq!(position.0, (0x16 << 32) | 0xB374_D848);
        assert_eq!(position.to_string(), "16/B374D848");
        assert_eq!("0/0".parse::<Lsn>().unwrap(), Lsn(0));
        assert!("0/1".parse::<Lsn>().unwrap() < "1/0".parse::<Lsn>().unwrap());
        assert!("0/A".parse::<Lsn>().unwrap() > "0/9".parse::<Lsn>().unwrap());
    }

    #[test]
    fn anything_else_is_no_position() {
        for text in [
            "",
            "16",
            "/1",
            "1/",
            "G/1",
            "1/2/3",
            "123456789/0",
            "+1/0",
            "1 /0",
            "１/0",
        ] {
            assert_eq!(text.parse::<Lsn>(), Err(LsnParseError), "{text:?}");
        }
    }

    #[tokio::test]
    async fn a_read_after_a_position_carries_it_to_every_read_it_awaits() {
        assert_eq!(required_freshness(), None);
        let seen = reading_after(Some(ReadAfter::Position(Lsn(42))), async {
            tokio::task::yield_now().await;
            required_freshness()
        })
        .await;
        assert_eq!(seen, Some(ReadAfter::Position(Lsn(42))));
        assert_eq!(reading_after(None, async { required_freshness() }).await, None);
    }
}
