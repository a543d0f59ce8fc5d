//! The housekeeping's deletes (`domain::retention`): each kind removed a batch at a time, by its
//! own index, until a batch comes back short, so that no statement holds many row locks or runs
//! long beside the service's traffic.

use crate::pool::{PgPool, connection, query_error};
use crate::statement::{Statement, built_at_run_time, statement};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{Array, BigInt, Integer, Text, Timestamptz};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::retention::{ExpiredRecords, Purged, RetentionPolicy};
use domain::store::StoreError;

statement! {
    /// Refresh tokens past their expiry (used ones included: until then a replay ends the session).
    REFRESH_TOKENS = "
    DELETE FROM refresh_tokens WHERE jti IN (
        SELECT jti FROM refresh_tokens WHERE expires_at < $1 LIMIT $2)";
}

statement! {
    /// Sessions whose last refresh token has expired move to the record of ended sessions (migration
    /// 000035; their tokens go with them): ended when that was recorded, else at that expiry, by the
    /// user's credentials if they moved on meanwhile.
    SESSIONS = "
    WITH moved AS (
        DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < $1 LIMIT $2)
        RETURNING *
    )
    INSERT INTO ended_sessions (id, user_id, application, credentials_epoch, created_at, expires_at, ended_at,
                                end_reason)
    SELECT m.id, m.user_id, m.application, m.credentials_epoch, m.created_at, m.expires_at,
           COALESCE(m.ended_at, m.expires_at),
           COALESCE(m.end_reason,
                    CASE WHEN u.disabled_at IS NOT NULL OR u.credentials_epoch <> m.credentials_epoch
                         THEN 'credentials' ELSE 'expiry' END)
    FROM moved m JOIN users u ON u.id = m.user_id";
}

statement! {
    /// The record of ended sessions past its retention that sits in the DEFAULT partition (its months
    /// go whole): only when the housekeeping made no month for it.
    ENDED_SESSIONS_UNPARTITIONED = "
    DELETE FROM ended_sessions_default WHERE id IN (
        SELECT id FROM ended_sessions_default WHERE ended_at < $1 LIMIT $2)";
}

statement! {
    /// Recovery tokens expired, used or revoked: none of them can work again.
    RECOVERY_TOKENS = "
    DELETE FROM password_recovery_tokens WHERE id IN (
        SELECT id FROM password_recovery_tokens
        WHERE expires_at < $1 OR used_at IS NOT NULL OR revoked_at IS NOT NULL LIMIT $2)";
}

statement! {
    /// The person's privacy links expired or spent: none of them can act again; the request a link
    /// filed and a consent's proof keep what they need of it.
    PERSON_LINKS = "
    DELETE FROM privacy_person_links WHERE id IN (
        SELECT id FROM privacy_person_links WHERE expira_em < $1 OR usado_em IS NOT NULL LIMIT $2)";
}

statement! {
    /// Refused proposals' defences past the day they are erased (decision 290).
    REFUSAL_DEFENCES = "
    DELETE FROM refusal_defences WHERE id IN (SELECT id FROM refusal_defences WHERE apagar_em <= $1 LIMIT $2)";
}

statement! {
    /// Throttle counters whose window started before the cut-off and that block nothing now.
    THROTTLE_COUNTERS = "
    DELETE FROM signin_throttle WHERE (scope, key) IN (
        SELECT scope, key FROM signin_throttle
        WHERE window_started_at < $1 AND (blocked_until IS NULL OR blocked_until < now()) LIMIT $2)";
}

statement! {
    SIGNATURE_CALLBACKS = "
    DELETE FROM signature_callbacks WHERE event_id IN (
        SELECT event_id FROM signature_callbacks WHERE received_at < $1 LIMIT $2)";
}

statement! {
    PAYMENT_EVENTS = "
    DELETE FROM payment_events WHERE event_id IN (
        SELECT event_id FROM payment_events WHERE received_at < $1 LIMIT $2)";
}

statement! {
    IDEMPOTENCY_KEYS = "
    DELETE FROM idempotency_keys WHERE (user_id, key) IN (
        SELECT user_id, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)";
}

