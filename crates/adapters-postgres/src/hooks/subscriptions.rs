//! The subscriptions and their delivery log: the domain's `HookStore`.

use super::{IdRow, PgHooks, notify, to_i64};
use crate::pool::{connection, query_error};
use crate::rows::stored;
use crate::schema::{
    hook_attempts as attempts, hook_deliveries as deliveries, hook_replays as replays, hook_subscriptions as subs,
};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::hooks::ports::HookStore;
use domain::hooks::{
    Attempt, Delivery, DeliveryLog, DeliveryPage, DeliveryState, HookOwner, HookPatch, NewSubscription, Replay,
    ReplayOutcome, ReplayWindow, Retried, SigningSecret, Subscription, SubscriptionPage,
};
use domain::store::StoreError;
use domain::values::{Application, EventKind, HookStatus, StoredValueError};
use std::time::Duration;
use uuid::Uuid;

/// A delivery that no worker is sending now (not pending, or pending without a live lease): the
/// one a retry or a replay may make due again; one in flight keeps its lease, since resetting it
/// would send the attempt twice.
fn not_in_flight() -> Box<dyn BoxableExpression<deliveries::table, Pg, SqlType = Nullable<Bool>>> {
    Box::new(
        deliveries::state
            .ne(DeliveryState::Pending.as_str())
            .or(deliveries::leased_until.is_null())
            .or(deliveries::leased_until.le(diesel::dsl::now)),
    )
}

/// Takes the subscription's row lock, which orders the writes that make a test event due (one
/// test waiting per subscription, decision 156: a rule a unique index could hold only within a
/// month of partitioned deliveries). `None` if there is no such subscription.
async fn lock_subscription(conn: &mut AsyncPgConnection, id: i64) -> QueryResult<Option<i64>> {
    subs::table
        .find(id)
        .select(subs::id)
        .for_no_key_update()
        .get_result::<i64>(conn)
        .await
        .optional()
}

/// Under the subscription's row lock: a test waiting for its next attempt gives way to the one
/// about to be due (`keep`, when it is a retried test, stays); `false`, and nothing changed,
/// while a test of the subscription is being sent.
async fn make_room_for_test(conn: &mut AsyncPgConnection, id: i64, keep: Option<i64>) -> QueryResult<bool> {
    let tests = || {
        deliveries::table
            .filter(deliveries::subscription_id.eq(id))
            .filter(deliveries::event_type.eq(EventKind::Test.as_str()))
            .filter(deliveries::state.eq(DeliveryState::Pending.as_str()))
    };
    let in_flight: i64 = tests()
        .filter(deliveries::leased_until.gt(diesel::dsl::now))
        .count()
        .get_result(conn)
        .await?;
    if in_flight > 0 {
        return Ok(false);
    }
    diesel::update(tests().filter(deliveries::id.ne(keep.unwrap_or(0))))
        .set((
            deliveries::state.eq(DeliveryState::Cancelled.as_str()),
            deliveries::leased_until.eq(None::<DateTime<Utc>>),
        ))
        .execute(conn)
        .await?;
    Ok(true)
}

/// How often a test event's answer looks for its first attempt.
const FIRST_ATTEMPT_POLL: Duration = Duration::from_millis(100);

