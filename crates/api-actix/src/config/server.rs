//! The HTTP server: where it listens, who may call it from a browser, whose forwarded addresses it
//! believes, how it starts and stops, and in which environment it runs.

use super::{ConfigError, bad, networks, split_list};
use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    sales_env: Option<String>,
    #[serde(default = "bind_addr")]
    bind_addr: String,
    public_url: Option<String>,
    workers: Option<usize>,
    #[serde(default = "shutdown_timeout_secs")]
    shutdown_timeout_secs: u64,
    #[serde(default = "max_body_bytes")]
    max_body_bytes: usize,
    #[serde(default = "body_read_timeout_ms")]
    body_read_timeout_ms: u64,
    #[serde(default)]
    cors_allowed_origins: String,
    #[serde(default)]
    trusted_proxies: String,
    #[serde(default)]
    log_json: bool,
    #[serde(default = "yes")]
    migrate_on_start: bool,
    metrics_addr: Option<String>,
    otel_exporter_otlp_endpoint: Option<String>,
    otel_service_name: Option<String>,
    rate_limit_requests_per_minute: Option<NumberOrWord>,
    #[serde(default = "rate_limit_sync_ms")]
    rate_limit_sync_ms: u64,
    #[serde(default = "rate_limit_max_keys")]
    rate_limit_max_keys: u64,
}

/// A variable that takes a number or a word (`off`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum NumberOrWord {
    Number(u64),
    Word(String),
}

/// Requests a caller may make per minute unless `RATE_LIMIT_REQUESTS_PER_MINUTE` says otherwise.
pub const DEFAULT_REQUESTS_PER_MINUTE: u64 = 600;
/// How often an instance adds its counts to the shared ones: the error bound's unit.
fn rate_limit_max_keys() -> u64 {
    100_000
}
fn rate_limit_sync_ms() -> u64 {
    250
}

fn bind_addr() -> String {
    "127.0.0.1:8080".into()
}
/// Where metrics are served when `METRICS_ADDR` is not set.
pub const DEFAULT_METRICS_ADDR: &str = "127.0.0.1:9464";
fn shutdown_timeout_secs() -> u64 {
    30
}
fn max_body_bytes() -> usize {
    256 * 1024
}
/// A body sent at a normal pace arrives in well under a second; one trickled byte by byte holds a
/// connection and a worker's buffer for as long as the sender likes.
fn body_read_timeout_ms() -> u64 {
    5_000
}
fn yes() -> bool {
    true
}

/// The HTTP server and the process: where it listens, who may call it, how it starts and stops.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub environment: Environment,
    pub bind_addr: SocketAddr,
    pub public_url: String,
    pub workers: usize,
    pub shutdown_timeout: Duration,
    pub max_body_bytes: usize,
    pub body_read_timeout: Duration,
    pub cors_allowed_origins: Vec<String>,
    pub trusted_proxies: Vec<IpNet>,
    pub log_json: bool,
    pub migrate_on_start: bool,
    pub metrics_addr: Option<SocketAddr>,
    pub metrics_addr_given: bool,
    pub otlp_endpoint: Option<String>,
    pub otel_service_name: String,
    pub rate_limit: Option<RateLimitSettings>,
}

/// Requests per caller and minute, across every instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitSettings {
    /// `RATE_LIMIT_REQUESTS_PER_MINUTE` (600; `off`: no limit).
    pub per_minute: u64,
    /// `RATE_LIMIT_SYNC_MS`: how often an instance adds its counts to the shared ones (250).
    pub sync_interval: Duration,
    /// `RATE_LIMIT_MAX_KEYS`: the most callers' windows an instance keeps in memory (100,000).
    pub max_keys: usize,
}