/// The tables kept in monthly partitions (migrations 000032, 000033 and 000035) and their
/// partition keys. The webhook deliveries' months and their attempts' are made together
/// (migration 000034's `ensure_delivery_month_partition`).
pub const MONTHLY_PARTITIONED: [(&str, &str); 4] = [
    ("proposal_history", "at"),
    ("signature_callbacks", "received_at"),
    ("payment_events", "received_at"),
    ("ended_sessions", "ended_at"),
];

/// Every table kept in monthly partitions.
pub const PARTITIONED_TABLES: [&str; 6] = [
    "proposal_history",
    "signature_callbacks",
    "payment_events",
    "ended_sessions",
    "hook_deliveries",
    "hook_attempts",
];

/// How many months ahead of the current one the housekeeping keeps partitions made.
pub const PARTITION_MONTHS_AHEAD: i32 = 3;

statement! {
    /// Makes the current month's partition and the next `$3` of each table (`$1`, keyed on `$2`) when
    /// missing, and the webhook deliveries' with their attempts' (a delivery moving out of DEFAULT
    /// carries its attempts); rows a DEFAULT partition held for a month made move in. Answers how
    /// many it made.
    ENSURE_PARTITIONS => Made = "
    WITH months AS (
        SELECT now_month + make_interval(months => ahead) AS month
        FROM (SELECT $4::timestamptz AS now_month) AS now, generate_series(0, $3) AS ahead
    ), made AS (
        SELECT ensure_month_partition(t.name::regclass, t.key, months.month) AS made
        FROM unnest($1::text[], $2::text[]) AS t(name, key), months
        UNION ALL
        SELECT ensure_delivery_month_partition(months.month) FROM months
    )
    SELECT count(*) FILTER (WHERE made) AS made FROM made";
}

#[derive(QueryableByName)]
struct Dropped {
    #[diesel(sql_type = BigInt)]
    dropped: i64,
}

#[derive(QueryableByName)]
struct Made {
    #[diesel(sql_type = BigInt)]
    made: i64,
}

#[derive(Clone)]
pub struct PgExpiredRecords {
    pool: PgPool,
}

impl PgExpiredRecords {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// The monthly partitions of every partitioned table, made up to
    /// [`PARTITION_MONTHS_AHEAD`] months after `now`'s; answers how many were made.
    pub async fn ensure_partitions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found: Made = ENSURE_PARTITIONS
            .query()
            .bind::<Array<Text>, _>(MONTHLY_PARTITIONED.map(|(table, _)| table).to_vec())
            .bind::<Array<Text>, _>(MONTHLY_PARTITIONED.map(|(_, key)| key).to_vec())
            .bind::<Integer, _>(PARTITION_MONTHS_AHEAD)
            .bind::<Timestamptz, _>(now)
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(u64::try_from(found.made).unwrap_or(0))
    }

    /// Drops the months of a partitioned table that ended before `before`; answers how many rows
    /// they held. The month `before` falls in is left to the batches.
    async fn drop_months(&self, table: &str, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        drop_months_before(&mut conn, table, before).await
    }

    /// Runs `statement` with the cut-off until a batch removes fewer than `batch` rows; answers
    /// how many it removed. Each batch is its own statement (and transaction).
    async fn in_batches(&self, statement: Statement, before: DateTime<Utc>, batch: i64) -> Result<u64, StoreError> {
        let mut removed = 0u64;
        loop {
            let mut conn = connection(&self.pool).await?;
            let deleted = statement
                .query()
                .bind::<Timestamptz, _>(before)
                .bind::<BigInt, _>(batch)
                .execute(&mut conn)
                .await
                .map_err(query_error)?;
            removed += deleted as u64;
            if (deleted as i64) < batch {
                return Ok(removed);
            }
        }
    }
}

/// Drops the months of a table kept in monthly partitions that ended before `before`, each
/// detached and dropped as a table (migrations 000033 and 000034); answers how many rows they
/// held.
pub(crate) async fn drop_months_before(
    conn: &mut AsyncPgConnection,
    table: &str,
    before: DateTime<Utc>,
) -> Result<u64, StoreError> {
    statement! {
        DROP_PARTITIONS => Dropped = "SELECT drop_month_partitions_counted($1::regclass, $2) AS dropped";
    }
    let found: Dropped = DROP_PARTITIONS
        .query()
        .bind::<Text, _>(table)
        .bind::<Timestamptz, _>(before)
        .get_result(conn)
        .await
        .map_err(query_error)?;
    Ok(u64::try_from(found.dropped).unwrap_or(0))
}

