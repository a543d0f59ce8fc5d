//! Event subscriptions and the delivery outbox in PostgreSQL: the domain's `HookStore` and
//! `DeliveryQueue`, the fan-out written inside a status change's transaction, and the
//! `LISTEN`/`NOTIFY` wake-ups of the workers.

use crate::listener::{ListenEvent, spawn_listener};
use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::rows::stored;
use crate::schema::{hook_attempts as attempts, hook_deliveries as deliveries, hook_subscriptions as subs};
use crate::sealing::SecretSealer;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Bool, Bytea, Double, Int4, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::hooks::ports::{DeliveryQueue, DeliveryWakeups, HookStore};
use domain::hooks::{
    Attempt, AttemptRecord, ClaimLimits, ClaimedDelivery, Delivery, DeliveryState, HookOwner, HookPatch,
    NewSubscription, RecordStep, SigningSecret, Subscription,
};
use domain::proposals::lifecycle::StatusEvent;
use domain::store::StoreError;
use domain::values::{Application, EventKind, Flow, HookStatus};
use observability::metric;
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

/// The keys of signing secrets at rest: `current` seals, `previous` still open what they sealed.
#[derive(Clone)]
pub struct SealingKeys {
    pub current: [u8; 32],
    pub previous: Vec<[u8; 32]>,
}

/// A reseal batch fails on the database or on a secret no known key opens.
enum ResealError {
    Db(DieselError),
    Key(StoreError),
}

impl From<DieselError> for ResealError {
    fn from(e: DieselError) -> Self {
        ResealError::Db(e)
    }
}

/// What `reseal_all` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResealReport {
    /// Secrets moved under the current key.
    pub resealed: usize,
    /// Secrets already under it.
    pub current: usize,
}

impl SealingKeys {
    /// The sealer of these keys, shared by every store that keeps sealed values.
    pub fn sealer(&self) -> Arc<SecretSealer> {
        Arc::new(SecretSealer::new(self.current, &self.previous))
    }
}

impl PgHooks {
    pub fn new(pool: PgPool, keys: &SealingKeys) -> Self {
        Self {
            pool,
            sealer: Arc::new(SecretSealer::new(keys.current, &keys.previous)),
        }
    }

    /// Re-encrypts every stored signing secret (current and rotated-out, of every subscription,
    /// deleted ones too) under the current key, a hundred subscriptions per transaction, each row
    /// locked while it is rewritten. Fails, changing nothing of that batch, on a secret no known key
    /// opens.
    pub async fn reseal_all(&self) -> Result<ResealReport, StoreError> {
        type Row = (i64, Uuid, Vec<u8>, Option<Vec<u8>>);
        let mut report = ResealReport::default();
        let mut after = 0_i64;
        let mut conn = connection(&self.pool).await?;
        loop {
            let sealer = self.sealer.clone();
            let (last, batch) = conn
                .transaction(async |conn| {
                    let rows: Vec<Row> = subs::table
                        .filter(subs::id.gt(after))
                        .order(subs::id)
                        .limit(100)
                        .select((subs::id, subs::uuid, subs::secret_sealed, subs::previous_secret_sealed))
                        .for_update()
                        .load(conn)
                        .await?;
                    let mut batch = ResealReport::default();
                    for (id, uuid, secret, previous) in &rows {
                        let stored = 1 + usize::from(previous.is_some());
                        let secret = sealer.reseal(*uuid, secret).map_err(ResealError::Key)?;
                        let previous = match previous {
                            Some(sealed) => sealer.reseal(*uuid, sealed).map_err(ResealError::Key)?.map(Some),
                            None => None,
                        };
                        let changed = usize::from(secret.is_some()) + usize::from(previous.is_some());
                        batch.resealed += changed;
                        batch.current += stored - changed;
                        if changed == 0 {
                            continue;
                        }
                        let row = subs::table.find(id);
                        match (secret, previous) {
                            (Some(secret), Some(previous)) => {
                                diesel::update(row)
                                    .set((
                                        subs::secret_sealed.eq(secret),
                                        subs::previous_secret_sealed.eq(previous),
                                    ))
                                    .execute(conn)
                                    .await
                            }
                            (Some(secret), None) => {
                                diesel::update(row)
                                    .set(subs::secret_sealed.eq(secret))
                                    .execute(conn)
                                    .await
                            }
                            (None, Some(previous)) => {
                                diesel::update(row)
                                    .set(subs::previous_secret_sealed.eq(previous))
                                    .execute(conn)
                                    .await
                            }
                            (None, None) => Ok(0),
                        }?;
                    }
                    Ok::<_, ResealError>((rows.last().map(|r| r.0), batch))
                })
                .await
                .map_err(|e| match e {
                    ResealError::Db(e) => query_error(e),
                    ResealError::Key(e) => e,
                })?;
            report.resealed += batch.resealed;
            report.current += batch.current;
            match last {
                Some(id) => after = id,
                None => return Ok(report),
            }
        }
    }

