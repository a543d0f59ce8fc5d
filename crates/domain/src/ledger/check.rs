//! `sales-api ledger check`: every contract's entries against the facts its rails recorded, in
//! batches; the nightly pass of every instance runs it once a day (the first to take the day).

use crate::clock::Clock;
use crate::ledger::LedgerDrift;
use crate::ledger::ports::{CheckSummary, LedgerStore};
use crate::store::StoreError;
use chrono::Timelike;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Contracts compared per batch: one statement each, bounded memory over a million.
pub const CHECK_BATCH: i64 = 100_000;
/// The Brasília hour from which the day's check may run.
pub const NIGHTLY_FROM_HOUR: u32 = 2;
/// Drifts kept in a report (the count is always whole).
pub const DRIFTS_LISTED: usize = 1_000;

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LedgerReport {
    pub contracts: u64,
    /// The first [`DRIFTS_LISTED`] drifts, by proposal.
    pub drifts: Vec<LedgerDrift>,
    /// How many drifts in all.
    pub drift_count: u64,
    /// How many contracts have one.
    pub drifted_contracts: u64,
    /// Missing entries entered (only when mending).
    pub entered: u64,
}

impl LedgerReport {
    /// Drift left after the check: with `mend`, only what entering could not mend (an entry
    /// without its fact, or at another amount).
    pub fn remaining(&self, mended: bool) -> u64 {
        if mended {
            self.drift_count.saturating_sub(self.entered)
        } else {
            self.drift_count
        }
    }

    pub fn summary(&self) -> CheckSummary {
        CheckSummary {
            contracts: self.contracts,
            drifted_contracts: self.drifted_contracts,
            entered: self.entered,
        }
    }
}

#[derive(Clone)]
pub struct LedgerCheck {
    pub store: Arc<dyn LedgerStore>,
    pub clock: Arc<dyn Clock>,
}

impl LedgerCheck {
    /// Compares every contract; with `mend`, enters what a fact lacks.
    pub async fn run(&self, mend: bool) -> Result<LedgerReport, StoreError> {
        let mut report = LedgerReport::default();
        let mut drifted = BTreeSet::new();
        let mut after = 0;
        loop {
            let batch = self.store.check_batch(after, CHECK_BATCH, mend).await?;
            report.contracts += batch.contracts;
            report.entered += batch.entered;
            for drift in batch.drifts {
                report.drift_count += 1;
                drifted.insert(drift.proposal_id);
                if report.drifts.len() < DRIFTS_LISTED {
                    report.drifts.push(drift);
                }
            }
            match batch.last {
                Some(last) => after = last,
                None => break,
            }
        }
        report.drifted_contracts = drifted.len() as u64;
        Ok(report)
    }

    /// The nightly pass: the day's check by the first instance to take it (report only: what
    /// drifts is for a person to read), its summary kept for the metric. `None` when another
    /// instance has the day.
    pub async fn nightly(&self) -> Result<Option<LedgerReport>, StoreError> {
        let now = self.clock.now();
        let day = crate::billing::brasilia_day(now);
        // At night in Brasília, after the day's payments and returns are in.
        if now.with_timezone(&crate::contract::formats::brasilia()).hour() < NIGHTLY_FROM_HOUR {
            return Ok(None);
        }
        if !self.store.begin_daily_check(day, now).await? {
            return Ok(None);
        }
        let report = self.run(false).await?;
        self.store
            .finish_daily_check(day, report.summary(), self.clock.now())
            .await?;
        Ok(Some(report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::ports::{CheckedBatch, MockLedgerStore};
    use crate::ledger::{EntryKind, EntrySource};
    use chrono::{TimeZone, Utc};

    fn drift(proposal_id: i64) -> LedgerDrift {
        LedgerDrift {
            proposal_id,
            identifier: format!("P{proposal_id}"),
            source: EntrySource {
                origin: "cobranca".into(),
                id: proposal_id.to_string(),
                kind: EntryKind::Received,
            },
            ledger: None,
            fact: Some(4990),
        }
    }

    fn clock() -> Arc<dyn Clock> {
        let mut clock = crate::clock::MockClock::new();
        clock
            .expect_now()
            .returning(|| Utc.with_ymd_and_hms(2026, 12, 5, 5, 30, 0).unwrap());
        Arc::new(clock)
    }

    #[tokio::test]
    async fn every_batch_is_read_and_drift_counted_by_contract() {
        let mut store = MockLedgerStore::new();
        let mut batches = vec![
            CheckedBatch {
                contracts: 100_000,
                last: Some(100_000),
                drifts: vec![drift(7), drift(7), drift(9)],
                entered: 0,
            },
            CheckedBatch {
                contracts: 2,
                last: Some(100_002),
                drifts: vec![drift(100_001)],
                entered: 0,
            },
            CheckedBatch::default(),
        ]
        .into_iter();
        let mut expected_after = vec![0, 100_000, 100_002].into_iter();
        store
            .expect_check_batch()
            .times(3)
            .returning(move |after, limit, mend| {
                assert!(!mend);
                assert_eq!(limit, CHECK_BATCH);
                assert_eq!(Some(after), expected_after.next(), "each batch starts after the last");
                Ok(batches.next().unwrap_or_default())
            });
        let check = LedgerCheck {
            store: Arc::new(store),
            clock: clock(),
        };
        let report = check.run(false).await.unwrap();
        assert_eq!(report.contracts, 100_002);
        assert_eq!(report.drift_count, 4);
        assert_eq!(report.drifted_contracts, 3);
        assert_eq!(report.remaining(false), 4);
    }

    #[tokio::test]
    async fn the_nightly_pass_waits_for_the_night() {
        let mut clock = crate::clock::MockClock::new();
        // 01:30 in Brasília.
        clock
            .expect_now()
            .returning(|| Utc.with_ymd_and_hms(2026, 12, 5, 4, 30, 0).unwrap());
        let check = LedgerCheck {
            store: Arc::new(MockLedgerStore::new()),
            clock: Arc::new(clock),
        };
        assert_eq!(check.nightly().await.unwrap(), None);
    }

    #[tokio::test]
    async fn the_nightly_pass_runs_once_a_day_and_keeps_its_summary() {
        let mut store = MockLedgerStore::new();
        store
            .expect_begin_daily_check()
            .withf(|day, _| day.to_string() == "2026-12-05")
            .times(1)
            .returning(|_, _| Ok(false));
        let check = LedgerCheck {
            store: Arc::new(store),
            clock: clock(),
        };
        assert_eq!(check.nightly().await.unwrap(), None, "another instance has the day");

        let mut store = MockLedgerStore::new();
        store.expect_begin_daily_check().returning(|_, _| Ok(true));
        store
            .expect_check_batch()
            .returning(|_, _, _| Ok(CheckedBatch::default()));
        store
            .expect_finish_daily_check()
            .withf(|_, summary, _| summary.contracts == 0 && summary.drifted_contracts == 0)
            .times(1)
            .returning(|_, _, _| Ok(()));
        let check = LedgerCheck {
            store: Arc::new(store),
            clock: clock(),
        };
        assert!(check.nightly().await.unwrap().is_some());
    }
}
