//! Event subscriptions and their deliveries.

use super::endpoint::Endpoint;
use super::signing::SigningSecret;
use crate::access::Scope;
pub use crate::values::DeliveryState;
use crate::values::{EventKind, HookStatus};
use chrono::{DateTime, Utc};
use std::time::Duration;
use uuid::Uuid;

/// Whose a subscription is, and so which proposals' events it receives: a partner's (its
/// proposals), the online shop's (e-commerce proposals) or the back office's (all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookOwner {
    Partner { partner_id: i64 },
    Ecommerce,
    BackOffice,
}

impl From<Scope> for HookOwner {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::Partner { partner_id, .. } => HookOwner::Partner { partner_id },
            Scope::Ecommerce => HookOwner::Ecommerce,
            Scope::Everything => HookOwner::BackOffice,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub id: i64,
    pub uuid: Uuid,
    pub owner: HookOwner,
    pub endpoint: String,
    pub events: Vec<EventKind>,
    pub status: HookStatus,
    pub secret: SigningSecret,
    /// The secret before the last rotation, and until when it still signs beside the new one.
    pub previous_secret: Option<(SigningSecret, DateTime<Utc>)>,
    /// Why the service turned the subscription `INATIVO` (410, or failing for days).
    pub inactive_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A validated request to subscribe (route 17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRequest {
    pub events: Vec<EventKind>,
    pub endpoint: Endpoint,
    pub status: HookStatus,
}

/// A validated change (`PATCH /hooks/:uuid`): absent members stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookPatch {
    pub events: Option<Vec<EventKind>>,
    pub endpoint: Option<Endpoint>,
    pub status: Option<HookStatus>,
}

/// What the store writes for a new subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSubscription {
    pub uuid: Uuid,
    /// The contract version its events are delivered in: the one its creating request read.
    pub contract_version: String,
    pub owner: HookOwner,
    pub created_by: String,
    pub endpoint: String,
    pub events: Vec<EventKind>,
    pub status: HookStatus,
    pub secret: SigningSecret,
    pub at: DateTime<Utc>,
}

/// A replay as asked (`POST /hooks/:uuid/replay`): `until` absent means now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayRequest {
    pub since: DateTime<Utc>,
    pub until: Option<DateTime<Utc>>,
}

/// The window of a subscription's deliveries to send again, checked: `since` before `until`,
/// at most `MAX_REPLAY_WINDOW` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayWindow {
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// What a replay queued again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replay {
    pub window: ReplayWindow,
    pub deliveries: i64,
}

/// What a replay's store did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayOutcome {
    Queued(Replay),
    /// An earlier replay of the subscription still has deliveries waiting.
    Running,
    /// The window holds more deliveries than one replay may queue: nothing queued.
    TooMany {
        deliveries: i64,
    },
}

/// Where a page of the delivery log starts: the newest deliveries first, those older than
/// `before` (a delivery id, the previous page's cursor) when given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryPage {
    pub limit: i64,
    pub before: Option<i64>,
}

/// Where a page of the subscription list starts: oldest first, those after `after` (a
/// subscription id, the previous page's cursor) when given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionPage {
    pub limit: i64,
    pub after: Option<i64>,
}

/// One page of the subscription list, and the cursor of the next (none on the last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionList {
    pub subscriptions: Vec<Subscription>,
    pub next: Option<i64>,
}

/// One page of the delivery log, and the cursor of the next (none on the last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryLog {
    pub deliveries: Vec<Delivery>,
    pub next: Option<i64>,
}

/// One event queued for one subscription, with its attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: i64,
    /// The `webhook-id` header: the same on every attempt.
    pub message_id: String,
    pub event_type: String,
    pub state: DeliveryState,
    pub attempts: Vec<Attempt>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// What asking for one more attempt of a delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retried {
    /// Due now (or left as it was while being sent), as it stands.
    Due(Delivery),
    /// The subscription has no delivery by that id.
    NotFound,
    /// It is a test event and another test of the subscription is being sent: one at a time,
    /// as for a new test.
    TestInFlight,
}

/// One request to the receiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub number: i32,
    pub at: DateTime<Utc>,
    pub response_status: Option<i32>,
    pub duration_ms: i64,
    pub error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// How much one claim may lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimLimits {
    /// Deliveries in this claim (the worker's free slots).
    pub batch: usize,
    /// Requests in flight per subscription, across all instances.
    pub per_subscription: usize,
    /// Requests in flight per owner, across its subscriptions and all instances.
    pub per_owner: usize,
}

/// A delivery a worker leased, with what it needs to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    pub id: i64,
    /// The number of the attempt being made (1 for the first); it also fences the lease.
    pub attempt: i32,
    pub message_id: String,
    pub body: String,
    pub endpoint: String,
    pub secrets: Vec<SigningSecret>,
    /// The contract version the body is in (its subscription's), sent as `Sales-Version`.
    pub contract_version: String,
}

/// The request a worker sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingWebhook {
    pub endpoint: String,
    pub message_id: String,
    pub timestamp: i64,
    pub signature: String,
    pub body: String,
    /// The contract version of `body` (`Sales-Version`).
    pub contract_version: String,
}

/// What to write after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    pub delivery_id: i64,
    pub attempt: i32,
    pub at: DateTime<Utc>,
    pub duration: Duration,
    pub response_status: Option<u16>,
    pub error: Option<String>,
    pub step: RecordStep,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordStep {
    Delivered,
    RetryAt(DateTime<Utc>),
    /// Given up; the subscription turns `INATIVO` if it has had no success since the instant given.
    Exhausted {
        disable_if_no_success_since: DateTime<Utc>,
    },
    /// 410: the delivery is cancelled and the subscription turns `INATIVO`.
    Gone,
}
