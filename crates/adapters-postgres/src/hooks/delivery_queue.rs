//! The delivery queue: claiming due deliveries fairly across owners, recording each attempt,
//! purging old ones, and the due backlog the metrics sample.

use super::{IdRow, PgHooks, to_i64};
use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::retention::drop_months_before;
use crate::schema::{hook_deliveries as deliveries, hook_replays, hook_subscriptions as subs};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Double, Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use domain::hooks::ports::DeliveryQueue;
use domain::hooks::{AttemptRecord, ClaimLimits, ClaimedDelivery, DeliveryState, RecordStep};
use domain::store::StoreError;
use domain::values::HookStatus;
use observability::metric;
use std::time::Duration;
use uuid::Uuid;

#[derive(QueryableByName)]
struct ClaimedRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Int4)]
    attempts: i32,
    #[diesel(sql_type = Text)]
    message_id: String,
    #[diesel(sql_type = Text)]
    body: String,
    #[diesel(sql_type = Text)]
    endpoint: String,
    #[diesel(sql_type = SqlUuid)]
    uuid: Uuid,
    #[diesel(sql_type = Bytea)]
    secret_sealed: Vec<u8>,
    #[diesel(sql_type = Nullable<Bytea>)]
    previous_secret_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Text)]
    api_version: String,
}

statement! {
    /// One statement (one round trip, one transaction). Finds the active subscriptions with due
    /// deliveries and numbers each owner's (its first, second… subscription with work); locks them in
    /// that order, owners in turn, skipping those another worker holds (`FOR NO KEY UPDATE` never
    /// blocks a status change's foreign-key check), so their in-flight counts cannot change
    /// meanwhile; counts each subscription's and each owner's requests in flight (on the index of
    /// leased rows, so the cost follows the batch, not the backlog); leases their due deliveries,
    /// oldest first, within both limits, the owners' first deliveries before anyone's second. Rows
    /// are locked and rechecked on their newest version: one whose attempt is being recorded just as
    /// its lease ran out is skipped, never leased twice. One owner's failing receivers hold at most
    /// `$4` slots, so another owner's delivery always finds one.
    CLAIM => ClaimedRow = "
    WITH due AS (
        SELECT s.id,
               row_number() OVER (PARTITION BY s.owner_application, s.partner_id ORDER BY s.id) AS turn
        FROM hook_subscriptions s
        WHERE s.status = $6 AND s.deleted_at IS NULL
          -- A probe of the index per subscription (an EXISTS may become a join over the backlog).
          AND (SELECT true FROM hook_deliveries d
               WHERE d.subscription_id = s.id AND d.state = $5 AND d.next_attempt_at <= now()
                 AND (d.leased_until IS NULL OR d.leased_until <= now())
               LIMIT 1)
    ), subscriptions AS (
        SELECT s.id, s.owner_application, s.partner_id FROM hook_subscriptions s
        JOIN due ON due.id = s.id
        ORDER BY due.turn, s.id
        LIMIT $1
        FOR NO KEY UPDATE OF s SKIP LOCKED
    ), owners AS (
        SELECT o.owner_application, o.partner_id,
               $4 - (SELECT count(*) FROM hook_subscriptions os
                     JOIN hook_deliveries f ON f.subscription_id = os.id
                     WHERE os.owner_application = o.owner_application
                       AND os.partner_id IS NOT DISTINCT FROM o.partner_id
                       AND f.state = $5 AND f.leased_until IS NOT NULL
                       AND f.leased_until > now()) AS free
        FROM (SELECT DISTINCT owner_application, partner_id FROM subscriptions) AS o
    ), slots AS (
        SELECT s.id, s.owner_application, s.partner_id,
               $2 - (SELECT count(*) FROM hook_deliveries f
                     WHERE f.subscription_id = s.id AND f.state = $5
                       AND f.leased_until IS NOT NULL AND f.leased_until > now()) AS free
        FROM subscriptions s
    ), locked AS (
        SELECT slots.id AS subscription_id, slots.owner_application, slots.partner_id, slots.free,
               due.id, due.next_attempt_at
        FROM slots
        CROSS JOIN LATERAL (
            SELECT d.id, d.next_attempt_at FROM hook_deliveries d
            WHERE d.subscription_id = slots.id AND d.state = $5 AND d.next_attempt_at <= now()
              AND (d.leased_until IS NULL OR d.leased_until <= now())
            ORDER BY d.next_attempt_at, d.id
            LIMIT $2
            FOR UPDATE OF d SKIP LOCKED
        ) AS due
        WHERE slots.free > 0
    ), ranked AS (
        SELECT id, owner_application, partner_id,
               row_number() OVER (PARTITION BY owner_application, partner_id ORDER BY rn, id) AS owner_rn
        FROM (
            SELECT locked.*,
                   row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rn
            FROM locked
        ) AS per_subscription
        WHERE rn <= free
    ), chosen AS (
        SELECT ranked.id FROM ranked
        JOIN owners o ON o.owner_application = ranked.owner_application
                     AND o.partner_id IS NOT DISTINCT FROM ranked.partner_id
        WHERE ranked.owner_rn <= o.free
        ORDER BY ranked.owner_rn, ranked.id
        LIMIT $1
    )
    UPDATE hook_deliveries d
    SET attempts = d.attempts + 1, leased_until = now() + make_interval(secs => $3)
    FROM chosen c, hook_subscriptions s
    WHERE d.id = c.id AND s.id = d.subscription_id
    RETURNING d.id, d.attempts, d.message_id, d.body, s.endpoint, s.uuid, s.secret_sealed,
              CASE WHEN s.previous_secret_until > now() THEN s.previous_secret_sealed END AS previous_secret_sealed,
              s.api_version";
}