#[derive(Queryable, Selectable)]
#[diesel(table_name = subs)]
struct SubscriptionRow {
    id: i64,
    uuid: Uuid,
    owner_application: String,
    partner_id: Option<i64>,
    endpoint: String,
    /// `text[]`: PostgreSQL's arrays do not say their elements are never NULL.
    events: Vec<Option<String>>,
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

/// The subscriptions' table, as stored values name it when one is unknown.
const TABLE: &str = "hook_subscriptions";

impl PgHooks {
    fn subscription(&self, row: SubscriptionRow) -> Result<Subscription, StoreError> {
        let owner = match (
            Application::from_stored(&row.owner_application, TABLE, "owner_application")?,
            row.partner_id,
        ) {
            (Application::Partner, Some(partner_id)) => HookOwner::Partner { partner_id },
            (Application::Partner, None) => return Err(StoredValueError::new(TABLE, "partner_id", "NULL").into()),
            (Application::Ecommerce, _) => HookOwner::Ecommerce,
            (Application::BackOffice, _) => HookOwner::BackOffice,
        };
        let events = row
            .events
            .iter()
            .map(|e| EventKind::from_stored(e.as_deref().unwrap_or("NULL"), TABLE, "events"))
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
            status: HookStatus::from_stored(&row.status, TABLE, "status")?,
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

statement! {
    /// A test delivery to the subscription `$1` (`$2` its event type, `$3` its body), due now.
    TEST_DELIVERY => IdRow = concat!(
        "INSERT INTO hook_deliveries (subscription_id, message_id, event_type, body, next_attempt_at) VALUES ($1, ",
        crate::event_outbox::message_id!(),
        ", $2, $3, now()) RETURNING id"
    );
}

#[async_trait]
impl HookStore for PgHooks {
    async fn create(&self, new: &NewSubscription, max_per_owner: usize) -> Result<Option<Subscription>, StoreError> {
        statement! {
            LOCK_OWNER = "SELECT pg_advisory_xact_lock(hashtext('hook_owner:' || $1 || ':' || coalesce($2::text, '')))";
        }
        let (application, partner_id) = owner_columns(new.owner);
        let sealed = self.sealer.seal(new.uuid, &new.secret)?;
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| {
                // Creates of one owner queue here, so that each counts the ones before it.
                LOCK_OWNER
                    .query()
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
                        subs::api_version.eq(&new.contract_version),
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

    async fn list(&self, owner: HookOwner, page: SubscriptionPage) -> Result<Vec<Subscription>, StoreError> {
        let (application, partner_id) = owner_columns(owner);
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<SubscriptionRow> = subs::table
            .filter(subs::owner_application.eq(application))
            .filter(subs::partner_id.is_not_distinct_from(partner_id))
            .filter(subs::deleted_at.is_null())
            .filter(subs::id.gt(page.after.unwrap_or(0)))
            .order(subs::id)
            .limit(page.limit)
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
                // The subscription's row orders concurrent tests, new and retried (decision 156).
                lock_subscription(conn, id).await?.ok_or(DieselError::NotFound)?;
                if !make_room_for_test(conn, id, None).await? {
                    return Ok(None);
                }
                let delivery_id: i64 = TEST_DELIVERY
                    .query()
                    .bind::<BigInt, _>(id)
                    .bind::<Text, _>(EventKind::Test.as_str())
                    .bind::<Text, _>(body)
                    .get_result::<IdRow>(conn)
                    .await?
                    .id;
                notify(conn).await?;
                deliveries::table
                    .filter(deliveries::id.eq(delivery_id))
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

    async fn first_attempt(&self, delivery_id: i64, within: Duration) -> Result<Option<Delivery>, StoreError> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let mut conn = connection(&self.pool).await?;
            // One snapshot for the delivery and its attempts: read apart, an attempt recorded
            // between the two reads would show beside the state from before it.
            let delivery = conn
                .build_transaction()
                .read_only()
                .repeatable_read()
                .run(async |conn| {
                    let row: Option<DeliveryRow> = deliveries::table
                        .filter(deliveries::id.eq(delivery_id))
                        .select(DeliveryRow::as_select())
                        .first(conn)
                        .await
                        .optional()?;
                    match row {
                        Some(row) => Ok(load_deliveries(conn, vec![row]).await?.pop()),
                        None => Ok::<_, diesel::result::Error>(None),
                    }
                })
                .await
                .map_err(query_error)?;
            let Some(delivery) = delivery else {
                return Ok(None);
            };
            if !delivery.attempts.is_empty() || tokio::time::Instant::now() >= deadline {
                return Ok(Some(delivery));
            }
            // The connection goes back to the pool while the worker sends.
            drop(conn);
            tokio::time::sleep(FIRST_ATTEMPT_POLL).await;
        }
    }

    async fn deliveries(&self, id: i64, page: DeliveryPage) -> Result<DeliveryLog, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let mut query = deliveries::table
            .filter(deliveries::subscription_id.eq(id))
            .order(deliveries::id.desc())
            // One more than the page: whether there is a next one.
            .limit(page.limit.saturating_add(1))
            .select(DeliveryRow::as_select())
            .into_boxed();
        if let Some(before) = page.before {
            query = query.filter(deliveries::id.lt(before));
        }
        // One snapshot for the deliveries and their attempts (see `first_attempt`).
        conn.build_transaction()
            .read_only()
            .repeatable_read()
            .run(async |conn| {
                let mut rows: Vec<DeliveryRow> = query.load(conn).await?;
                let more = i64::try_from(rows.len()).unwrap_or(i64::MAX) > page.limit;
                rows.truncate(usize::try_from(page.limit).unwrap_or(0));
                let next = if more { rows.last().map(|r| r.id) } else { None };
                let deliveries = load_deliveries(conn, rows).await?;
                Ok::<_, diesel::result::Error>(DeliveryLog { deliveries, next })
            })
            .await
            .map_err(query_error)
    }

    async fn replay(
        &self,
        id: i64,
        window: ReplayWindow,
        requested_by: &str,
        at: DateTime<Utc>,
        max_deliveries: i64,
    ) -> Result<ReplayOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // The subscription's row orders concurrent replays of it, on every instance.
            subs::table
                .find(id)
                .select(subs::id)
                .for_no_key_update()
                .get_result::<i64>(conn)
                .await?;
            let running: bool = diesel::select(diesel::dsl::exists(
                deliveries::table
                    .filter(deliveries::subscription_id.eq(id))
                    .filter(deliveries::replay_id.is_not_null())
                    .filter(deliveries::state.eq(DeliveryState::Pending.as_str())),
            ))
            .get_result(conn)
            .await?;
            if running {
                return Ok(ReplayOutcome::Running);
            }
            // Counted before anything is queued: a window wider than one replay may take is
            // refused whole.
            let candidates: i64 = deliveries::table
                .filter(deliveries::subscription_id.eq(id))
                .filter(deliveries::created_at.ge(window.since))
                .filter(deliveries::created_at.lt(window.until))
                .filter(deliveries::event_type.ne(EventKind::Test.as_str()))
                .filter(not_in_flight())
                .count()
                .get_result(conn)
                .await?;
            if candidates > max_deliveries {
                return Ok(ReplayOutcome::TooMany { deliveries: candidates });
            }
            let replay_id: i64 = diesel::insert_into(replays::table)
                .values((
                    replays::subscription_id.eq(id),
                    replays::since.eq(window.since),
                    replays::until.eq(window.until),
                    replays::requested_by.eq(requested_by),
                    replays::requested_at.eq(at),
                ))
                .returning(replays::id)
                .get_result(conn)
                .await?;
            // A delivery in flight keeps its lease (it is being sent already); a test event is
            // not the proposals' history.
            let queued = diesel::update(
                deliveries::table
                    .filter(deliveries::subscription_id.eq(id))
                    .filter(deliveries::created_at.ge(window.since))
                    .filter(deliveries::created_at.lt(window.until))
                    .filter(deliveries::event_type.ne(EventKind::Test.as_str()))
                    .filter(not_in_flight()),
            )
            .set((
                deliveries::state.eq(DeliveryState::Pending.as_str()),
                deliveries::next_attempt_at.eq(at),
                deliveries::leased_until.eq(None::<DateTime<Utc>>),
                deliveries::replay_id.eq(replay_id),
            ))
            .execute(conn)
            .await?;
            diesel::update(replays::table.find(replay_id))
                .set(replays::deliveries.eq(i32::try_from(queued).unwrap_or(i32::MAX)))
                .execute(conn)
                .await?;
            if queued > 0 {
                notify(conn).await?;
            }
            Ok(ReplayOutcome::Queued(Replay {
                window,
                deliveries: i64::try_from(queued).unwrap_or(i64::MAX),
            }))
        })
        .await
        .map_err(query_error)
    }

