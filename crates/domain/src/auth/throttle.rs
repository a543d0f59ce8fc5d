//! How many failed sign-ins are tolerated, and for how long a key is then refused.

use chrono::{DateTime, Duration, Utc};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottlePolicy {
    /// Failures within the window from which the key is refused.
    pub max_failures: u32,
    pub window_secs: i64,
    /// The first refusal; each further failure doubles it, up to `max_block_secs`.
    pub base_block_secs: i64,
    pub max_block_secs: i64,
}

impl Default for ThrottlePolicy {
    fn default() -> Self {
        Self {
            max_failures: 5,
            window_secs: 15 * 60,
            base_block_secs: 30,
            max_block_secs: 15 * 60,
        }
    }
}

impl ThrottlePolicy {
    /// When a key with `failures` in its window is blocked until, if at all.
    pub fn block_until(&self, failures: u32, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let over = failures.checked_sub(self.max_failures)?;
        let factor = 1_i64.checked_shl(over.min(20)).unwrap_or(i64::MAX);
        let secs = self.base_block_secs.saturating_mul(factor).min(self.max_block_secs);
        Some(now + Duration::seconds(secs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_from_the_fifth_failure_and_grows_to_a_cap() {
        let p = ThrottlePolicy::default();
        let now = Utc::now();
        assert_eq!(p.block_until(4, now), None);
        assert_eq!(p.block_until(5, now), Some(now + Duration::seconds(30)));
        assert_eq!(p.block_until(6, now), Some(now + Duration::seconds(60)));
        assert_eq!(p.block_until(7, now), Some(now + Duration::seconds(120)));
        assert_eq!(p.block_until(60, now), Some(now + Duration::seconds(900)));
    }
}