statement! {
    /// One statement: moves the delivery if this worker still holds it (the attempt number fences a
    /// lost lease), writes the attempt either way, and notes a success on the subscription at most
    /// once a minute (so busy receivers do not queue on its row). Answers the subscription when the
    /// delivery moved.
    RECORD => IdRow = "
    WITH moved AS (
        UPDATE hook_deliveries
        SET state = $3, next_attempt_at = $4, leased_until = NULL, delivered_at = $5
        WHERE id = $1 AND attempts = $2 AND state = $11
        RETURNING subscription_id
    ), attempt AS (
        INSERT INTO hook_attempts (delivery_id, delivery_created_at, number, attempted_at, response_status,
                                   duration_ms, error, next_attempt_at)
        SELECT $1, d.created_at, $2, $6, $7, $8, $9, $10 FROM hook_deliveries d WHERE d.id = $1
    ), success AS (
        UPDATE hook_subscriptions s SET last_success_at = $6
        FROM moved
        WHERE $3 = $12 AND s.id = moved.subscription_id
          AND (s.last_success_at IS NULL OR s.last_success_at < $6 - interval '1 minute')
    )
    SELECT subscription_id AS id FROM moved";
}

#[async_trait]
impl DeliveryQueue for PgHooks {
    async fn claim(&self, limits: ClaimLimits, lease: Duration) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // Not kept prepared (decision 72): a cached generic plan of this statement, whose limits
        // are parameters, was much slower than planning it each time (docs/performance.md).
        let rows: Vec<ClaimedRow> = CLAIM
            .query()
            .bind::<BigInt, _>(to_i64(limits.batch))
            .bind::<BigInt, _>(to_i64(limits.per_subscription))
            .bind::<Double, _>(lease.as_secs_f64())
            .bind::<BigInt, _>(to_i64(limits.per_owner))
            .bind::<Text, _>(DeliveryState::Pending.as_str())
            .bind::<Text, _>(HookStatus::Active.as_str())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .map(|row| {
                let mut secrets = vec![self.sealer.open(row.uuid, &row.secret_sealed)?];
                if let Some(previous) = &row.previous_secret_sealed {
                    secrets.push(self.sealer.open(row.uuid, previous)?);
                }
                Ok(ClaimedDelivery {
                    id: row.id,
                    attempt: row.attempts,
                    message_id: row.message_id,
                    body: row.body,
                    endpoint: row.endpoint,
                    secrets,
                    contract_version: row.api_version,
                })
            })
            .collect()
    }

    async fn record(&self, attempt: &AttemptRecord) -> Result<(), StoreError> {
        let (state, next_attempt_at, delivered_at, outcome) = match &attempt.step {
            RecordStep::Delivered => (DeliveryState::Delivered, None, Some(attempt.at), "delivered"),
            RecordStep::RetryAt(at) => (DeliveryState::Pending, Some(*at), None, "retry"),
            RecordStep::Exhausted { .. } => (DeliveryState::Exhausted, None, None, "exhausted"),
            RecordStep::Gone => (DeliveryState::Cancelled, None, None, "gone"),
        };
        metrics::counter!(metric::WEBHOOK_ATTEMPTS, "outcome" => outcome).increment(1);
        let mut conn = connection(&self.pool).await?;
        let moved: Option<IdRow> = prepared(RECORD, |q| {
            q.bind::<BigInt, _>(attempt.delivery_id)
                .bind::<Int4, _>(attempt.attempt)
                .bind::<Text, _>(state.as_str())
                .bind::<Timestamptz, _>(next_attempt_at.unwrap_or(attempt.at))
                .bind::<Nullable<Timestamptz>, _>(delivered_at)
                .bind::<Timestamptz, _>(attempt.at)
                .bind::<Nullable<Int4>, _>(attempt.response_status.map(i32::from))
                .bind::<BigInt, _>(i64::try_from(attempt.duration.as_millis()).unwrap_or(i64::MAX))
                .bind::<Nullable<Text>, _>(attempt.error.as_deref())
                .bind::<Nullable<Timestamptz>, _>(next_attempt_at)
                .bind::<Text, _>(DeliveryState::Pending.as_str())
                .bind::<Text, _>(DeliveryState::Delivered.as_str())
        })
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
        let Some(IdRow { id: subscription_id }) = moved else {
            return Ok(());
        };
        let subscription = subs::table
            .find(subscription_id)
            .filter(subs::status.eq(HookStatus::Active.as_str()));
        let (reason, since) = match &attempt.step {
            RecordStep::Gone => ("o endpoint respondeu 410 (Gone)", None),
            RecordStep::Exhausted {
                disable_if_no_success_since,
            } => (
                "entregas esgotadas sem nenhum sucesso no período configurado",
                Some(*disable_if_no_success_since),
            ),
            RecordStep::Delivered | RecordStep::RetryAt(_) => return Ok(()),
        };
        let disable = (
            subs::status.eq(HookStatus::Inactive.as_str()),
            subs::inactive_reason.eq(reason),
            subs::updated_at.eq(attempt.at),
        );
        let changed = match since {
            None => diesel::update(subscription).set(disable).execute(&mut conn).await,
            Some(since) => {
                diesel::update(subscription)
                    .filter(
                        subs::last_success_at
                            .lt(since)
                            .or(subs::last_success_at.is_null().and(subs::created_at.lt(since))),
                    )
                    .set(disable)
                    .execute(&mut conn)
                    .await
            }
        };
        changed.map(|_| ()).map_err(query_error)
    }

    async fn purge(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // Whole months go first, as tables (migration 000034): the attempts' (which follow their
        // delivery's month), then the deliveries' they referred to. The delete below then takes
        // the rest of the oldest month kept, its attempts going with each delivery.
        drop_months_before(&mut conn, "hook_attempts", before).await?;
        let dropped = drop_months_before(&mut conn, "hook_deliveries", before).await?;
        let deleted = diesel::delete(deliveries::table.filter(deliveries::created_at.lt(before)))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        let purged = dropped + u64::try_from(deleted).unwrap_or(0);
        // The record of who asked for a replay goes with the deliveries it re-sent.
        diesel::delete(hook_replays::table.filter(hook_replays::requested_at.lt(before)))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(purged)
    }
}

