//! Event subscriptions and the delivery outbox in PostgreSQL: the domain's `HookStore` and
//! `DeliveryQueue`, the fan-out written inside a status change's transaction, and the
//! `LISTEN`/`NOTIFY` wake-ups of the workers.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{hook_attempts as attempts, hook_deliveries as deliveries, hook_subscriptions as subs};
use crate::sealing::SecretSealer;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Bytea, Double, Int4, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::hooks::ports::{DeliveryQueue, DeliveryWakeups, HookStore};
use domain::hooks::{
    Attempt, AttemptRecord, ClaimedDelivery, Delivery, DeliveryState, HookOwner, HookPatch, NewSubscription,
    RecordStep, SigningSecret, Subscription,
};
use domain::proposals::lifecycle::StatusEvent;
use domain::store::StoreError;
use domain::values::{Application, EventKind, HookStatus};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use uuid::Uuid;

/// The channel a queued delivery is announced on (delivered by PostgreSQL at commit).
const CHANNEL: &str = "hook_deliveries";

/// A new message id, for the `webhook-id` header.
const MESSAGE_ID: &str = "'msg_' || replace(gen_random_uuid()::text, '-', '')";

#[derive(Clone)]
pub struct PgHooks {
    pool: PgPool,
    sealer: Arc<SecretSealer>,
}

impl PgHooks {
    pub fn new(pool: PgPool, encryption_key: [u8; 32]) -> Self {
        Self {
            pool,
            sealer: Arc::new(SecretSealer::new(encryption_key)),
        }
    }
}

/// Queues the event for every active subscription whose owner may see the proposal, inside the
/// caller's transaction: the event is sent if and only if the change commits.
pub(crate) async fn fan_out_status_change(
    conn: &mut AsyncPgConnection,
    event: &StatusEvent,
    identifier: &str,
    partner_id: Option<i64>,
    flow: &str,
) -> QueryResult<usize> {
    let body = domain::hooks::payload::status_change(event, identifier);
    let queued = diesel::sql_query(format!(
        "INSERT INTO hook_deliveries (subscription_id, proposal_event_id, message_id, event_type, body, next_attempt_at)
         SELECT s.id, $1, {MESSAGE_ID}, $2, $3, now()
         FROM hook_subscriptions s
         WHERE s.status = 'ATIVO' AND s.deleted_at IS NULL AND $2 = ANY (s.events)
           AND (s.owner_application = 'BACKOFFICE'
                OR (s.owner_application = 'PARCEIRO' AND s.partner_id = $4)
                OR (s.owner_application = 'ECOMMERCE' AND $5 = 'ECOMMERCE'))"
    ))
    .bind::<BigInt, _>(event.id)
    .bind::<Text, _>(EventKind::StatusChange.as_str())
    .bind::<Text, _>(&body)
    .bind::<Nullable<BigInt>, _>(partner_id)
    .bind::<Text, _>(flow)
    .execute(conn)
    .await?;
    if queued > 0 {
        notify(conn).await?;
    }
    Ok(queued)
}

