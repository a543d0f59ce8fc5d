//! Event subscriptions and their delivery: where webhooks may go, the keys of their secrets at rest,
//! time-outs, the retry schedule, limits in flight, leases, retention.

use super::{ConfigError, bad, masked, networks, parse_key, split_list, text_or_number};
use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(default)]
    hooks_allowed_cidrs: String,
    #[serde(serialize_with = "masked::secret")]
    hooks_encryption_key: Option<String>,
    #[serde(default, serialize_with = "masked::key_list")]
    hooks_previous_encryption_keys: String,
    #[serde(default = "retry_schedule_secs", deserialize_with = "text_or_number")]
    hooks_retry_schedule_secs: String,
    #[serde(default = "connect_timeout_ms")]
    hooks_connect_timeout_ms: u64,
    #[serde(default = "request_timeout_ms")]
    hooks_request_timeout_ms: u64,
    #[serde(default = "max_in_flight_per_subscription")]
    hooks_max_in_flight_per_subscription: usize,
    #[serde(default = "max_in_flight")]
    hooks_max_in_flight: usize,
    #[serde(default = "max_in_flight_per_owner")]
    hooks_max_in_flight_per_owner: usize,
    #[serde(default = "max_subscriptions_per_owner")]
    hooks_max_subscriptions_per_owner: usize,
    #[serde(default = "replay_max_deliveries")]
    hooks_replay_max_deliveries: u64,
    #[serde(default = "lease_secs")]
    hooks_lease_secs: u64,
    #[serde(default = "poll_interval_ms")]
    hooks_poll_interval_ms: u64,
    #[serde(default = "rotation_grace_secs")]
    hooks_rotation_grace_secs: u64,
    #[serde(default = "disable_after_secs")]
    hooks_disable_after_secs: u64,
    #[serde(default = "retention_days")]
    hooks_retention_days: u64,
    #[serde(default = "max_retry_after_secs")]
    hooks_max_retry_after_secs: u64,
    #[serde(default = "yes")]
    hooks_worker: bool,
}

/// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts in all.
fn retry_schedule_secs() -> String {
    "5,300,1800,7200,18000,36000,50400,72000,86400".into()
}
fn connect_timeout_ms() -> u64 {
    5_000
}
fn request_timeout_ms() -> u64 {
    15_000
}
fn max_in_flight_per_subscription() -> usize {
    16
}
fn max_in_flight() -> usize {
    256
}
/// An eighth of an instance's slots: eight owners with failing receivers still leave half free.
fn max_in_flight_per_owner() -> usize {
    32
}
fn max_subscriptions_per_owner() -> usize {
    20
}
fn replay_max_deliveries() -> u64 {
    10_000
}
fn lease_secs() -> u64 {
    60
}
fn poll_interval_ms() -> u64 {
    1_000
}
fn rotation_grace_secs() -> u64 {
    24 * 3600
}
fn disable_after_secs() -> u64 {
    5 * 24 * 3600
}
fn retention_days() -> u64 {
    30
}
fn max_retry_after_secs() -> u64 {
    3600
}
fn yes() -> bool {
    true
}

/// Event subscriptions and their delivery.
#[derive(Clone)]
pub struct HookSettings {
    /// Ranges a webhook may reach although not public (`HOOKS_ALLOWED_CIDRS`).
    pub allowed_cidrs: Vec<IpNet>,
    /// Key that encrypts signing secrets at rest; unset: refused in production, a generated key
    /// file in development.
    pub encryption_key: Option<[u8; 32]>,
    /// Earlier keys, still able to open what they sealed (rotation).
    pub previous_encryption_keys: Vec<[u8; 32]>,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub rotation_grace: Duration,
    /// Subscriptions one owner may keep (`HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER`).
    pub max_subscriptions_per_owner: usize,
    /// The most deliveries one replay queues (`HOOKS_REPLAY_MAX_DELIVERIES`).
    pub replay_max_deliveries: i64,
    pub delivery: domain::hooks::DeliveryPolicy,
    /// Whether `serve` runs a delivery engine beside the HTTP server.
    pub run_worker: bool,
}

