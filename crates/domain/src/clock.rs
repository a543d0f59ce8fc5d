//! Time is a port, so that rules about "now" (future dates, expiries, throttling, the acceptance
//! clock) are testable.

use crate::store::StoreError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::atomic::{AtomicI64, Ordering};

#[cfg_attr(feature = "mock", mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The machine's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that can be moved forward: in development only, so that the 7 days of regret and the
/// acceptance deadlines can be lived through by a test or a person trying the service (`POST
/// /sandbox/clock`). It runs with the machine's clock, shifted. The shift is kept by a
/// [`ClockShiftStore`] (the database), so that every instance, the worker and the command line
/// judge by the same time: each holds a copy that [`ShiftedClock::refresh`] reads again.
#[derive(Debug, Default)]
pub struct ShiftedClock {
    shift_seconds: AtomicI64,
}

impl ShiftedClock {
    /// Moves this copy of the clock `days` ahead of the machine's (0: back to the machine's time).
    pub fn set_days_ahead(&self, days: i64) {
        self.shift_seconds.store(days.saturating_mul(86_400), Ordering::Relaxed);
    }

    pub fn days_ahead(&self) -> i64 {
        self.shift_seconds.load(Ordering::Relaxed) / 86_400
    }

    /// Moves the shared clock (the store first, then this copy).
    pub async fn move_to(&self, store: &dyn ClockShiftStore, days: i64) -> Result<(), StoreError> {
        store.store_shift(days.saturating_mul(86_400)).await?;
        self.set_days_ahead(days);
        Ok(())
    }

    /// Reads the shared shift again into this copy.
    pub async fn refresh(&self, store: &dyn ClockShiftStore) -> Result<(), StoreError> {
        let seconds = store.shift_seconds().await?;
        self.shift_seconds.store(seconds, Ordering::Relaxed);
        Ok(())
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + chrono::Duration::seconds(self.shift_seconds.load(Ordering::Relaxed))
    }
}

/// A clock read afresh before each reading, for a process that does not keep a copy of the
/// shared shift up to date (the command line): the machine's, or in development the shift every
/// process shares, read again from its store.
#[derive(Clone)]
pub struct FreshClock {
    clock: std::sync::Arc<dyn Clock>,
    shared: Option<(std::sync::Arc<ShiftedClock>, std::sync::Arc<dyn ClockShiftStore>)>,
}

impl FreshClock {
    /// A clock that needs no refreshing (the machine's, or a test's).
    pub fn fixed(clock: std::sync::Arc<dyn Clock>) -> Self {
        Self { clock, shared: None }
    }

    /// The development clock, its shift read from `store` before each reading.
    pub fn shared(clock: std::sync::Arc<ShiftedClock>, store: std::sync::Arc<dyn ClockShiftStore>) -> Self {
        Self {
            clock: clock.clone(),
            shared: Some((clock, store)),
        }
    }

    pub async fn now(&self) -> Result<DateTime<Utc>, StoreError> {
        if let Some((clock, store)) = &self.shared {
            clock.refresh(store.as_ref()).await?;
        }
        Ok(self.clock.now())
    }
}

/// Where the development clock's shift is kept, shared by every process of the service.
#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait ClockShiftStore: Send + Sync {
    async fn shift_seconds(&self) -> Result<i64, StoreError>;
    async fn store_shift(&self, seconds: i64) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_shifted_clock_moves_through_its_store_and_a_copy_reads_it_back() {
        let mut store = MockClockShiftStore::new();
        store
            .expect_store_shift()
            .withf(|s| *s == 3 * 86_400)
            .times(1)
            .returning(|_| Ok(()));
        store.expect_shift_seconds().returning(|| Ok(5 * 86_400));
        let clock = ShiftedClock::default();
        clock.move_to(&store, 3).await.unwrap();
        assert_eq!(clock.days_ahead(), 3);
        let other_instance = ShiftedClock::default();
        other_instance.refresh(&store).await.unwrap();
        assert_eq!(other_instance.days_ahead(), 5);
        assert!(other_instance.now() - Utc::now() > chrono::Duration::days(4));
    }
}
