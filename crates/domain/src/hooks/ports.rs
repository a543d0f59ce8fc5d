//! What the event subscriptions and their delivery need from the outside.

use super::endpoint::Endpoint;
use super::model::{
    AttemptRecord, ClaimLimits, ClaimedDelivery, Delivery, DeliveryLog, DeliveryPage, HookOwner, HookPatch,
    NewSubscription, OutgoingWebhook, ReplayOutcome, ReplayWindow, Retried, Subscription, SubscriptionPage,
};
use super::policy::SendOutcome;
use super::signing::SigningSecret;
use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::time::Duration;
use uuid::Uuid;

/// The subscriptions, as their owners manage them. Secrets travel in clear here; the store keeps
/// them encrypted.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait HookStore: Send + Sync {
    /// Stores the subscription unless its owner already keeps `max_per_owner` (then `None`);
    /// concurrent creates of one owner are counted one after the other.
    async fn create(&self, new: &NewSubscription, max_per_owner: usize) -> Result<Option<Subscription>, StoreError>;
    /// The owner's subscriptions (deleted ones are gone), oldest first: at most `page.limit`, those
    /// after the id `page.after` when given.
    async fn list(&self, owner: HookOwner, page: SubscriptionPage) -> Result<Vec<Subscription>, StoreError>;
    async fn find(&self, owner: HookOwner, uuid: Uuid) -> Result<Option<Subscription>, StoreError>;
    /// Applies the present members; turning a subscription `ATIVO` clears its inactive reason.
    async fn update(&self, id: i64, patch: &HookPatch, at: DateTime<Utc>) -> Result<Subscription, StoreError>;
    /// Removes the subscription from its owner's view and cancels its pending deliveries.
    async fn delete(&self, id: i64, at: DateTime<Utc>) -> Result<(), StoreError>;
    /// Makes `secret` the signing secret; the current one keeps signing until `previous_until`.
    async fn rotate(
        &self,
        id: i64,
        secret: &SigningSecret,
        previous_until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> Result<Subscription, StoreError>;
    /// Queues a test event for the subscription, due now, in place of a test still waiting for
    /// its next attempt; `None` while a test of the subscription is being sent (at most one in
    /// flight, and one queued).
    async fn enqueue_test(&self, id: i64, body: &str) -> Result<Option<Delivery>, StoreError>;
    /// The delivery once its first attempt is recorded, or as it stands after `within` (a test
    /// event's answer waits for its outcome, whichever instance sends it); `None` if it is gone.
    async fn first_attempt(&self, delivery_id: i64, within: Duration) -> Result<Option<Delivery>, StoreError>;
    /// A page of the subscription's deliveries, newest first, with their attempts, and the
    /// cursor of the next page.
    async fn deliveries(&self, id: i64, page: DeliveryPage) -> Result<DeliveryLog, StoreError>;
    /// Makes the subscription's deliveries created within the window due now again, with their
    /// message ids and bodies (so receivers deduplicate), leaving out test events and those in
    /// flight; `Running` while an earlier replay of the subscription still has deliveries
    /// waiting, `TooMany` (nothing queued) when the window holds more than `max_deliveries`.
    async fn replay(
        &self,
        id: i64,
        window: ReplayWindow,
        requested_by: &str,
        at: DateTime<Utc>,
        max_deliveries: i64,
    ) -> Result<ReplayOutcome, StoreError>;
    /// Makes a delivery of the subscription due now (one more attempt). A test event made due
    /// takes the place of a test waiting for its next attempt and is refused while another is
    /// being sent, as a new test is.
    async fn retry(&self, id: i64, delivery_id: i64, at: DateTime<Utc>) -> Result<Retried, StoreError>;
}

/// The queue the workers share: any number of instances claim from it without taking the same
/// delivery twice.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait DeliveryQueue: Send + Sync {
    /// Leases up to `limits.batch` due deliveries of active subscriptions for `lease`, keeping
    /// each subscription within `limits.per_subscription` requests in flight and each owner
    /// within `limits.per_owner`, taking owners in turn (one delivery of each before a second
    /// of any).
    async fn claim(&self, limits: ClaimLimits, lease: Duration) -> Result<Vec<ClaimedDelivery>, StoreError>;
    /// Writes an attempt and its consequence; ignored if the lease was lost meanwhile.
    async fn record(&self, attempt: &AttemptRecord) -> Result<(), StoreError>;
    /// Deletes deliveries (and their attempts) created before `before`; answers how many.
    async fn purge(&self, before: DateTime<Utc>) -> Result<u64, StoreError>;
}

/// Wakes the workers when deliveries are queued (a polling interval covers anything missed).
#[async_trait]
pub trait DeliveryWakeups: Send + Sync {
    /// Returns when a notification arrives or after `max`.
    async fn wait(&self, max: Duration);
}

/// Sends one request to a receiver.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(&self, request: &OutgoingWebhook) -> SendOutcome;
}

/// Why an endpoint may not receive events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointRefusal {
    #[error("endpoint aponta para endereço não público ({0})")]
    Blocked(String),
    #[error("não foi possível resolver o host do endpoint")]
    Unresolvable,
}

/// The server-side request forgery defence: an endpoint must lead to public addresses only.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait EndpointGuard: Send + Sync {
    async fn check(&self, endpoint: &Endpoint) -> Result<(), EndpointRefusal>;
}

/// Random 32-byte keys for new signing secrets.
#[cfg_attr(feature = "mock", mockall::automock)]
pub trait KeyGenerator: Send + Sync {
    fn key(&self) -> [u8; 32];
}

/// The bodies of one event for the contract versions that read it otherwise than the newest:
/// (version, body text), none for nearly every event. The outbox asks it when it queues an event,
/// so that each subscription gets the body of its own version; the contract's versions answer it
/// at the edge (`api-actix` installs them), the store knowing nothing of them.
pub trait EventVersions: Send + Sync {
    fn older_bodies(&self, kind: crate::values::EventKind, body: &str) -> Vec<(String, String)>;
}

/// Only the newest body: what a store that was handed no contract versions queues.
#[derive(Debug, Clone, Copy, Default)]
pub struct NewestBodyOnly;

impl EventVersions for NewestBodyOnly {
    fn older_bodies(&self, _kind: crate::values::EventKind, _body: &str) -> Vec<(String, String)> {
        Vec::new()
    }
}