/// The deliveries due now, as the metrics show them.
#[derive(Debug, Clone, Copy, PartialEq, QueryableByName)]
pub struct WebhookBacklog {
    /// Pending deliveries of active subscriptions whose time has come.
    #[diesel(sql_type = BigInt)]
    pub due: i64,
    /// How long the oldest of them has waited past its time, in seconds (0 when none).
    #[diesel(sql_type = Double)]
    pub oldest_due_age_secs: f64,
}

statement! {
    BACKLOG => WebhookBacklog = "
    SELECT count(*) AS due,
           COALESCE(EXTRACT(EPOCH FROM now() - min(d.next_attempt_at)), 0)::float8 AS oldest_due_age_secs
    FROM hook_deliveries d
    JOIN hook_subscriptions s ON s.id = d.subscription_id
    WHERE d.state = $1 AND d.next_attempt_at <= now()
      AND s.status = $2 AND s.deleted_at IS NULL";
}

/// The due backlog of the whole queue (every instance's): sampled when the metrics are scraped.
pub async fn webhook_backlog(pool: &PgPool) -> Result<WebhookBacklog, StoreError> {
    let mut conn = connection(pool).await?;
    BACKLOG
        .query()
        .bind::<Text, _>(DeliveryState::Pending.as_str())
        .bind::<Text, _>(HookStatus::Active.as_str())
        .get_result(&mut conn)
        .await
        .map_err(query_error)
}
