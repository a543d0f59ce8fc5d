//! The periods the privacy rules keep personal data for (issue 47).

use super::{ConfigError, bad};
use domain::privacy::hold::HoldPolicy;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(default = "retention_contract_years")]
    retention_contract_years: u32,
}

/// Five years after a contract ends: Lei 9.613/1998, art. 10, and Circular SUSEP 612/2020.
fn retention_contract_years() -> u32 {
    HoldPolicy::default().contract_years
}

/// What is kept and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrivacySettings {
    /// A contract's records after it ends (`RETENTION_CONTRACT_YEARS`): the legal hold.
    pub hold: HoldPolicy,
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
        Ok(PrivacySettings {
            hold: HoldPolicy {
                contract_years: self.retention_contract_years,
            },
        })
    }
}