    /// How many stored secrets are not sealed under the current key (0 after `reseal_all`).
    pub async fn secrets_under_other_keys(&self) -> Result<usize, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(Vec<u8>, Option<Vec<u8>>)> = subs::table
            .select((subs::secret_sealed, subs::previous_secret_sealed))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let current = Some(self.sealer.current_key_id());
        Ok(rows
            .iter()
            .flat_map(|(secret, previous)| std::iter::once(secret).chain(previous))
            .filter(|sealed| SecretSealer::sealed_with(sealed) != current)
            .count())
    }
}

/// One delivery per matching subscription, and a `NOTIFY` (sent at commit) only when something
/// was queued. The message id is `MESSAGE_ID` and the channel `CHANNEL`, written out so that the
/// statement is a constant and stays prepared. Who may see the proposal comes bound: the back
/// office always, the partner `$4` (null unless the proposal is a partner's), the shop when `$5`;
/// the statuses and owners are bound as their enums spell them.
const FAN_OUT: &str = "
    WITH queued AS (
        INSERT INTO hook_deliveries (subscription_id, proposal_event_id, message_id, event_type, body, next_attempt_at)
        SELECT s.id, $1, 'msg_' || replace(gen_random_uuid()::text, '-', ''), $2, $3, now()
        FROM hook_subscriptions s
        WHERE s.status = $6 AND s.deleted_at IS NULL AND $2 = ANY (s.events)
          AND (s.owner_application = $7
               OR (s.owner_application = $8 AND s.partner_id = $4)
               OR (s.owner_application = $9 AND $5))
        RETURNING 1
    )
    SELECT pg_notify('hook_deliveries', '') FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM queued)) AS any_queued";

/// Queues the event for every active subscription whose owner may see the proposal, inside the
/// caller's transaction: the event is sent if and only if the change commits.
pub(crate) async fn fan_out_status_change(
    conn: &mut AsyncPgConnection,
    event: &StatusEvent,
    identifier: &str,
    partner_id: Option<i64>,
    flow: Flow,
) -> QueryResult<()> {
    let body = domain::hooks::payload::status_change(event, identifier);
    // A shop's sale credited to a partner stays the shop's (decision 123): only a partner's own
    // flow reaches its subscriptions.
    let visible_partner = partner_id.filter(|_| flow == Flow::Partner);
    prepared(FAN_OUT, |q| {
        q.bind::<BigInt, _>(event.id)
            .bind::<Text, _>(EventKind::StatusChange.as_str())
            .bind::<Text, _>(&body)
            .bind::<Nullable<BigInt>, _>(visible_partner)
            .bind::<Bool, _>(flow == Flow::Ecommerce)
            .bind::<Text, _>(HookStatus::Active.as_str())
            .bind::<Text, _>(Application::BackOffice.as_str())
            .bind::<Text, _>(Application::Partner.as_str())
            .bind::<Text, _>(Application::Ecommerce.as_str())
    })
    .execute(conn)
    .await
    .map(|_| ())
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
}

