//! How many failed attempts are tolerated, and for how long a counter then refuses.
//!
//! An attempt is *admitted* against every counter it moves before any password is checked, and
//! counts as a failure from that moment: admission is what the store does atomically, so that N
//! concurrent guesses can never be checked more than a counter allows. An attempt that turns out
//! right is then *given back*.

use chrono::{DateTime, Duration, Utc};

/// One counter's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tier {
    /// Failures within the window from which the counter refuses.
    pub max_failures: u32,
    pub window_secs: i64,
    /// The first refusal; each further failure doubles it, up to `max_block_secs`.
    pub base_block_secs: i64,
    pub max_block_secs: i64,
}

/// A counter as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterState {
    pub failures: u32,
    pub window_started_at: DateTime<Utc>,
    pub blocked_until: Option<DateTime<Utc>>,
}

impl Tier {
    /// When a counter with `failures` in its window is blocked until, if at all.
    pub fn block_until(&self, failures: u32, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let over = failures.checked_sub(self.max_failures)?;
        let factor = 1_i64.checked_shl(over.min(20)).unwrap_or(i64::MAX);
        let secs = self.base_block_secs.saturating_mul(factor).min(self.max_block_secs);
        Some(now + Duration::seconds(secs))
    }

    /// Admits one more attempt against the counter (`None`: never moved), answering its new
    /// state, or refuses it with the moment the refusal ends. A window older than `window_secs`
    /// starts again at one.
    pub fn admit(&self, state: Option<CounterState>, now: DateTime<Utc>) -> Result<CounterState, DateTime<Utc>> {
        if let Some(until) = state.and_then(|s| s.blocked_until).filter(|until| *until > now) {
            return Err(until);
        }
        let window_start = now - Duration::seconds(self.window_secs);
        let (failures, window_started_at) = match state {
            Some(s) if s.window_started_at > window_start => (s.failures.saturating_add(1), s.window_started_at),
            _ => (1, now),
        };
        Ok(CounterState {
            failures,
            window_started_at,
            blocked_until: self.block_until(failures, now),
        })
    }

    /// Takes back one admitted attempt that was not a failure: the count goes down by one, and a
    /// refusal ends when the count is back under the limit.
    pub fn give_back(&self, state: CounterState) -> CounterState {
        let failures = state.failures.saturating_sub(1);
        CounterState {
            failures,
            window_started_at: state.window_started_at,
            blocked_until: state.blocked_until.filter(|_| failures >= self.max_failures),
        }
    }
}

/// The sign-in's three counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottlePolicy {
    /// One account from one address: the guesses of one attacker at one account. Reaching it
    /// refuses that pair only, so the owner signing in from elsewhere is not locked out.
    pub per_pair: Tier,
    /// One account from every address: a distributed guess at one account. Short growing delays
    /// rather than a lock, since anyone could otherwise lock any account out.
    pub per_account: Tier,
    /// One address across every account: credential stuffing.
    pub per_address: Tier,
}

/// The per-account delays: a second, doubling to a minute at most.
pub const ACCOUNT_DELAY_BASE_SECS: i64 = 1;
pub const ACCOUNT_DELAY_MAX_SECS: i64 = 60;

impl ThrottlePolicy {
    /// The policy from the operator's settings: the per-pair limit and its refusals, the
    /// per-account ceiling (with the short delays) and the per-address ceiling (with the pair's
    /// refusals), all over one window.
    pub fn new(
        max_failures: u32,
        max_failures_per_account: u32,
        max_failures_per_address: u32,
        window_secs: i64,
        base_block_secs: i64,
        max_block_secs: i64,
    ) -> Self {
        let refusals = Tier {
            max_failures,
            window_secs,
            base_block_secs,
            max_block_secs,
        };
        Self {
            per_pair: refusals,
            per_account: Tier {
                max_failures: max_failures_per_account,
                base_block_secs: ACCOUNT_DELAY_BASE_SECS,
                max_block_secs: ACCOUNT_DELAY_MAX_SECS,
                ..refusals
            },
            per_address: Tier {
                max_failures: max_failures_per_address,
                ..refusals
            },
        }
    }
}

impl Default for ThrottlePolicy {
    fn default() -> Self {
        Self::new(5, 20, 50, 15 * 60, 30, 15 * 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> Tier {
        ThrottlePolicy::default().per_pair
    }

    #[test]
    fn blocks_from_the_fifth_failure_and_grows_to_a_cap() {
        let p = pair();
        let now = Utc::now();
        assert_eq!(p.block_until(4, now), None);
        assert_eq!(p.block_until(5, now), Some(now + Duration::seconds(30)));
        assert_eq!(p.block_until(6, now), Some(now + Duration::seconds(60)));
        assert_eq!(p.block_until(7, now), Some(now + Duration::seconds(120)));
        assert_eq!(p.block_until(60, now), Some(now + Duration::seconds(900)));
    }

    #[test]
    fn the_attempt_that_reaches_the_limit_is_admitted_and_the_next_refused() {
        let p = pair();
        let now = Utc::now();
        let mut state = None;
        for expected in 1..=5 {
            let next = p.admit(state, now).expect("admitted");
            assert_eq!(next.failures, expected);
            state = Some(next);
        }
        let until = now + Duration::seconds(30);
        assert_eq!(state.and_then(|s| s.blocked_until), Some(until));
        assert_eq!(p.admit(state, now), Err(until));
        // Once the refusal is over one more attempt is admitted, and refused for longer.
        let later = until + Duration::seconds(1);
        let sixth = p.admit(state, later).expect("admitted after the refusal");
        assert_eq!(sixth.failures, 6);
        assert_eq!(sixth.blocked_until, Some(later + Duration::seconds(60)));
    }

    #[test]
    fn an_old_window_starts_again_at_one() {
        let p = pair();
        let now = Utc::now();
        let old = CounterState {
            failures: 4,
            window_started_at: now - Duration::seconds(p.window_secs + 1),
            blocked_until: None,
        };
        let next = p.admit(Some(old), now).expect("admitted");
        assert_eq!(
            (next.failures, next.window_started_at, next.blocked_until),
            (1, now, None)
        );
    }

    #[test]
    fn giving_back_the_attempt_that_reached_the_limit_lifts_the_refusal() {
        let p = pair();
        let now = Utc::now();
        let reached = CounterState {
            failures: 5,
            window_started_at: now,
            blocked_until: Some(now + Duration::seconds(30)),
        };
        let back = p.give_back(reached);
        assert_eq!((back.failures, back.blocked_until), (4, None));
        let over = CounterState { failures: 7, ..reached };
        assert_eq!(p.give_back(over).blocked_until, reached.blocked_until);
    }

    #[test]
    fn the_account_ceiling_delays_for_seconds_not_minutes() {
        let account = ThrottlePolicy::default().per_account;
        let now = Utc::now();
        assert_eq!(account.block_until(19, now), None);
        assert_eq!(account.block_until(20, now), Some(now + Duration::seconds(1)));
        assert_eq!(account.block_until(21, now), Some(now + Duration::seconds(2)));
        assert_eq!(account.block_until(40, now), Some(now + Duration::seconds(60)));
    }
}