async fn notify(conn: &mut AsyncPgConnection) -> QueryResult<()> {
    diesel::sql_query(format!("NOTIFY {CHANNEL}"))
        .execute(conn)
        .await
        .map(|_| ())
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = subs)]
struct SubscriptionRow {
    id: i64,
    uuid: Uuid,
    owner_application: String,
    partner_id: Option<i64>,
    endpoint: String,
    events: Vec<String>,
    status: String,
    secret_sealed: Vec<u8>,
    previous_secret_sealed: Option<Vec<u8>>,
    previous_secret_until: Option<DateTime<Utc>>,
    inactive_reason: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

fn owner_columns(owner: HookOwner) -> (&'static str, Option<i64>) {
    match owner {
        HookOwner::Partner { partner_id } => (Application::Partner.as_str(), Some(partner_id)),
        HookOwner::Ecommerce => (Application::Ecommerce.as_str(), None),
        HookOwner::BackOffice => (Application::BackOffice.as_str(), None),
    }
}

fn unexpected(what: &str, value: &str) -> StoreError {
    StoreError::Unexpected(format!("{what} desconhecido no banco: {value}"))
}

impl PgHooks {
    fn subscription(&self, row: SubscriptionRow) -> Result<Subscription, StoreError> {
        let owner = match (Application::parse(&row.owner_application), row.partner_id) {
            (Ok(Application::Partner), Some(partner_id)) => HookOwner::Partner { partner_id },
            (Ok(Application::Ecommerce), _) => HookOwner::Ecommerce,
            (Ok(Application::BackOffice), _) => HookOwner::BackOffice,
            _ => return Err(unexpected("dono de webhook", &row.owner_application)),
        };
        let events = row
            .events
            .iter()
            .map(|e| EventKind::parse(e).map_err(|_| unexpected("evento", e)))
            .collect::<Result<Vec<_>, _>>()?;
        let previous_secret = match (row.previous_secret_sealed, row.previous_secret_until) {
            (Some(sealed), Some(until)) => Some((self.sealer.open(row.uuid, &sealed)?, until)),
            _ => None,
        };
        Ok(Subscription {
            id: row.id,
            uuid: row.uuid,
            owner,
            endpoint: row.endpoint,
            events,
            status: HookStatus::parse(&row.status).map_err(|_| unexpected("status", &row.status))?,
            secret: self.sealer.open(row.uuid, &row.secret_sealed)?,
            previous_secret,
            inactive_reason: row.inactive_reason,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }

    async fn load(&self, conn: &mut AsyncPgConnection, id: i64) -> Result<Subscription, StoreError> {
        let row = subs::table
            .find(id)
            .select(SubscriptionRow::as_select())
            .get_result(conn)
            .await
            .map_err(query_error)?;
        self.subscription(row)
    }
}

fn event_names(events: &[EventKind]) -> Vec<String> {
    events.iter().map(|e| e.as_str().to_owned()).collect()
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = deliveries)]
struct DeliveryRow {
    id: i64,
    message_id: String,
    event_type: String,
    state: String,
    next_attempt_at: DateTime<Utc>,
    created_at: DateTime<Utc>,
    delivered_at: Option<DateTime<Utc>>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = attempts)]
struct AttemptRow {
    delivery_id: i64,
    number: i32,
    attempted_at: DateTime<Utc>,
    response_status: Option<i32>,
    duration_ms: i64,
    error: Option<String>,
    next_attempt_at: Option<DateTime<Utc>>,
}

async fn load_deliveries(conn: &mut AsyncPgConnection, rows: Vec<DeliveryRow>) -> QueryResult<Vec<Delivery>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut history: Vec<AttemptRow> = attempts::table
        .filter(attempts::delivery_id.eq_any(&ids))
        .order((attempts::delivery_id, attempts::number, attempts::id))
        .select(AttemptRow::as_select())
        .load(conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let state = DeliveryState::parse(&row.state).unwrap_or(DeliveryState::Pending);
            let mine: Vec<Attempt> = history
                .extract_if(.., |a| a.delivery_id == row.id)
                .map(|a| Attempt {
                    number: a.number,
                    at: a.attempted_at,
                    response_status: a.response_status,
                    duration_ms: a.duration_ms,
                    error: a.error,
                    next_attempt_at: a.next_attempt_at,
                })
                .collect();
            Delivery {
                id: row.id,
                message_id: row.message_id,
                event_type: row.event_type,
                next_attempt_at: (state == DeliveryState::Pending).then_some(row.next_attempt_at),
                state,
                attempts: mine,
                created_at: row.created_at,
                delivered_at: row.delivered_at,
            }
        })
        .collect())
}