/// A `PATCH`: absent members are left as they are (`Some(None)` writes a NULL).
#[derive(AsChangeset)]
#[diesel(table_name = subs)]
struct SubscriptionChanges<'a> {
    endpoint: Option<&'a str>,
    events: Option<Vec<String>>,
    status: Option<&'static str>,
    inactive_reason: Option<Option<&'a str>>,
    updated_at: DateTime<Utc>,
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
    rows.into_iter()
        .map(|row| {
            let state = stored(DeliveryState::from_stored(&row.state, "hook_deliveries", "state"))?;
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
            Ok(Delivery {
                id: row.id,
                message_id: row.message_id,
                event_type: row.event_type,
                next_attempt_at: (state == DeliveryState::Pending).then_some(row.next_attempt_at),
                state,
                attempts: mine,
                created_at: row.created_at,
                delivered_at: row.delivered_at,
            })
        })
        .collect()
}

#[async_trait]
impl HookStore for PgHooks {
    async fn create(&self, new: &NewSubscription, max_per_owner: usize) -> Result<Option<Subscription>, StoreError> {
        let (application, partner_id) = owner_columns(new.owner);
        let sealed = self.sealer.seal(new.uuid, &new.secret)?;
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| {
                // Creates of one owner queue here, so that each counts the ones before it.
                diesel::sql_query(
                    "SELECT pg_advisory_xact_lock(hashtext('hook_owner:' || $1 || ':' || coalesce($2::text, '')))",
                )
                .bind::<Text, _>(application)
                .bind::<Nullable<BigInt>, _>(partner_id)
                .execute(conn)
                .await?;
                let kept: i64 = subs::table
                    .filter(subs::owner_application.eq(application))
                    .filter(subs::partner_id.is_not_distinct_from(partner_id))
                    .filter(subs::deleted_at.is_null())
                    .count()
                    .get_result(conn)
                    .await?;
                if kept >= to_i64(max_per_owner) {
                    return Ok(None);
                }
                diesel::insert_into(subs::table)
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
                    .get_result(conn)
                    .await
                    .map(Some)
            })
            .await
            .map_err(query_error)?;
        row.map(|row| self.subscription(row)).transpose()
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
        let changes = SubscriptionChanges {
            endpoint: patch.endpoint.as_ref().map(|e| e.as_str()),
            events: patch.events.as_deref().map(event_names),
            status: patch.status.map(HookStatus::as_str),
            // Turning a subscription on again clears why it was turned off.
            inactive_reason: (patch.status == Some(HookStatus::Active)).then_some(None),
            updated_at: at,
        };
        let mut conn = connection(&self.pool).await?;
        let row = diesel::update(subs::table.find(id))
            .set(&changes)
            .returning(SubscriptionRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        self.subscription(row)
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
        let row = diesel::update(subs::table.find(id))
            .set((
                subs::previous_secret_sealed.eq(subs::secret_sealed.nullable()),
                subs::previous_secret_until.eq(previous_until),
                subs::secret_sealed.eq(sealed),
                subs::updated_at.eq(at),
            ))
            .returning(SubscriptionRow::as_returning())
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        self.subscription(row)
    }

