//! Records kept only as long as they serve: what the hourly housekeeping removes besides old
//! webhook deliveries (which the delivery engine purges by its own retention).
//!
//! - refresh tokens once expired (a used one is kept until then: presenting it again is what
//!   reveals a stolen token); sessions once their last refresh token has expired (nothing of
//!   theirs can work any more) move to the record of ended sessions, kept as the record of who
//!   was signed in for `ended_sessions` and then dropped a month at a time;
//! - password recovery tokens once expired, used or revoked, and the person's own privacy links
//!   once expired or spent (the request filed and the consent's proof keep what they proved);
//! - sign-in and recovery throttle counters idle for a day (every window and block is shorter);
//! - `Idempotency-Key`s a day after their first use (`crate::idempotency`);
//! - the records of provider callbacks (signature and payment events, kept to apply each event
//!   once) past their configured age, longer than any provider retries an event.

use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::time::Duration;

/// How long the record of ended sessions is kept by default: six months, as Brazil's Marco Civil
/// da Internet (Lei 12.965/2014, art. 15) asks of an application's access records.
pub const ENDED_SESSIONS_DAYS: u64 = 183;

/// How long the records kept for deduplication, throttling and the sessions' record live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Signature and payment callback records (`CALLBACK_RETENTION_DAYS`).
    pub callback_records: Duration,
    /// Throttle counters with no activity for this long.
    pub idle_throttle: Duration,
    /// `Idempotency-Key`s after their first use.
    pub idempotency_keys: Duration,
    /// The record of ended sessions (`ENDED_SESSIONS_RETENTION_DAYS`): who was signed in, when,
    /// and how the session ended.
    pub ended_sessions: Duration,
    /// Rows removed per statement: the purge holds no lock for long and leaves room to others.
    pub batch: i64,
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        Self {
            callback_records: Duration::from_secs(30 * 24 * 3600),
            idle_throttle: Duration::from_secs(24 * 3600),
            idempotency_keys: crate::idempotency::IdempotencyPolicy::default().retention,
            ended_sessions: Duration::from_secs(ENDED_SESSIONS_DAYS * 24 * 3600),
            batch: 1000,
        }
    }
}

impl RetentionPolicy {
    /// How old a provider's event may be and still be applied: half the time applied events are
    /// remembered, so any event accepted is still recognised as a repeat.
    pub fn callback_replay_window(&self) -> Duration {
        self.callback_records / 2
    }
}

/// What one purge removed, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    pub sessions: u64,
    pub refresh_tokens: u64,
    pub recovery_tokens: u64,
    /// The person's own privacy links (decision 287), expired or spent.
    pub person_links: u64,
    /// Refused proposals' defences past their five years (decision 290).
    pub refusal_defences: u64,
    pub throttle_counters: u64,
    pub signature_callbacks: u64,
    pub payment_events: u64,
    pub idempotency_keys: u64,
    /// Sessions of the record of ended sessions past its retention.
    pub ended_sessions: u64,
}

impl Purged {
    pub fn total(&self) -> u64 {
        self.sessions
            + self.refresh_tokens
            + self.recovery_tokens
            + self.person_links
            + self.refusal_defences
            + self.throttle_counters
            + self.signature_callbacks
            + self.payment_events
            + self.idempotency_keys
            + self.ended_sessions
    }
}

/// The store's side: removes, in batches, what the policy says has expired at `now`.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ExpiredRecords: Send + Sync {
    async fn purge(&self, now: DateTime<Utc>, policy: RetentionPolicy) -> Result<Purged, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_are_applied_for_half_the_time_they_are_remembered() {
        let policy = RetentionPolicy::default();
        assert_eq!(policy.callback_replay_window(), Duration::from_secs(15 * 24 * 3600));
    }
}
