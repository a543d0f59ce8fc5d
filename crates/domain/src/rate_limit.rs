//! Rate limits a client can see: how many requests a caller may make per minute, counted across
//! every instance in fixed windows of a minute, and what to tell it (how many are left, when the
//! window ends, how long to wait once refused).

use crate::clock::Clock;
use crate::store::StoreError;
use async_trait::async_trait;
use std::net::IpAddr;
use std::sync::Arc;

/// The length of a window, in seconds.
pub const WINDOW_SECS: i64 = 60;

/// Who a limit counts: the signed-in user, or the caller's address when no user is signed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateSubject {
    User(i64),
    Address(IpAddr),
}

impl RateSubject {
    /// The counter's key (a user by id; an IPv4 address whole and an IPv6 one by its /64, as
    /// sign-in counts them: one subscriber holds a whole /64 and could otherwise step through it;
    /// kept two windows at most).
    pub fn key(&self) -> String {
        match self {
            RateSubject::User(id) => format!("u:{id}"),
            RateSubject::Address(ip) => format!("a:{}", crate::auth::model::client_network(*ip)),
        }
    }
}

/// The counters every instance shares.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait RateCounter: Send + Sync {
    /// Counts one request of `key` in the window starting at `window` (Unix seconds) and answers
    /// the window's count so far, this one included, across every instance (within the
    /// adapter's stated error bound).
    async fn hit(&self, key: &str, window: i64) -> Result<u64, StoreError>;
}

/// Whether a request may go on, and what the caller is told either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateDecision {
    pub allowed: bool,
    /// Requests per window.
    pub limit: u64,
    /// Requests left in this window after this one.
    pub remaining: u64,
    /// Seconds until the window ends (and, once refused, how long to wait).
    pub reset_secs: u64,
}

/// The limit of every caller: `limit` requests per minute.
pub struct RateLimiter {
    pub limit: u64,
    pub counter: Arc<dyn RateCounter>,
    pub clock: Arc<dyn Clock>,
}

impl RateLimiter {
    /// Counts the request and decides. A counter that fails lets the request through (logged):
    /// a limit protects the service and must not be what takes it down.
    pub async fn check(&self, subject: RateSubject) -> RateDecision {
        let now = self.clock.now().timestamp();
        let window = now - now.rem_euclid(WINDOW_SECS);
        let reset_secs = u64::try_from(window + WINDOW_SECS - now).unwrap_or(1).max(1);
        match self.counter.hit(&subject.key(), window).await {
            Ok(count) => RateDecision {
                allowed: count <= self.limit,
                limit: self.limit,
                remaining: self.limit.saturating_sub(count),
                reset_secs,
            },
            Err(error) => {
                tracing::warn!(%error, "contador de limite indisponível: requisição liberada");
                RateDecision {
                    allowed: true,
                    limit: self.limit,
                    remaining: self.limit,
                    reset_secs,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_caller_is_counted_by_its_64_and_an_ipv4_mapped_one_as_ipv4() {
        let key = |ip: &str| RateSubject::Address(ip.parse().unwrap()).key();
        assert_eq!(key("2001:db8:aa:bb:1:2:3:4"), "a:2001:db8:aa:bb::/64");
        assert_eq!(
            key("2001:db8:aa:bb:ffff::9"),
            key("2001:db8:aa:bb::1"),
            "one /64, one counter"
        );
        assert_ne!(key("2001:db8:aa:bc::1"), key("2001:db8:aa:bb::1"));
        assert_eq!(key("::ffff:203.0.113.5"), "a:203.0.113.5");
    }
    use crate::clock::MockClock;
    use chrono::{TimeZone, Utc};

    fn limiter(counter: MockRateCounter, second: u32) -> RateLimiter {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .returning(move || Utc.with_ymd_and_hms(2026, 11, 26, 10, 0, second).unwrap());
        RateLimiter {
            limit: 3,
            counter: Arc::new(counter),
            clock: Arc::new(clock),
        }
    }

    #[tokio::test]
    async fn a_caller_gets_the_limit_in_a_window_then_is_told_to_wait_for_the_next() {
        let window_start = Utc.with_ymd_and_hms(2026, 11, 26, 10, 0, 0).unwrap().timestamp();
        for (count, allowed, remaining) in [(1, true, 2), (3, true, 0), (4, false, 0)] {
            let mut counter = MockRateCounter::new();
            counter
                .expect_hit()
                .withf(move |key, window| key == "u:42" && *window == window_start)
                .returning(move |_, _| Ok(count));
            let decision = limiter(counter, 45).check(RateSubject::User(42)).await;
            assert_eq!(
                decision,
                RateDecision {
                    allowed,
                    limit: 3,
                    remaining,
                    reset_secs: 15
                }
            );
        }
    }

    #[tokio::test]
    async fn addresses_are_counted_apart_from_users_and_a_failing_counter_lets_requests_through() {
        assert_eq!(
            RateSubject::Address("203.0.113.5".parse().unwrap()).key(),
            "a:203.0.113.5"
        );
        let mut counter = MockRateCounter::new();
        counter
            .expect_hit()
            .returning(|_, _| Err(StoreError::Unavailable("fora".into())));
        let decision = limiter(counter, 0).check(RateSubject::User(1)).await;
        assert!(decision.allowed);
        assert_eq!(decision.reset_secs, 60);
    }
}
