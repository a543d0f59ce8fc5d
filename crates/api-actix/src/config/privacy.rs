//! The periods the privacy rules keep personal data for (issue 47).

use super::{ConfigError, bad};
use domain::privacy::hold::HoldPolicy;
use domain::privacy::retention::RetentionSchedule;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(default = "retention_contract_years")]
    retention_contract_years: u32,
    #[serde(default = "retention_unconcluded_days")]
    retention_unconcluded_days: u32,
    #[serde(default = "retention_health_unconcluded_days")]
    retention_health_unconcluded_days: u32,
    #[serde(default = "retention_check_interval_ms")]
    retention_check_interval_ms: u64,
}

/// Five years after a contract ends: Lei 9.613/1998, art. 10, and Circular SUSEP 612/2020.
fn retention_contract_years() -> u32 {
    HoldPolicy::default().contract_years
}

fn retention_unconcluded_days() -> u32 {
    RetentionSchedule::default().unconcluded_days
}

fn retention_health_unconcluded_days() -> u32 {
    RetentionSchedule::default().health_days
}

/// Hourly: the schedule counts in days.
fn retention_check_interval_ms() -> u64 {
    3_600_000
}

/// What is kept and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrivacySettings {
    /// A contract's records after it ends (`RETENTION_CONTRACT_YEARS`): the legal hold.
    pub hold: HoldPolicy,
    /// Unconcluded sales' data (`RETENTION_UNCONCLUDED_DAYS`, `RETENTION_HEALTH_UNCONCLUDED_DAYS`)
    /// and the hold, as the schedule applies them.
    pub schedule: RetentionSchedule,
    /// How often each instance applies the schedule (`RETENTION_CHECK_INTERVAL_MS`).
    pub retention_check_interval: Duration,
}

impl Raw {
    pub(super) fn check(&self) -> Result<PrivacySettings, ConfigError> {
        // The law's five years are a floor; past a century a date is no longer a hold's end.
        if !(5..=100).contains(&self.retention_contract_years) {
            return Err(bad(
                "RETENTION_CONTRACT_YEARS",
                "deve estar entre 5 (o mínimo legal) e 100",
            ));
        }
        // Ten years is already past any claim an unconcluded sale could support.
        if !(1..=3650).contains(&self.retention_unconcluded_days) {
            return Err(bad("RETENTION_UNCONCLUDED_DAYS", "deve estar entre 1 e 3650"));
        }
        // Health data (LGPD art. 11) never outlives the rest of the sale's data.
        if !(1..=self.retention_unconcluded_days).contains(&self.retention_health_unconcluded_days) {
            return Err(bad(
                "RETENTION_HEALTH_UNCONCLUDED_DAYS",
                "deve estar entre 1 e RETENTION_UNCONCLUDED_DAYS",
            ));
        }
        if self.retention_check_interval_ms < 1000 {
            return Err(bad("RETENTION_CHECK_INTERVAL_MS", "deve ser ao menos 1000"));
        }
        let hold = HoldPolicy {
            contract_years: self.retention_contract_years,
        };
        Ok(PrivacySettings {
            hold,
            schedule: RetentionSchedule {
                unconcluded_days: self.retention_unconcluded_days,
                health_days: self.retention_health_unconcluded_days,
                hold,
            },
            retention_check_interval: Duration::from_millis(self.retention_check_interval_ms),
        })
    }
}