#[async_trait]
impl HookStore for PgHooks {
    async fn create(&self, new: &NewSubscription) -> Result<Subscription, StoreError> {
        let (application, partner_id) = owner_columns(new.owner);
        let sealed = self.sealer.seal(new.uuid, &new.secret)?;
        let mut conn = connection(&self.pool).await?;
        let row = diesel::insert_into(subs::table)
            .values((
                subs::uuid.eq(new.uuid),
                subs::owner_application.eq(application),
                subs::partner_id.eq(partner_id),
                subs::created_by.eq(&new.created_by),
                subs::endpoint.eq(&new.endpoint),
                subs::events.eq(event_names(&new.events)),
                subs::status.eq(new.status.as_str()),
                subs::secret_sealed.eq(sealed),
                subs::created_at.eq(new.at),
                subs::updated_at.eq(new.at),
            ))
            .returning(SubscriptionRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        self.subscription(row)
    }

    async fn list(&self, owner: HookOwner) -> Result<Vec<Subscription>, StoreError> {
        let (application, partner_id) = owner_columns(owner);
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<SubscriptionRow> = subs::table
            .filter(subs::owner_application.eq(application))
            .filter(subs::partner_id.is_not_distinct_from(partner_id))
            .filter(subs::deleted_at.is_null())
            .order(subs::id)
            .select(SubscriptionRow::as_select())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter().map(|r| self.subscription(r)).collect()
    }

    async fn find(&self, owner: HookOwner, uuid: Uuid) -> Result<Option<Subscription>, StoreError> {
        let (application, partner_id) = owner_columns(owner);
        let mut conn = connection(&self.pool).await?;
        let row: Option<SubscriptionRow> = subs::table
            .filter(subs::uuid.eq(uuid))
            .filter(subs::owner_application.eq(application))
            .filter(subs::partner_id.is_not_distinct_from(partner_id))
            .filter(subs::deleted_at.is_null())
            .select(SubscriptionRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(|r| self.subscription(r)).transpose()
    }

    async fn update(&self, id: i64, patch: &HookPatch, at: DateTime<Utc>) -> Result<Subscription, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            if let Some(endpoint) = &patch.endpoint {
                diesel::update(subs::table.find(id))
                    .set(subs::endpoint.eq(endpoint.as_str()))
                    .execute(conn)
                    .await?;
            }
            if let Some(events) = &patch.events {
                diesel::update(subs::table.find(id))
                    .set(subs::events.eq(event_names(events)))
                    .execute(conn)
                    .await?;
            }
            if let Some(status) = patch.status {
                let reason: Option<&str> = None;
                let update = diesel::update(subs::table.find(id)).set(subs::status.eq(status.as_str()));
                update.execute(conn).await?;
                if status == HookStatus::Active {
                    diesel::update(subs::table.find(id))
                        .set(subs::inactive_reason.eq(reason))
                        .execute(conn)
                        .await?;
                }
            }
            diesel::update(subs::table.find(id))
                .set(subs::updated_at.eq(at))
                .execute(conn)
                .await?;
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)?;
        self.load(&mut conn, id).await
    }

