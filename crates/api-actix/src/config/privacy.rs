//! The periods the privacy rules keep personal data for (issue 47).

use super::Environment;
use super::{ConfigError, bad};
use domain::privacy::hold::HoldPolicy;
use domain::privacy::notice::PrivacyContacts;
use domain::privacy::retention::RetentionSchedule;
use domain::values::{Cnpj, Email};
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
    // Who answers for the person's data (decision 286): all six or none; production refuses none.
    privacy_controller_name: Option<String>,
    privacy_controller_cnpj: Option<String>,
    privacy_controller_address: Option<String>,
    privacy_dpo_name: Option<String>,
    privacy_dpo_email: Option<String>,
    privacy_dpo_channel: Option<String>,
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

/// What is kept and for how long, and who answers for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivacySettings {
    /// A contract's records after it ends (`RETENTION_CONTRACT_YEARS`): the legal hold.
    pub hold: HoldPolicy,
    /// Unconcluded sales' data (`RETENTION_UNCONCLUDED_DAYS`, `RETENTION_HEALTH_UNCONCLUDED_DAYS`)
    /// and the hold, as the schedule applies them.
    pub schedule: RetentionSchedule,
    /// How often each instance applies the schedule (`RETENTION_CHECK_INTERVAL_MS`).
    pub retention_check_interval: Duration,
    /// The controller and the encarregado the notice names (`PRIVACY_CONTROLLER_*`,
    /// `PRIVACY_DPO_*`); `None` when unset, which production refuses.
    pub contacts: Option<PrivacyContacts>,
}

impl PrivacySettings {
    /// The contacts the documents print: the configured ones, or, in development only, its
    /// stand-ins; production without them prints nothing (every process that prints refuses).
    pub fn contacts(&self, environment: Environment) -> Result<PrivacyContacts, ConfigError> {
        match (&self.contacts, environment) {
            (Some(contacts), _) => Ok(contacts.clone()),
            (None, Environment::Development) => Ok(PrivacyContacts::development()),
            (None, _) => Err(bad(
                "PRIVACY_CONTROLLER_*, PRIVACY_DPO_*",
                "ausentes: em produção o aviso de privacidade nomeia o controlador e o encarregado",
            )),
        }
    }
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
        let contacts = self.contacts()?;
        Ok(PrivacySettings {
            hold,
            schedule: RetentionSchedule {
                unconcluded_days: self.retention_unconcluded_days,
                health_days: self.retention_health_unconcluded_days,
                hold,
            },
            retention_check_interval: Duration::from_millis(self.retention_check_interval_ms),
            contacts,
        })
    }

    /// The six contact variables: none set, `None`; all set and each valid, the contacts; some
    /// set, the missing ones named.
    fn contacts(&self) -> Result<Option<PrivacyContacts>, ConfigError> {
        let given = [
            ("PRIVACY_CONTROLLER_NAME", &self.privacy_controller_name),
            ("PRIVACY_CONTROLLER_CNPJ", &self.privacy_controller_cnpj),
            ("PRIVACY_CONTROLLER_ADDRESS", &self.privacy_controller_address),
            ("PRIVACY_DPO_NAME", &self.privacy_dpo_name),
            ("PRIVACY_DPO_EMAIL", &self.privacy_dpo_email),
            ("PRIVACY_DPO_CHANNEL", &self.privacy_dpo_channel),
        ];
        let missing: Vec<&str> = given.iter().filter(|(_, v)| v.is_none()).map(|(n, _)| *n).collect();
        if missing.len() == given.len() {
            return Ok(None);
        }
        if !missing.is_empty() {
            return Err(bad(
                &missing.join(", "),
                "ausente: o controlador e o encarregado são configurados juntos (PRIVACY_CONTROLLER_*, PRIVACY_DPO_*)",
            ));
        }
        let value = |v: &Option<String>| v.clone().unwrap_or_default();
        let text = |name: &str, v: &Option<String>| PrivacyContacts::text(&value(v)).map_err(|r| bad(name, r.message));
        Ok(Some(PrivacyContacts {
            controller_name: text("PRIVACY_CONTROLLER_NAME", &self.privacy_controller_name)?,
            controller_cnpj: Cnpj::parse(&value(&self.privacy_controller_cnpj))
                .map_err(|r| bad("PRIVACY_CONTROLLER_CNPJ", r.message))?,
            controller_address: text("PRIVACY_CONTROLLER_ADDRESS", &self.privacy_controller_address)?,
            dpo_name: text("PRIVACY_DPO_NAME", &self.privacy_dpo_name)?,
            dpo_email: Email::parse(&value(&self.privacy_dpo_email))
                .map_err(|r| bad("PRIVACY_DPO_EMAIL", r.message))?,
            dpo_channel: text("PRIVACY_DPO_CHANNEL", &self.privacy_dpo_channel)?,
        }))
    }
}