    async fn retry(&self, id: i64, delivery_id: i64, at: DateTime<Utc>) -> Result<Retried, StoreError> {
        enum Step {
            Due(DeliveryRow),
            NotFound,
            TestInFlight,
        }
        let mut conn = connection(&self.pool).await?;
        let step = conn
            .transaction(async |conn| {
                let kind: Option<String> = match lock_subscription(conn, id).await? {
                    None => None,
                    Some(_) => deliveries::table
                        .filter(deliveries::id.eq(delivery_id))
                        .filter(deliveries::subscription_id.eq(id))
                        .select(deliveries::event_type)
                        .first(conn)
                        .await
                        .optional()?,
                };
                let Some(kind) = kind else {
                    return Ok(Step::NotFound);
                };
                if kind == EventKind::Test.as_str() && !make_room_for_test(conn, id, Some(delivery_id)).await? {
                    return Ok(Step::TestInFlight);
                }
                // A delivery in flight keeps its lease: resetting it would send the attempt twice.
                let moved = diesel::update(
                    deliveries::table
                        .filter(deliveries::id.eq(delivery_id))
                        .filter(deliveries::subscription_id.eq(id))
                        .filter(not_in_flight()),
                )
                .set((
                    deliveries::state.eq(DeliveryState::Pending.as_str()),
                    deliveries::next_attempt_at.eq(at),
                    deliveries::leased_until.eq(None::<DateTime<Utc>>),
                    // One delivery retried by hand is no replay's.
                    deliveries::replay_id.eq(None::<i64>),
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
                    .map(Step::Due)
            })
            .await
            .map_err(query_error)?;
        match step {
            Step::NotFound => Ok(Retried::NotFound),
            Step::TestInFlight => Ok(Retried::TestInFlight),
            Step::Due(row) => load_deliveries(&mut conn, vec![row])
                .await
                .map_err(query_error)?
                .pop()
                .map(Retried::Due)
                .ok_or_else(|| StoreError::Unexpected("entrega reenviada sumiu".into())),
        }
    }
}