    async fn delete(&self, id: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            diesel::update(subs::table.find(id))
                .set((subs::deleted_at.eq(at), subs::updated_at.eq(at)))
                .execute(conn)
                .await?;
            diesel::update(
                deliveries::table
                    .filter(deliveries::subscription_id.eq(id))
                    .filter(deliveries::state.eq(DeliveryState::Pending.as_str())),
            )
            .set(deliveries::state.eq(DeliveryState::Cancelled.as_str()))
            .execute(conn)
            .await?;
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)
    }

    async fn rotate(
        &self,
        id: i64,
        secret: &SigningSecret,
        previous_until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> Result<Subscription, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let uuid: Uuid = subs::table
            .find(id)
            .select(subs::uuid)
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        let sealed = self.sealer.seal(uuid, secret)?;
        diesel::update(subs::table.find(id))
            .set((
                subs::previous_secret_sealed.eq(subs::secret_sealed.nullable()),
                subs::previous_secret_until.eq(previous_until),
                subs::secret_sealed.eq(sealed),
                subs::updated_at.eq(at),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        self.load(&mut conn, id).await
    }

    async fn enqueue_test(&self, id: i64, body: &str) -> Result<Delivery, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: DeliveryRow = conn
            .transaction(async |conn| {
                let delivery_id: i64 = diesel::sql_query(format!(
                    "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at)
                     VALUES ($1, {MESSAGE_ID}, $2, $3, now()) RETURNING id"
                ))
                .bind::<BigInt, _>(id)
                .bind::<Text, _>(EventKind::Test.as_str())
                .bind::<Text, _>(body)
                .get_result::<IdRow>(conn)
                .await?
                .id;
                notify(conn).await?;
                deliveries::table
                    .find(delivery_id)
                    .select(DeliveryRow::as_select())
                    .get_result(conn)
                    .await
            })
            .await
            .map_err(query_error)?;
        let mut loaded = load_deliveries(&mut conn, vec![row]).await.map_err(query_error)?;
        loaded
            .pop()
            .ok_or_else(|| StoreError::Unexpected("entrega de teste sumiu".into()))
    }

    async fn deliveries(&self, id: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<DeliveryRow> = deliveries::table
            .filter(deliveries::subscription_id.eq(id))
            .order(deliveries::id.desc())
            .limit(limit)
            .select(DeliveryRow::as_select())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        load_deliveries(&mut conn, rows).await.map_err(query_error)
    }

    async fn retry(&self, id: i64, delivery_id: i64, at: DateTime<Utc>) -> Result<Option<Delivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<DeliveryRow> = conn
            .transaction(async |conn| {
                // A delivery in flight keeps its lease: resetting it would send the attempt twice.
                let moved = diesel::update(
                    deliveries::table
                        .filter(deliveries::id.eq(delivery_id))
                        .filter(deliveries::subscription_id.eq(id))
                        .filter(
                            deliveries::state
                                .ne(DeliveryState::Pending.as_str())
                                .or(deliveries::leased_until.is_null())
                                .or(deliveries::leased_until.le(diesel::dsl::now)),
                        ),
                )
                .set((
                    deliveries::state.eq(DeliveryState::Pending.as_str()),
                    deliveries::next_attempt_at.eq(at),
                    deliveries::leased_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
                if moved > 0 {
                    notify(conn).await?;
                }
                deliveries::table
                    .filter(deliveries::id.eq(delivery_id))
                    .filter(deliveries::subscription_id.eq(id))
                    .select(DeliveryRow::as_select())
                    .first(conn)
                    .await
                    .optional()
            })
            .await
            .map_err(query_error)?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(load_deliveries(&mut conn, vec![row]).await.map_err(query_error)?.pop())
    }
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

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
}

/// Locks the active subscriptions that have due deliveries (skipping those another worker holds),
/// so that their in-flight counts cannot change while this worker leases.
const LOCK_SUBSCRIPTIONS: &str = "
    SELECT s.id FROM hook_subscriptions s
    WHERE s.status = 'ATIVO' AND s.deleted_at IS NULL
      AND EXISTS (SELECT 1 FROM hook_deliveries d
                  WHERE d.subscription_id = s.id AND d.state = 'PENDENTE' AND d.next_attempt_at <= now()
                    AND (d.leased_until IS NULL OR d.leased_until <= now()))
    LIMIT $1
    FOR NO KEY UPDATE OF s SKIP LOCKED";

/// Leases the due deliveries of the locked subscriptions, oldest first, keeping each within its
/// in-flight limit and spreading the batch across subscriptions.
const LEASE_DELIVERIES: &str = "
    WITH in_flight AS (
        SELECT subscription_id, count(*) AS n FROM hook_deliveries
        WHERE subscription_id = ANY ($1) AND state = 'PENDENTE' AND leased_until > now()
        GROUP BY subscription_id
    ), ranked AS (
        SELECT d.id, d.subscription_id,
               row_number() OVER (PARTITION BY d.subscription_id ORDER BY d.next_attempt_at, d.id) AS rn
        FROM hook_deliveries d
        WHERE d.subscription_id = ANY ($1) AND d.state = 'PENDENTE' AND d.next_attempt_at <= now()
          AND (d.leased_until IS NULL OR d.leased_until <= now())
    ), chosen AS (
        -- Rechecked on the newest row version and locked: a row an attempt is being recorded on
        -- (its lease just ran out) is skipped, never leased a second time.
        SELECT d.id FROM hook_deliveries d
        WHERE d.id IN (SELECT r.id FROM ranked r LEFT JOIN in_flight f USING (subscription_id)
                       WHERE r.rn + coalesce(f.n, 0) <= $2
                       ORDER BY r.rn, r.id
                       LIMIT $3)
          AND d.state = 'PENDENTE' AND (d.leased_until IS NULL OR d.leased_until <= now())
        FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE hook_deliveries d
    SET attempts = d.attempts + 1, leased_until = now() + make_interval(secs => $4)
    FROM chosen c, hook_subscriptions s
    WHERE d.id = c.id AND s.id = d.subscription_id
    RETURNING d.id, d.attempts, d.message_id, d.body, s.endpoint, s.uuid, s.secret_sealed,
              CASE WHEN s.previous_secret_until > now() THEN s.previous_secret_sealed END AS previous_secret_sealed";

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[async_trait]
impl DeliveryQueue for PgHooks {
    async fn claim(
        &self,
        limit: usize,
        lease: Duration,
        per_subscription: usize,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<ClaimedRow> = conn
            .transaction(async |conn| {
                let locked: Vec<IdRow> = diesel::sql_query(LOCK_SUBSCRIPTIONS)
                    .bind::<BigInt, _>(to_i64(limit))
                    .load(conn)
                    .await?;
                if locked.is_empty() {
                    return Ok(Vec::new());
                }
                let ids: Vec<i64> = locked.into_iter().map(|r| r.id).collect();
                diesel::sql_query(LEASE_DELIVERIES)
                    .bind::<Array<BigInt>, _>(ids)
                    .bind::<BigInt, _>(to_i64(per_subscription))
                    .bind::<BigInt, _>(to_i64(limit))
                    .bind::<Double, _>(lease.as_secs_f64())
                    .load(conn)
                    .await
            })
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
                })
            })
            .collect()
    }

    async fn record(&self, attempt: &AttemptRecord) -> Result<(), StoreError> {
        let (state, next_attempt_at, delivered_at) = match &attempt.step {
            RecordStep::Delivered => (DeliveryState::Delivered, None, Some(attempt.at)),
            RecordStep::RetryAt(at) => (DeliveryState::Pending, Some(*at), None),
            RecordStep::Exhausted { .. } => (DeliveryState::Exhausted, None, None),
            RecordStep::Gone => (DeliveryState::Cancelled, None, None),
        };
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let target = deliveries::table
                .filter(deliveries::id.eq(attempt.delivery_id))
                .filter(deliveries::attempts.eq(attempt.attempt))
                .filter(deliveries::state.eq(DeliveryState::Pending.as_str()));
            let subscription_id: Option<i64> = diesel::update(target)
                .set((
                    deliveries::state.eq(state.as_str()),
                    deliveries::next_attempt_at.eq(next_attempt_at.unwrap_or(attempt.at)),
                    deliveries::leased_until.eq(None::<DateTime<Utc>>),
                    deliveries::delivered_at.eq(delivered_at),
                ))
                .returning(deliveries::subscription_id)
                .get_result(conn)
                .await
                .optional()?;
            let exists = match subscription_id {
                Some(_) => true,
                // Cancelled meanwhile, or the lease ran out and another worker took it: the
                // attempt still happened and is written, without moving the delivery.
                None => {
                    diesel::select(diesel::dsl::exists(deliveries::table.find(attempt.delivery_id)))
                        .get_result(conn)
                        .await?
                }
            };
            if exists {
                diesel::insert_into(attempts::table)
                    .values((
                        attempts::delivery_id.eq(attempt.delivery_id),
                        attempts::number.eq(attempt.attempt),
                        attempts::attempted_at.eq(attempt.at),
                        attempts::response_status.eq(attempt.response_status.map(i32::from)),
                        attempts::duration_ms.eq(i64::try_from(attempt.duration.as_millis()).unwrap_or(i64::MAX)),
                        attempts::error.eq(attempt.error.as_deref()),
                        attempts::next_attempt_at.eq(next_attempt_at),
                    ))
                    .execute(conn)
                    .await?;
            }
            let Some(subscription_id) = subscription_id else {
                return Ok(());
            };
            let subscription = subs::table
                .find(subscription_id)
                .filter(subs::status.eq(HookStatus::Active.as_str()));
            match &attempt.step {
                RecordStep::Delivered => {
                    // Written at most once a minute per subscription: busy receivers do not queue on the row.
                    let stale = attempt.at - chrono::Duration::minutes(1);
                    diesel::update(subs::table.find(subscription_id))
                        .filter(subs::last_success_at.is_null().or(subs::last_success_at.lt(stale)))
                        .set(subs::last_success_at.eq(attempt.at))
                        .execute(conn)
                        .await?;
                }
                RecordStep::Gone => {
                    diesel::update(subscription)
                        .set((
                            subs::status.eq(HookStatus::Inactive.as_str()),
                            subs::inactive_reason.eq("o endpoint respondeu 410 (Gone)"),
                            subs::updated_at.eq(attempt.at),
                        ))
                        .execute(conn)
                        .await?;
                }
                RecordStep::Exhausted {
                    disable_if_no_success_since,
                } => {
                    diesel::update(subscription)
                        .filter(
                            subs::last_success_at
                                .lt(disable_if_no_success_since)
                                .or(subs::last_success_at
                                    .is_null()
                                    .and(subs::created_at.lt(disable_if_no_success_since))),
                        )
                        .set((
                            subs::status.eq(HookStatus::Inactive.as_str()),
                            subs::inactive_reason.eq("entregas esgotadas sem nenhum sucesso no período configurado"),
                            subs::updated_at.eq(attempt.at),
                        ))
                        .execute(conn)
                        .await?;
                }
                RecordStep::RetryAt(_) => {}
            }
            Ok::<_, DieselError>(())
        })
        .await
        .map_err(query_error)
    }

    async fn purge(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let purged = diesel::delete(deliveries::table.filter(deliveries::created_at.lt(before)))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(u64::try_from(purged).unwrap_or(0))
    }
}

