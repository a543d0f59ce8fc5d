//! The delivery engine: claims due deliveries, sends them signed, and records what happened.
//! Any number run at once (one per instance), sharing the queue.

use super::model::{AttemptRecord, ClaimLimits, ClaimedDelivery, OutgoingWebhook, RecordStep};
use super::policy::{DeliveryPolicy, NextStep, SendOutcome};
use super::ports::{DeliveryQueue, DeliveryWakeups, WebhookSender};
use super::signing::signature_header;
use crate::clock::Clock;
use crate::retention::{ExpiredRecords, RetentionPolicy};
use chrono::{DateTime, Utc};
use futures_util::future::{Fuse, FusedFuture};
use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::{FutureExt, pin_mut, select_biased};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often each engine deletes deliveries past their retention, and the other expired records
/// (`retention`).
const PURGE_EVERY: Duration = Duration::from_secs(3600);

pub struct DeliveryEngine {
    pub queue: Arc<dyn DeliveryQueue>,
    pub sender: Arc<dyn WebhookSender>,
    pub wakeups: Arc<dyn DeliveryWakeups>,
    /// The hourly housekeeping beside the deliveries' own purge.
    pub expired: Arc<dyn ExpiredRecords>,
    pub clock: Arc<dyn Clock>,
    pub policy: DeliveryPolicy,
    pub retention: RetentionPolicy,
}

fn chrono_of(d: Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

impl DeliveryEngine {
    /// Delivers until `stop` resolves, then lets the requests in flight finish (their leases would
    /// otherwise make other instances repeat them later). Claims, sends, records and wake-ups are
    /// all polled together: a slow claim never stalls the deliveries in flight (which hold
    /// connections and leases of their own).
    pub async fn run(&self, stop: impl Future<Output = ()>) {
        let stop = stop.fuse();
        let claim = Fuse::terminated();
        let wake = Fuse::terminated();
        let purge = Fuse::terminated();
        pin_mut!(stop, claim, wake, purge);
        let mut in_flight = FuturesUnordered::new();
        let mut stopping = false;
        // Whether work may be waiting: set by a wake-up, a claim that found some, or a finished
        // delivery (which frees a slot of its subscription's in-flight limit); one claim runs at a
        // time, and an empty claim with nothing finishing lets the engine rest until a wake-up.
        let mut more_due = true;
        let mut next_purge: Option<DateTime<Utc>> = None;
        loop {
            if stopping {
                if in_flight.is_empty() && claim.is_terminated() {
                    return;
                }
            } else {
                let now = self.clock.now();
                if purge.is_terminated() && next_purge.is_none_or(|at| now >= at) {
                    purge.set(self.purge(now).fuse());
                    next_purge = Some(now + chrono_of(PURGE_EVERY));
                }
                let room = self.policy.max_in_flight.saturating_sub(in_flight.len());
                if claim.is_terminated() && more_due && room > 0 {
                    let limits = ClaimLimits {
                        batch: room,
                        per_subscription: self.policy.max_in_flight_per_subscription,
                        per_owner: self.policy.max_in_flight_per_owner,
                    };
                    claim.set(self.queue.claim(limits, self.policy.lease).fuse());
                    more_due = false;
                }
                if wake.is_terminated() {
                    wake.set(self.wakeups.wait(self.policy.poll_interval).fuse());
                }
            }
            select_biased! {
                () = stop => stopping = true,
                claimed = claim => match claimed {
                    Ok(batch) => {
                        more_due |= !batch.is_empty();
                        in_flight.extend(batch.into_iter().map(|d| self.deliver(d)));
                    }
                    Err(error) => tracing::warn!(%error, "webhook deliveries could not be claimed"),
                },
                () = in_flight.select_next_some() => more_due = true,
                () = wake => more_due = true,
                () = purge => {}
            }
        }
    }

    async fn purge(&self, now: DateTime<Utc>) {
        match self.queue.purge(now - chrono_of(self.policy.retention)).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "old webhook deliveries purged"),
            Err(error) => tracing::warn!(%error, "webhook deliveries could not be purged"),
        }
        match self.expired.purge(now, self.retention).await {
            Ok(purged) if purged.total() == 0 => {}
            Ok(purged) => tracing::info!(
                sessions = purged.sessions,
                refresh_tokens = purged.refresh_tokens,
                recovery_tokens = purged.recovery_tokens,
                person_links = purged.person_links,
                throttle_counters = purged.throttle_counters,
                signature_callbacks = purged.signature_callbacks,
                payment_events = purged.payment_events,
                idempotency_keys = purged.idempotency_keys,
                ended_sessions = purged.ended_sessions,
                "expired records purged"
            ),
            Err(error) => tracing::warn!(%error, "expired records could not be purged"),
        }
    }

    /// Sends one claimed delivery and records the outcome.
    pub async fn deliver(&self, delivery: ClaimedDelivery) {
        let timestamp = self.clock.now().timestamp();
        let request = OutgoingWebhook {
            signature: signature_header(&delivery.secrets, &delivery.message_id, timestamp, &delivery.body),
            endpoint: delivery.endpoint,
            message_id: delivery.message_id,
            timestamp,
            body: delivery.body,
            contract_version: delivery.contract_version,
        };
        let started = Instant::now();
        let outcome = self.sender.send(&request).await;
        let duration = started.elapsed();
        let at = self.clock.now();
        let step = match self.policy.next_step(delivery.attempt, &request.message_id, &outcome) {
            NextStep::Delivered => RecordStep::Delivered,
            NextStep::RetryIn(wait) => RecordStep::RetryAt(at + chrono_of(wait)),
            NextStep::Exhausted => RecordStep::Exhausted {
                disable_if_no_success_since: at - chrono_of(self.policy.disable_after),
            },
            NextStep::Gone => RecordStep::Gone,
        };
        let (response_status, error) = match outcome {
            SendOutcome::Answered { status, .. } => (Some(status), None),
            SendOutcome::Failed { error } => (None, Some(error)),
        };
        tracing::info!(
            message_id = %request.message_id,
            attempt = delivery.attempt,
            status = response_status,
            error = error.as_deref(),
            elapsed_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            "webhook attempt"
        );
        let record = AttemptRecord {
            delivery_id: delivery.id,
            attempt: delivery.attempt,
            at,
            duration,
            response_status,
            error,
            step,
        };
        if let Err(error) = self.queue.record(&record).await {
            // The lease runs out and the delivery is sent again: at least once, never lost.
            tracing::warn!(%error, message_id = %request.message_id, "webhook attempt could not be recorded");
        }
    }
}