/// Where one partitioned table stands, as the metrics show it.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct PartitionLevel {
    #[diesel(sql_type = Text)]
    pub table: String,
    /// The furthest month with its partition made, counted from the current one (UTC): the
    /// housekeeping keeps [`PARTITION_MONTHS_AHEAD`]; below 0, even this month's is missing.
    #[diesel(sql_type = BigInt)]
    pub months_ahead: i64,
    /// Rows in the DEFAULT partition: rows of months that had no partition when written.
    #[diesel(sql_type = BigInt)]
    pub default_rows: i64,
}

/// [`PartitionLevel`] of every partitioned table, one `UNION ALL` arm each (the names are this
/// module's constants). The DEFAULT partitions are counted whole: they are empty while the
/// housekeeping keeps up.
fn partition_levels_query() -> String {
    PARTITIONED_TABLES
        .iter()
        .map(|table| {
            format!(
                "SELECT '{table}'::text AS table, COALESCE((
                     SELECT max(extract(year FROM m) * 12 + extract(month FROM m))
                            - (extract(year FROM now() AT TIME ZONE 'UTC') * 12
                               + extract(month FROM now() AT TIME ZONE 'UTC'))
                     FROM (SELECT to_date(right(c.relname, 7), 'YYYY_MM') AS m
                           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                           WHERE i.inhparent = '{table}'::regclass
                             AND c.relname ~ '_[0-9]{{4}}_[0-9]{{2}}$') AS months), -1)::bigint AS months_ahead,
                   (SELECT count(*) FROM {table}_default) AS default_rows"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

/// Where every partitioned table stands: sampled when the metrics are scraped.
pub async fn partition_levels(pool: &PgPool) -> Result<Vec<PartitionLevel>, StoreError> {
    let mut conn = connection(pool).await?;
    built_at_run_time(partition_levels_query())
        .load(&mut conn)
        .await
        .map_err(query_error)
}

fn before(now: DateTime<Utc>, age: std::time::Duration) -> DateTime<Utc> {
    now - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::MAX)
}

#[async_trait]
impl ExpiredRecords for PgExpiredRecords {
    async fn purge(&self, now: DateTime<Utc>, policy: RetentionPolicy) -> Result<Purged, StoreError> {
        let batch = policy.batch.max(1);
        // The housekeeping also keeps the months ahead partitioned: writes land in their month.
        match self.ensure_partitions(now).await {
            Ok(0) => {}
            Ok(made) => tracing::info!(made, "monthly partitions made"),
            Err(error) => tracing::warn!(%error, "monthly partitions not made; rows go to the DEFAULT partitions"),
        }
        let callbacks = before(now, policy.callback_records);
        let ended_sessions = before(now, policy.ended_sessions);
        Ok(Purged {
            sessions: self.in_batches(SESSIONS, now, batch).await?,
            refresh_tokens: self.in_batches(REFRESH_TOKENS, now, batch).await?,
            recovery_tokens: self.in_batches(RECOVERY_TOKENS, now, batch).await?,
            person_links: self.in_batches(PERSON_LINKS, now, batch).await?,
            refusal_defences: self.in_batches(REFUSAL_DEFENCES, now, batch).await?,
            throttle_counters: self
                .in_batches(THROTTLE_COUNTERS, before(now, policy.idle_throttle), batch)
                .await?,
            signature_callbacks: self.drop_months("signature_callbacks", callbacks).await?
                + self.in_batches(SIGNATURE_CALLBACKS, callbacks, batch).await?,
            payment_events: self.drop_months("payment_events", callbacks).await?
                + self.in_batches(PAYMENT_EVENTS, callbacks, batch).await?,
            idempotency_keys: self
                .in_batches(IDEMPOTENCY_KEYS, before(now, policy.idempotency_keys), batch)
                .await?,
            ended_sessions: self.drop_months("ended_sessions", ended_sessions).await?
                + self
                    .in_batches(ENDED_SESSIONS_UNPARTITIONED, ended_sessions, batch)
                    .await?,
        })
    }
}