    async fn enqueue_test(&self, id: i64, body: &str) -> Result<Option<Delivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<DeliveryRow> = conn
            .transaction(async |conn| {
                // The subscription's row orders concurrent requests; the partial unique index
                // `hook_deliveries_one_pending_test` holds the rule whatever the path.
                subs::table
                    .find(id)
                    .select(subs::id)
                    .for_no_key_update()
                    .get_result::<i64>(conn)
                    .await?;
                let in_flight: i64 = deliveries::table
                    .filter(deliveries::subscription_id.eq(id))
                    .filter(deliveries::event_type.eq(EventKind::Test.as_str()))
                    .filter(deliveries::state.eq(DeliveryState::Pending.as_str()))
                    .filter(deliveries::leased_until.gt(diesel::dsl::now))
                    .count()
                    .get_result(conn)
                    .await?;
                if in_flight > 0 {
                    return Ok(None);
                }
                // A test waiting for its next attempt gives way to the new one.
                diesel::update(
                    deliveries::table
                        .filter(deliveries::subscription_id.eq(id))
                        .filter(deliveries::event_type.eq(EventKind::Test.as_str()))
                        .filter(deliveries::state.eq(DeliveryState::Pending.as_str())),
                )
                .set((
                    deliveries::state.eq(DeliveryState::Cancelled.as_str()),
                    deliveries::leased_until.eq(None::<DateTime<Utc>>),
                ))
                .execute(conn)
                .await?;
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
                    .map(Some)
            })
            .await
            .map_err(query_error)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut loaded = load_deliveries(&mut conn, vec![row]).await.map_err(query_error)?;
        loaded
            .pop()
            .map(Some)
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
const CLAIM: &str = "
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
              CASE WHEN s.previous_secret_until > now() THEN s.previous_secret_sealed END AS previous_secret_sealed";

/// One statement: moves the delivery if this worker still holds it (the attempt number fences a
/// lost lease), writes the attempt either way, and notes a success on the subscription at most
/// once a minute (so busy receivers do not queue on its row). Answers the subscription when the
/// delivery moved.
const RECORD: &str = "
    WITH moved AS (
        UPDATE hook_deliveries
        SET state = $3, next_attempt_at = $4, leased_until = NULL, delivered_at = $5
        WHERE id = $1 AND attempts = $2 AND state = $11
        RETURNING subscription_id
    ), attempt AS (
        INSERT INTO hook_attempts (delivery_id, number, attempted_at, response_status, duration_ms, error, next_attempt_at)
        SELECT $1, $2, $6, $7, $8, $9, $10 WHERE EXISTS (SELECT 1 FROM hook_deliveries WHERE id = $1)
    ), success AS (
        UPDATE hook_subscriptions s SET last_success_at = $6
        FROM moved
        WHERE $3 = $12 AND s.id = moved.subscription_id
          AND (s.last_success_at IS NULL OR s.last_success_at < $6 - interval '1 minute')
    )
    SELECT subscription_id AS id FROM moved";

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[async_trait]
impl DeliveryQueue for PgHooks {
    async fn claim(&self, limits: ClaimLimits, lease: Duration) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // Not kept prepared (decision 72): a cached generic plan of this statement, whose limits
        // are parameters, was much slower than planning it each time (docs/performance.md).
        let rows: Vec<ClaimedRow> = diesel::sql_query(CLAIM)
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
        let listener = signal.clone();
        spawn_listener(database_url, CHANNEL, move |event| match event {
            // Anything queued before the LISTEN is found by the engine's first claim or poll.
            ListenEvent::Listening | ListenEvent::Notified => listener.notify_one(),
            ListenEvent::Lost => {}
        });
        Self { signal }
    }
}

#[async_trait]
impl DeliveryWakeups for PgDeliveryWakeups {
    async fn wait(&self, max: Duration) {
        let _ = tokio::time::timeout(max, self.signal.notified()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fan_out_statement_uses_the_message_ids_and_channel_of_the_rest() {
        assert!(FAN_OUT.contains(MESSAGE_ID));
        assert!(FAN_OUT.contains(&format!("pg_notify('{CHANNEL}', '')")));
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

const BACKLOG: &str = "
    SELECT count(*) AS due,
           COALESCE(EXTRACT(EPOCH FROM now() - min(d.next_attempt_at)), 0)::float8 AS oldest_due_age_secs
    FROM hook_deliveries d
    JOIN hook_subscriptions s ON s.id = d.subscription_id
    WHERE d.state = $1 AND d.next_attempt_at <= now()
      AND s.status = $2 AND s.deleted_at IS NULL";

/// The due backlog of the whole queue (every instance's): sampled when the metrics are scraped.
pub async fn webhook_backlog(pool: &PgPool) -> Result<WebhookBacklog, StoreError> {
    let mut conn = connection(pool).await?;
    diesel::sql_query(BACKLOG)
        .bind::<Text, _>(DeliveryState::Pending.as_str())
        .bind::<Text, _>(HookStatus::Active.as_str())
        .get_result(&mut conn)
        .await
        .map_err(query_error)
}