/// Wakes the local delivery engine on each `NOTIFY`, from one dedicated `LISTEN` connection that
/// is re-established when it drops (the engine's polling covers the gap).
pub struct PgDeliveryWakeups {
    signal: Arc<Notify>,
}

impl PgDeliveryWakeups {
    /// Starts listening in the background on the current tokio runtime.
    pub fn start(database_url: &str) -> Self {
        let signal = Arc::new(Notify::new());
        let url = database_url.to_owned();
        let listener = signal.clone();
        tokio::spawn(async move {
            loop {
                if let Err(error) = listen(&url, &listener).await {
                    tracing::warn!(%error, "webhook wake-up listener lost; reconnecting");
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        Self { signal }
    }
}

async fn listen(url: &str, signal: &Notify) -> Result<(), DieselError> {
    let mut conn = AsyncPgConnection::establish(url)
        .await
        .map_err(|e| DieselError::QueryBuilderError(e.to_string().into()))?;
    diesel::sql_query(format!("LISTEN {CHANNEL}"))
        .execute(&mut conn)
        .await?;
    // Anything queued before the LISTEN is found by the engine's first claim or poll.
    signal.notify_one();
    let mut stream = std::pin::pin!(conn.notifications_stream());
    while let Some(notification) = stream.next().await {
        notification?;
        signal.notify_one();
    }
    Ok(())
}

#[async_trait]
impl DeliveryWakeups for PgDeliveryWakeups {
    async fn wait(&self, max: Duration) {
        let _ = tokio::time::timeout(max, self.signal.notified()).await;
    }
}