impl Raw {
    /// Checks the variables and completes those not set with the values in effect (shown by
    /// `config check`).
    pub(super) fn check(&mut self, cores: usize) -> Result<ServerSettings, ConfigError> {
        let environment = Environment::parse(self.sales_env.as_deref())?;
        let bind_addr: SocketAddr = self.bind_addr.parse().map_err(|e| bad("BIND_ADDR", e))?;
        let public_url = match self.public_url.as_deref() {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                url.trim_end_matches('/').to_owned()
            }
            Some(_) => return Err(bad("PUBLIC_URL", "deve começar com http:// ou https://")),
            None => format!("http://{bind_addr}"),
        };
        let cors_allowed_origins = split_list(&self.cors_allowed_origins);
        for origin in &cors_allowed_origins {
            if origin != "*" && !(origin.starts_with("http://") || origin.starts_with("https://")) {
                return Err(bad("CORS_ALLOWED_ORIGINS", format!("origem inválida: {origin}")));
            }
        }
        if self.max_body_bytes < 1024 {
            return Err(bad("MAX_BODY_BYTES", "deve ser ao menos 1024"));
        }
        if self.body_read_timeout_ms < 100 {
            return Err(bad("BODY_READ_TIMEOUT_MS", "deve ser ao menos 100"));
        }
        // `off` turns the listener off (an empty value is unset, as for every variable).
        let metrics_addr_given = self.metrics_addr.is_some();
        let metrics_addr = match self.metrics_addr.as_deref().unwrap_or(DEFAULT_METRICS_ADDR).trim() {
            "off" => None,
            addr => Some(
                addr.parse::<SocketAddr>()
                    .map_err(|e| bad("METRICS_ADDR", format!("{e} (ou off)")))?,
            ),
        };
        // Read again from the environment by the telemetry, which starts before the
        // configuration; checked and shown here.
        let otlp_endpoint = match self.otel_exporter_otlp_endpoint.as_deref() {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => Some(url.to_owned()),
            Some(_) => {
                return Err(bad(
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "deve começar com http:// ou https://",
                ));
            }
            None => None,
        };
        let per_minute = match &self.rate_limit_requests_per_minute {
            None => Some(DEFAULT_REQUESTS_PER_MINUTE),
            Some(NumberOrWord::Number(n)) if *n > 0 => Some(*n),
            Some(NumberOrWord::Word(word)) if word.trim() == "off" => None,
            Some(_) => {
                return Err(bad(
                    "RATE_LIMIT_REQUESTS_PER_MINUTE",
                    "deve ser um inteiro positivo ou off",
                ));
            }
        };
        if !(10..=10_000).contains(&self.rate_limit_sync_ms) {
            return Err(bad("RATE_LIMIT_SYNC_MS", "deve ser de 10 a 10000"));
        }
        if !(1_000..=10_000_000).contains(&self.rate_limit_max_keys) {
            return Err(bad("RATE_LIMIT_MAX_KEYS", "deve ser de 1000 a 10000000"));
        }
        let max_keys = usize::try_from(self.rate_limit_max_keys)
            .map_err(|_| bad("RATE_LIMIT_MAX_KEYS", "grande demais para esta máquina"))?;
        let workers = self.workers.unwrap_or(cores).max(1);
        let otel_service_name = self.otel_service_name.clone().unwrap_or_else(|| "sales-api".to_owned());

        // What was not set is shown as the value in effect.
        self.sales_env = Some(environment.as_str().to_owned());
        self.public_url = Some(public_url.clone());
        self.workers = Some(workers);
        self.metrics_addr = Some(metrics_addr.map_or_else(|| "off".to_owned(), |a| a.to_string()));
        self.otel_service_name = Some(otel_service_name.clone());
        self.rate_limit_requests_per_minute = Some(match per_minute {
            Some(n) => NumberOrWord::Number(n),
            None => NumberOrWord::Word("off".to_owned()),
        });

        Ok(ServerSettings {
            environment,
            bind_addr,
            public_url,
            workers,
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout_secs),
            max_body_bytes: self.max_body_bytes,
            body_read_timeout: Duration::from_millis(self.body_read_timeout_ms),
            cors_allowed_origins,
            trusted_proxies: networks("TRUSTED_PROXIES", &self.trusted_proxies)?,
            log_json: self.log_json,
            migrate_on_start: self.migrate_on_start,
            metrics_addr_given,
            metrics_addr,
            otlp_endpoint,
            otel_service_name,
            rate_limit: per_minute.map(|per_minute| RateLimitSettings {
                per_minute,
                sync_interval: Duration::from_millis(self.rate_limit_sync_ms),
                max_keys,
            }),
        })
    }
}

/// Production (the default) or development, from `SALES_ENV`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    /// Real providers only; every secret shared by all instances.
    Production,
    /// Sandboxes and generated keys are allowed (the run and test commands).
    Development,
}

impl Environment {
    /// `production` (also when unset) or `development`.
    pub fn parse(value: Option<&str>) -> Result<Self, ConfigError> {
        match value.map(str::trim) {
            None | Some("production") => Ok(Environment::Production),
            Some("development") => Ok(Environment::Development),
            Some(other) => Err(bad(
                "SALES_ENV",
                format!("deve ser production ou development (recebido: {other})"),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Production => "production",
            Environment::Development => "development",
        }
    }
}
