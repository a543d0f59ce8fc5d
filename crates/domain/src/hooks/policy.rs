//! When a delivery is retried, given up, or turns its subscription off.

use sha2::{Digest, Sha256};
use std::time::Duration;

/// The delivery engine's numbers (all from configuration).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryPolicy {
    /// Delays after each failed attempt: ten attempts in all with the default nine delays.
    pub retry_schedule: Vec<Duration>,
    /// Each delay grows by up to this share (hundredths), spread by message, so that retries after
    /// an outage do not all arrive at once.
    pub jitter_percent: u32,
    /// A `Retry-After` is honoured up to this long.
    pub max_retry_after: Duration,
    /// A subscription with no success for this long whose delivery is exhausted turns `INATIVO`.
    pub disable_after: Duration,
    /// How long a claimed delivery stays with its worker; past it, another instance takes it.
    pub lease: Duration,
    /// Requests in flight per subscription, across all instances.
    pub max_in_flight_per_subscription: usize,
    /// Requests in flight per instance.
    pub max_in_flight: usize,
    /// Requests in flight per owner (a partner, the shop, the back office) across its
    /// subscriptions: one owner's failing receivers never take more than this of the slots.
    pub max_in_flight_per_owner: usize,
    /// How often workers look for due deliveries when no notification arrives.
    pub poll_interval: Duration,
    /// How long events and attempts are kept.
    pub retention: Duration,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        let minutes = |m: u64| Duration::from_secs(m * 60);
        let hours = |h: u64| minutes(h * 60);
        Self {
            retry_schedule: vec![
                Duration::from_secs(5),
                minutes(5),
                minutes(30),
                hours(2),
                hours(5),
                hours(10),
                hours(14),
                hours(20),
                hours(24),
            ],
            jitter_percent: 10,
            max_retry_after: hours(1),
            disable_after: hours(5 * 24),
            lease: Duration::from_secs(60),
            max_in_flight_per_subscription: 16,
            max_in_flight: 256,
            max_in_flight_per_owner: 32,
            poll_interval: Duration::from_secs(1),
            retention: hours(30 * 24),
        }
    }
}

/// What the receiver (or the way to it) did with one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// An HTTP answer arrived.
    Answered { status: u16, retry_after: Option<Duration> },
    /// No answer: refused address, connection failure, time-out.
    Failed { error: String },
}

/// What happens to the delivery after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextStep {
    Delivered,
    RetryIn(Duration),
    /// The schedule is used up.
    Exhausted,
    /// 410 Gone: the receiver asked to stop; the subscription turns `INATIVO`.
    Gone,
}

impl DeliveryPolicy {
    /// Attempts in all: the first and one per scheduled delay.
    pub fn max_attempts(&self) -> i32 {
        i32::try_from(self.retry_schedule.len()).unwrap_or(i32::MAX - 1) + 1
    }

    /// The step after attempt number `attempt` (1 for the first) of message `message_id`.
    pub fn next_step(&self, attempt: i32, message_id: &str, outcome: &SendOutcome) -> NextStep {
        let retry_after = match outcome {
            SendOutcome::Answered { status, .. } if (200..300).contains(status) => return NextStep::Delivered,
            SendOutcome::Answered { status: 410, .. } => return NextStep::Gone,
            SendOutcome::Answered {
                status: 429 | 503,
                retry_after,
            } => *retry_after,
            _ => None,
        };
        let index = usize::try_from(attempt.max(1) - 1).unwrap_or(usize::MAX);
        let Some(delay) = self.retry_schedule.get(index) else {
            return NextStep::Exhausted;
        };
        match retry_after {
            Some(wait) => NextStep::RetryIn(wait.clamp(Duration::from_secs(1), self.max_retry_after)),
            None => NextStep::RetryIn(self.jittered(*delay, message_id, attempt)),
        }
    }

    /// `delay` grown by a share below `jitter_percent`, the same for the same message and attempt.
    fn jittered(&self, delay: Duration, message_id: &str, attempt: i32) -> Duration {
        let digest = Sha256::new()
            .chain_update(message_id.as_bytes())
            .chain_update(attempt.to_be_bytes())
            .finalize();
        let spread = u64::from(u16::from_be_bytes([digest[0], digest[1]])); // 0..65535
        let max_extra_ms = delay.as_millis().saturating_mul(u128::from(self.jitter_percent)) / 100;
        let extra_ms = max_extra_ms.saturating_mul(u128::from(spread)) / 65_536;
        delay + Duration::from_millis(u64::try_from(extra_ms).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16) -> SendOutcome {
        SendOutcome::Answered {
            status,
            retry_after: None,
        }
    }

    #[test]
    fn any_2xx_is_delivered_and_410_is_gone() {
        let p = DeliveryPolicy::default();
        for status in [200, 201, 202, 204, 299] {
            assert_eq!(p.next_step(1, "m", &answered(status)), NextStep::Delivered);
        }
        assert_eq!(p.next_step(1, "m", &answered(410)), NextStep::Gone);
        assert_eq!(p.next_step(10, "m", &answered(410)), NextStep::Gone);
    }

    #[test]
    fn failures_follow_the_schedule_with_bounded_jitter_then_exhaust() {
        let p = DeliveryPolicy::default();
        assert_eq!(p.max_attempts(), 10);
        for (i, delay) in p.retry_schedule.iter().enumerate() {
            let attempt = i32::try_from(i).unwrap() + 1;
            for outcome in [
                answered(500),
                answered(302),
                answered(404),
                SendOutcome::Failed {
                    error: "timeout".into(),
                },
            ] {
                let NextStep::RetryIn(wait) = p.next_step(attempt, "msg_a", &outcome) else {
                    panic!("attempt {attempt} should be retried");
                };
                assert!(wait >= *delay && wait <= *delay + *delay / 10, "{wait:?} vs {delay:?}");
            }
        }
        assert_eq!(p.next_step(10, "msg_a", &answered(500)), NextStep::Exhausted);
    }

    #[test]
    fn jitter_differs_between_messages_and_repeats_for_one() {
        let p = DeliveryPolicy::default();
        let waits: std::collections::BTreeSet<Duration> = (0..20)
            .map(|i| match p.next_step(2, &format!("msg_{i}"), &answered(500)) {
                NextStep::RetryIn(w) => w,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(waits.len() > 10);
        assert_eq!(
            p.next_step(2, "msg_x", &answered(500)),
            p.next_step(2, "msg_x", &answered(500))
        );
    }

    #[test]
    fn retry_after_is_honoured_on_429_and_503_within_bounds() {
        let p = DeliveryPolicy::default();
        let with = |status, secs| SendOutcome::Answered {
            status,
            retry_after: Some(Duration::from_secs(secs)),
        };
        assert_eq!(
            p.next_step(1, "m", &with(429, 120)),
            NextStep::RetryIn(Duration::from_secs(120))
        );
        assert_eq!(
            p.next_step(1, "m", &with(503, 0)),
            NextStep::RetryIn(Duration::from_secs(1))
        );
        assert_eq!(
            p.next_step(1, "m", &with(503, 999_999)),
            NextStep::RetryIn(p.max_retry_after)
        );
        // Only on 429 and 503; and never past the last attempt.
        assert_ne!(
            p.next_step(1, "m", &with(500, 120)),
            NextStep::RetryIn(Duration::from_secs(120))
        );
        assert_eq!(p.next_step(10, "m", &with(429, 120)), NextStep::Exhausted);
    }
}