impl std::fmt::Debug for HookSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookSettings")
            .field("allowed_cidrs", &self.allowed_cidrs)
            .field("encryption_key", &self.encryption_key.map(|_| "***"))
            .field("previous_encryption_keys", &self.previous_encryption_keys.len())
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("rotation_grace", &self.rotation_grace)
            .field("max_subscriptions_per_owner", &self.max_subscriptions_per_owner)
            .field("replay_max_deliveries", &self.replay_max_deliveries)
            .field("delivery", &self.delivery)
            .field("run_worker", &self.run_worker)
            .finish()
    }
}

impl Raw {
    pub(super) fn check(&self) -> Result<HookSettings, ConfigError> {
        let allowed_cidrs = networks("HOOKS_ALLOWED_CIDRS", &self.hooks_allowed_cidrs)?;
        let encryption_key = self
            .hooks_encryption_key
            .as_deref()
            .map(|text| parse_key("HOOKS_ENCRYPTION_KEY", text))
            .transpose()?;
        let previous_encryption_keys = split_list(&self.hooks_previous_encryption_keys)
            .iter()
            .map(|text| parse_key("HOOKS_PREVIOUS_ENCRYPTION_KEYS", text))
            .collect::<Result<Vec<_>, _>>()?;
        let retry_schedule = split_list(&self.hooks_retry_schedule_secs)
            .iter()
            .map(|s| s.parse::<u64>().map(Duration::from_secs))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| {
                bad(
                    "HOOKS_RETRY_SCHEDULE_SECS",
                    "deve ser uma lista de segundos separados por vírgula",
                )
            })?;
        let request_timeout = Duration::from_millis(self.hooks_request_timeout_ms);
        let lease = Duration::from_secs(self.hooks_lease_secs);
        for (var, value) in [
            ("HOOKS_CONNECT_TIMEOUT_MS", self.hooks_connect_timeout_ms),
            ("HOOKS_REQUEST_TIMEOUT_MS", self.hooks_request_timeout_ms),
            ("HOOKS_POLL_INTERVAL_MS", self.hooks_poll_interval_ms),
            ("HOOKS_RETENTION_DAYS", self.hooks_retention_days),
            ("HOOKS_MAX_IN_FLIGHT", self.hooks_max_in_flight as u64),
            (
                "HOOKS_MAX_IN_FLIGHT_PER_OWNER",
                self.hooks_max_in_flight_per_owner as u64,
            ),
            (
                "HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER",
                self.hooks_max_subscriptions_per_owner as u64,
            ),
            (
                "HOOKS_MAX_IN_FLIGHT_PER_SUBSCRIPTION",
                self.hooks_max_in_flight_per_subscription as u64,
            ),
            ("HOOKS_REPLAY_MAX_DELIVERIES", self.hooks_replay_max_deliveries),
        ] {
            if value == 0 {
                return Err(bad(var, "deve ser ao menos 1"));
            }
        }
        // A lease shorter than a request would let a second worker send the attempt again.
        if lease <= request_timeout {
            return Err(bad("HOOKS_LEASE_SECS", "deve ser maior que HOOKS_REQUEST_TIMEOUT_MS"));
        }
        Ok(HookSettings {
            allowed_cidrs,
            encryption_key,
            previous_encryption_keys,
            connect_timeout: Duration::from_millis(self.hooks_connect_timeout_ms),
            request_timeout,
            rotation_grace: Duration::from_secs(self.hooks_rotation_grace_secs),
            max_subscriptions_per_owner: self.hooks_max_subscriptions_per_owner,
            replay_max_deliveries: i64::try_from(self.hooks_replay_max_deliveries)
                .map_err(|_| bad("HOOKS_REPLAY_MAX_DELIVERIES", "grande demais"))?,
            run_worker: self.hooks_worker,
            delivery: domain::hooks::DeliveryPolicy {
                retry_schedule,
                lease,
                max_in_flight_per_subscription: self.hooks_max_in_flight_per_subscription,
                max_in_flight: self.hooks_max_in_flight,
                max_in_flight_per_owner: self.hooks_max_in_flight_per_owner,
                poll_interval: Duration::from_millis(self.hooks_poll_interval_ms),
                retention: Duration::from_secs(self.hooks_retention_days * 24 * 3600),
                disable_after: Duration::from_secs(self.hooks_disable_after_secs),
                max_retry_after: Duration::from_secs(self.hooks_max_retry_after_secs),
                ..domain::hooks::DeliveryPolicy::default()
            },
        })
    }
}
