//! Configuration from environment variables. Every variable, its default and its meaning is listed
//! in README.md and `.env.example`; a missing or bad required value stops start-up naming it.

use figment::Figment;
use figment::providers::Env;
use ipnet::IpNet;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The raw variables, lower-cased by figment (`DATABASE_URL` is `database_url`).
#[derive(Debug, Deserialize)]
struct RawConfig {
    sales_env: Option<String>,
    database_url: String,
    #[serde(default = "defaults::bind_addr")]
    bind_addr: String,
    public_url: Option<String>,
    #[serde(default = "defaults::bcrypt_cost")]
    bcrypt_cost: u32,
    bcrypt_max_concurrent: Option<usize>,
    jwt_private_key_file: Option<PathBuf>,
    #[serde(default)]
    jwt_previous_public_key_files: String,
    #[serde(default = "defaults::jwt_issuer")]
    jwt_issuer: String,
    #[serde(default = "defaults::jwt_audience")]
    jwt_audience: String,
    #[serde(default)]
    log_json: bool,
    #[serde(default = "defaults::pool_max_size")]
    db_pool_max_size: usize,
    #[serde(default = "defaults::pool_wait_timeout_ms")]
    db_pool_wait_timeout_ms: u64,
    #[serde(default = "defaults::connect_timeout_ms")]
    db_connect_timeout_ms: u64,
    #[serde(default = "defaults::statement_timeout_ms")]
    db_statement_timeout_ms: u64,
    #[serde(default = "defaults::yes")]
    migrate_on_start: bool,
    #[serde(default)]
    cors_allowed_origins: String,
    #[serde(default)]
    trusted_proxies: String,
    #[serde(default = "defaults::max_body_bytes")]
    max_body_bytes: usize,
    #[serde(default = "defaults::signin_max_failures")]
    signin_max_failures: u32,
    #[serde(default = "defaults::signin_window_secs")]
    signin_window_secs: i64,
    #[serde(default = "defaults::signin_block_secs")]
    signin_block_secs: i64,
    #[serde(default = "defaults::signin_max_block_secs")]
    signin_max_block_secs: i64,
    workers: Option<usize>,
    #[serde(default = "defaults::min_salary_cents")]
    min_salary_cents: i64,
    #[serde(default = "defaults::customer_min_age")]
    customer_min_age: u32,
    #[serde(default = "defaults::customer_max_age")]
    customer_max_age: u32,
    #[serde(default = "defaults::shutdown_timeout_secs")]
    shutdown_timeout_secs: u64,
    smtp_url: Option<String>,
    #[serde(default = "defaults::mail_from")]
    mail_from: String,
    #[serde(default = "defaults::mail_dir")]
    mail_dir: PathBuf,
    password_reset_url: Option<String>,
    #[serde(default = "defaults::password_min_length")]
    password_min_length: usize,
    #[serde(default = "defaults::signature_max_resends")]
    signature_max_resends: i32,
    signature_callback_secret: Option<String>,
    clicksign_base_url: Option<String>,
    payment_webhook_secret: Option<String>,
    stripe_secret_key: Option<String>,
    #[serde(default = "defaults::stripe_api_base")]
    stripe_api_base: String,
    clicksign_access_token: Option<String>,
    #[serde(default = "defaults::recovery_token_ttl_hours")]
    recovery_token_ttl_hours: i64,
    #[serde(default = "defaults::recovery_max_emails_per_hour")]
    recovery_max_emails_per_hour: u32,
    #[serde(default = "defaults::recovery_max_requests_per_address")]
    recovery_max_requests_per_address: u32,
    #[serde(default)]
    hooks_allowed_cidrs: String,
    hooks_encryption_key: Option<String>,
    #[serde(default)]
    hooks_previous_encryption_keys: String,
    #[serde(default = "defaults::hooks_retry_schedule_secs", deserialize_with = "text_or_number")]
    hooks_retry_schedule_secs: String,
    #[serde(default = "defaults::hooks_connect_timeout_ms")]
    hooks_connect_timeout_ms: u64,
    #[serde(default = "defaults::hooks_request_timeout_ms")]
    hooks_request_timeout_ms: u64,
    #[serde(default = "defaults::hooks_max_in_flight_per_subscription")]
    hooks_max_in_flight_per_subscription: usize,
    #[serde(default = "defaults::hooks_max_in_flight")]
    hooks_max_in_flight: usize,
    #[serde(default = "defaults::hooks_lease_secs")]
    hooks_lease_secs: u64,
    #[serde(default = "defaults::hooks_poll_interval_ms")]
    hooks_poll_interval_ms: u64,
    #[serde(default = "defaults::hooks_rotation_grace_secs")]
    hooks_rotation_grace_secs: u64,
    #[serde(default = "defaults::hooks_disable_after_secs")]
    hooks_disable_after_secs: u64,
    #[serde(default = "defaults::hooks_retention_days")]
    hooks_retention_days: u64,
    #[serde(default = "defaults::hooks_max_retry_after_secs")]
    hooks_max_retry_after_secs: u64,
    #[serde(default = "defaults::yes")]
    hooks_worker: bool,
    #[serde(default = "defaults::catalog_cache_entries")]
    catalog_cache_entries: usize,
}

mod defaults {
    pub fn bind_addr() -> String {
        "127.0.0.1:8080".into()
    }
    pub fn bcrypt_cost() -> u32 {
        12
    }
    pub fn jwt_issuer() -> String {
        "sales-api".into()
    }
    pub fn jwt_audience() -> String {
        "sales-api".into()
    }
    pub fn pool_max_size() -> usize {
        16
    }
    pub fn pool_wait_timeout_ms() -> u64 {
        5_000
    }
    pub fn connect_timeout_ms() -> u64 {
        5_000
    }
    pub fn statement_timeout_ms() -> u64 {
        15_000
    }
    pub fn yes() -> bool {
        true
    }
    pub fn max_body_bytes() -> usize {
        256 * 1024
    }
    pub fn signin_max_failures() -> u32 {
        5
    }
    pub fn signin_window_secs() -> i64 {
        15 * 60
    }
    pub fn signin_block_secs() -> i64 {
        30
    }
    pub fn signin_max_block_secs() -> i64 {
        15 * 60
    }
    pub fn min_salary_cents() -> i64 {
        141_200
    }
    pub fn customer_min_age() -> u32 {
        18
    }
    pub fn customer_max_age() -> u32 {
        120
    }
    pub fn mail_from() -> String {
        "Vendas <nao-responda@vendas.local>".into()
    }
    pub fn mail_dir() -> std::path::PathBuf {
        "target/mail".into()
    }
    pub fn password_min_length() -> usize {
        8
    }
    pub fn stripe_api_base() -> String {
        "https://api.stripe.com".into()
    }
    pub fn signature_max_resends() -> i32 {
        3
    }
    pub fn recovery_token_ttl_hours() -> i64 {
        24
    }
    pub fn recovery_max_emails_per_hour() -> u32 {
        3
    }
    pub fn recovery_max_requests_per_address() -> u32 {
        10
    }
    pub fn shutdown_timeout_secs() -> u64 {
        30
    }
    /// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: ten attempts in all.
    pub fn hooks_retry_schedule_secs() -> String {
        "5,300,1800,7200,18000,36000,50400,72000,86400".into()
    }
    pub fn hooks_connect_timeout_ms() -> u64 {
        5_000
    }
    pub fn hooks_request_timeout_ms() -> u64 {
        15_000
    }
    pub fn hooks_max_in_flight_per_subscription() -> usize {
        16
    }
    pub fn hooks_max_in_flight() -> usize {
        256
    }
    pub fn hooks_lease_secs() -> u64 {
        60
    }
    pub fn hooks_poll_interval_ms() -> u64 {
        1_000
    }
    pub fn hooks_rotation_grace_secs() -> u64 {
        24 * 3600
    }
    pub fn hooks_disable_after_secs() -> u64 {
        5 * 24 * 3600
    }
    pub fn hooks_retention_days() -> u64 {
        30
    }
    pub fn hooks_max_retry_after_secs() -> u64 {
        3600
    }
    pub fn catalog_cache_entries() -> usize {
        1_000
    }
}

/// The service's settings, checked.
#[derive(Debug, Clone)]
pub struct Config {
    /// `SALES_ENV`: production (the default) refuses sandboxes and unsafe settings.
    pub environment: crate::deployment::Environment,
    pub database_url: String,
    pub bind_addr: SocketAddr,
    pub public_url: String,
    pub bcrypt_cost: u32,
    pub bcrypt_max_concurrent: usize,
    pub jwt: JwtSettings,
    pub log_json: bool,
    pub pool: PoolTimeouts,
    pub migrate_on_start: bool,
    pub cors_allowed_origins: Vec<String>,
    pub trusted_proxies: Vec<IpNet>,
    pub max_body_bytes: usize,
    pub signin_throttle: domain::auth::throttle::ThrottlePolicy,
    pub workers: usize,
    pub shutdown_timeout: Duration,
    pub customer_rules: domain::proposals::service::CustomerRules,
    pub password_policy: domain::auth::password::PasswordPolicy,
    pub mail: MailSettings,
    pub signature: SignatureSettings,
    /// Key of the payment platform's `Stripe-Signature`; unset: random per start (sandbox only).
    pub payment_webhook_secret: Option<Vec<u8>>,
    /// Stripe's API base and secret key; when absent, the sandbox platform.
    pub stripe: Option<(String, String)>,
    pub recovery: domain::recovery::RecoveryPolicy,
    pub hooks: HookSettings,
    /// Catalog reads kept in memory per kind (listings, products, billing groups); 0: none.
    pub catalog_cache_entries: usize,
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
            .field("delivery", &self.delivery)
            .field("run_worker", &self.run_worker)
            .finish()
    }
}

#[derive(Clone)]
pub struct SignatureSettings {
    pub max_resends: i32,
    /// Clicksign's base URL and access token; when absent, the sandbox provider.
    pub clicksign: Option<(String, String)>,
    /// The key of the provider's callback HMAC. Unset: a random one per start (the sandbox needs
    /// no callbacks; a real provider must be given the same secret on every instance).
    pub callback_secret: Option<Vec<u8>>,
}

impl std::fmt::Debug for SignatureSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignatureSettings")
            .field("max_resends", &self.max_resends)
            .field("clicksign", &self.clicksign.as_ref().map(|(url, _)| url))
            .field("callback_secret", &"***")
            .finish()
    }
}

#[derive(Debug, Clone)]
pub struct MailSettings {
    /// When set, mail goes by SMTP; else it is written as `.eml` files under `directory`.
    pub smtp_url: Option<String>,
    pub from: String,
    pub directory: PathBuf,
}

#[derive(Debug, Clone)]
pub struct JwtSettings {
    /// Required by `serve`; the other commands sign nothing.
    pub private_key_file: Option<PathBuf>,
    pub previous_public_key_files: Vec<PathBuf>,
    pub issuer: String,
    pub audience: String,
}

#[derive(Debug, Clone, Copy)]
pub struct PoolTimeouts {
    pub max_size: usize,
    pub wait: Duration,
    pub connect: Duration,
    pub statement: Duration,
}

/// Why the configuration was refused, naming the variable.
#[derive(Debug, thiserror::Error)]
#[error("configuração inválida: {0}")]
pub struct ConfigError(pub String);

pub(crate) fn bad(var: &str, why: impl std::fmt::Display) -> ConfigError {
    ConfigError(format!("{var}: {why}"))
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_figment(Figment::new().merge(Env::raw()))
    }

    /// Reads the given pairs as if they were the environment (for tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<Self, ConfigError> {
        let mut figment = Figment::new();
        for (key, value) in pairs {
            // Parsed exactly as the environment provider parses a variable's text.
            let parsed: figment::value::Value = value.parse().unwrap_or_else(|never| match never {});
            figment = figment.merge((key.to_ascii_lowercase(), parsed));
        }
        Self::from_figment(figment)
    }

    fn from_figment(figment: Figment) -> Result<Self, ConfigError> {
        let raw: RawConfig = figment.extract().map_err(|errors| {
            let parts: Vec<String> = errors
                .into_iter()
                .map(|e| {
                    let var = e.path.last().map(|p| p.to_ascii_uppercase());
                    match (&e.kind, var) {
                        (figment::error::Kind::MissingField(field), _) => {
                            format!("{}: variável obrigatória ausente", field.to_ascii_uppercase())
                        }
                        (kind, Some(var)) => format!("{var}: valor inválido ({kind})"),
                        (kind, None) => kind.to_string(),
                    }
                })
                .collect();
            ConfigError(parts.join("; "))
        })?;
        raw.check()
    }
}

impl RawConfig {
    fn check(self) -> Result<Config, ConfigError> {
        let environment = crate::deployment::Environment::parse(self.sales_env.as_deref())?;
        let hooks = self.hook_settings()?;
        if !(self.database_url.starts_with("postgres://") || self.database_url.starts_with("postgresql://")) {
            return Err(bad("DATABASE_URL", "deve começar com postgres:// ou postgresql://"));
        }
        let bind_addr: SocketAddr = self.bind_addr.parse().map_err(|e| bad("BIND_ADDR", e))?;
        let public_url = match self.public_url {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                url.trim_end_matches('/').to_owned()
            }
            Some(_) => return Err(bad("PUBLIC_URL", "deve começar com http:// ou https://")),
            None => format!("http://{bind_addr}"),
        };
        if !(4..=31).contains(&self.bcrypt_cost) {
            return Err(bad("BCRYPT_COST", "deve estar entre 4 e 31"));
        }
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let cors_allowed_origins = split_list(&self.cors_allowed_origins);
        for origin in &cors_allowed_origins {
            if origin != "*" && !(origin.starts_with("http://") || origin.starts_with("https://")) {
                return Err(bad("CORS_ALLOWED_ORIGINS", format!("origem inválida: {origin}")));
            }
        }
        let trusted_proxies = networks("TRUSTED_PROXIES", &self.trusted_proxies)?;
        if self.max_body_bytes < 1024 {
            return Err(bad("MAX_BODY_BYTES", "deve ser ao menos 1024"));
        }
        if self.signin_max_failures == 0
            || self.signin_window_secs <= 0
            || self.signin_block_secs <= 0
            || self.signin_max_block_secs < self.signin_block_secs
        {
            return Err(bad(
                "SIGNIN_*",
                "limites de tentativas de acesso devem ser positivos, e SIGNIN_MAX_BLOCK_SECS >= SIGNIN_BLOCK_SECS",
            ));
        }
        if self.min_salary_cents < 0 {
            return Err(bad("MIN_SALARY_CENTS", "deve ser um inteiro de centavos não negativo"));
        }
        if self.customer_min_age > self.customer_max_age {
            return Err(bad("CUSTOMER_MIN_AGE", "deve ser no máximo CUSTOMER_MAX_AGE"));
        }
        if let Some(url) = &self.smtp_url
            && !(url.starts_with("smtp://") || url.starts_with("smtps://"))
        {
            return Err(bad("SMTP_URL", "deve começar com smtp:// ou smtps://"));
        }
        if self.recovery_token_ttl_hours <= 0
            || self.recovery_max_emails_per_hour == 0
            || self.recovery_max_requests_per_address == 0
        {
            return Err(bad("RECOVERY_*", "limites da recuperação de senha devem ser positivos"));
        }
        let password_reset_url = match self.password_reset_url {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => url,
            Some(_) => return Err(bad("PASSWORD_RESET_URL", "deve começar com http:// ou https://")),
            None => format!("{public_url}/redefinir-senha"),
        };
        if !(8..=72).contains(&self.password_min_length) {
            return Err(bad("PASSWORD_MIN_LENGTH", "deve estar entre 8 e 72"));
        }
        if self.signature_max_resends < 0 {
            return Err(bad("SIGNATURE_MAX_RESENDS", "deve ser zero ou mais"));
        }
        if self.stripe_secret_key.is_some() && self.payment_webhook_secret.is_none() {
            return Err(bad(
                "PAYMENT_WEBHOOK_SECRET",
                "obrigatória quando STRIPE_SECRET_KEY está definida",
            ));
        }
        if !(self.stripe_api_base.starts_with("https://") || self.stripe_api_base.starts_with("http://")) {
            return Err(bad("STRIPE_API_BASE", "deve começar com https:// ou http://"));
        }
        let clicksign = match (self.clicksign_base_url, self.clicksign_access_token) {
            (Some(url), Some(token)) if url.starts_with("https://") || url.starts_with("http://") => {
                // Every instance must verify the provider's callbacks with the same key.
                if self.signature_callback_secret.is_none() {
                    return Err(bad(
                        "SIGNATURE_CALLBACK_SECRET",
                        "obrigatória quando CLICKSIGN_BASE_URL está definida",
                    ));
                }
                Some((url, token))
            }
            (Some(_), Some(_)) => return Err(bad("CLICKSIGN_BASE_URL", "deve começar com https:// ou http://")),
            (Some(_), None) => return Err(bad("CLICKSIGN_ACCESS_TOKEN", "variável obrigatória ausente")),
            (None, Some(_)) => return Err(bad("CLICKSIGN_BASE_URL", "variável obrigatória ausente")),
            (None, None) => None,
        };
        if self.signature_callback_secret.as_ref().is_some_and(|s| s.len() < 16) {
            return Err(bad("SIGNATURE_CALLBACK_SECRET", "deve ter ao menos 16 caracteres"));
        }
        if self.db_pool_max_size == 0 {
            return Err(bad("DB_POOL_MAX_SIZE", "deve ser ao menos 1"));
        }
        Ok(Config {
            environment,
            catalog_cache_entries: self.catalog_cache_entries,
            database_url: self.database_url,
            bind_addr,
            public_url,
            bcrypt_cost: self.bcrypt_cost,
            bcrypt_max_concurrent: self.bcrypt_max_concurrent.unwrap_or(cores).max(1),
            jwt: JwtSettings {
                private_key_file: self.jwt_private_key_file,
                previous_public_key_files: split_list(&self.jwt_previous_public_key_files)
                    .into_iter()
                    .map(PathBuf::from)
                    .collect(),
                issuer: self.jwt_issuer,
                audience: self.jwt_audience,
            },
            log_json: self.log_json,
            pool: PoolTimeouts {
                max_size: self.db_pool_max_size,
                wait: Duration::from_millis(self.db_pool_wait_timeout_ms),
                connect: Duration::from_millis(self.db_connect_timeout_ms),
                statement: Duration::from_millis(self.db_statement_timeout_ms),
            },
            migrate_on_start: self.migrate_on_start,
            cors_allowed_origins,
            trusted_proxies,
            max_body_bytes: self.max_body_bytes,
            signin_throttle: domain::auth::throttle::ThrottlePolicy {
                max_failures: self.signin_max_failures,
                window_secs: self.signin_window_secs,
                base_block_secs: self.signin_block_secs,
                max_block_secs: self.signin_max_block_secs,
            },
            workers: self.workers.unwrap_or(cores).max(1),
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout_secs),
            stripe: self.stripe_secret_key.map(|key| (self.stripe_api_base, key)),
            payment_webhook_secret: self.payment_webhook_secret.map(String::into_bytes),
            signature: SignatureSettings {
                max_resends: self.signature_max_resends,
                clicksign,
                callback_secret: self.signature_callback_secret.map(String::into_bytes),
            },
            mail: MailSettings {
                smtp_url: self.smtp_url,
                from: self.mail_from,
                directory: self.mail_dir,
            },
            recovery: domain::recovery::RecoveryPolicy {
                token_valid_hours: self.recovery_token_ttl_hours,
                max_emails_per_account_per_hour: self.recovery_max_emails_per_hour,
                max_requests_per_address_per_hour: self.recovery_max_requests_per_address,
                link_base: password_reset_url,
            },
            hooks,
            password_policy: domain::auth::password::PasswordPolicy {
                min_chars: self.password_min_length,
            },
            customer_rules: domain::proposals::service::CustomerRules {
                min_salary_cents: self.min_salary_cents,
                age: domain::values::AgeBounds {
                    min_years: self.customer_min_age,
                    max_years: self.customer_max_age,
                },
            },
        })
    }
}

impl RawConfig {
    fn hook_settings(&self) -> Result<HookSettings, ConfigError> {
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
                "HOOKS_MAX_IN_FLIGHT_PER_SUBSCRIPTION",
                self.hooks_max_in_flight_per_subscription as u64,
            ),
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
            run_worker: self.hooks_worker,
            delivery: domain::hooks::DeliveryPolicy {
                retry_schedule,
                lease,
                max_in_flight_per_subscription: self.hooks_max_in_flight_per_subscription,
                max_in_flight: self.hooks_max_in_flight,
                poll_interval: Duration::from_millis(self.hooks_poll_interval_ms),
                retention: Duration::from_secs(self.hooks_retention_days * 24 * 3600),
                disable_after: Duration::from_secs(self.hooks_disable_after_secs),
                max_retry_after: Duration::from_secs(self.hooks_max_retry_after_secs),
                ..domain::hooks::DeliveryPolicy::default()
            },
        })
    }
}

/// base64 of 32 bytes.
fn parse_key(var: &str, text: &str) -> Result<[u8; 32], ConfigError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| bad(var, "deve ser base64"))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| bad(var, "deve ter 32 bytes (base64 de 44 caracteres)"))
}

/// A list variable with a single number in it (`3600`) reaches us as a number: take it as text.
fn text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Number(u64),
    }
    Ok(match TextOrNumber::deserialize(d)? {
        TextOrNumber::Text(text) => text,
        TextOrNumber::Number(n) => n.to_string(),
    })
}

/// A comma-separated list of CIDRs or single addresses.
fn networks(var: &str, value: &str) -> Result<Vec<IpNet>, ConfigError> {
    split_list(value)
        .iter()
        .map(|p| {
            p.parse::<IpNet>()
                .or_else(|_| p.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| bad(var, format!("endereço ou CIDR inválido: {p}")))
        })
        .collect()
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: [(&str, &str); 2] = [
        ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
        ("JWT_PRIVATE_KEY_FILE", "target/dev-keys/jwt.pem"),
    ];

    #[test]
    fn defaults_apply_when_only_the_required_values_are_set() {
        let config = Config::from_pairs(&BASE).unwrap();
        assert_eq!(config.bind_addr.to_string(), "127.0.0.1:8080");
        assert_eq!(config.public_url, "http://127.0.0.1:8080");
        assert_eq!(config.bcrypt_cost, 12);
        assert!(config.cors_allowed_origins.is_empty());
        assert!(config.migrate_on_start);
    }

    #[test]
    fn the_catalog_cache_is_on_by_default_can_be_turned_off_and_a_bad_size_is_named() {
        assert_eq!(Config::from_pairs(&BASE).unwrap().catalog_cache_entries, 1_000);
        let mut pairs = BASE.to_vec();
        pairs.push(("CATALOG_CACHE_ENTRIES", "0"));
        assert_eq!(Config::from_pairs(&pairs).unwrap().catalog_cache_entries, 0);
        let mut pairs = BASE.to_vec();
        pairs.push(("CATALOG_CACHE_ENTRIES", "muitos"));
        let err = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(err.contains("CATALOG_CACHE_ENTRIES"), "{err}");
    }

    #[test]
    fn a_missing_required_value_is_named() {
        let err = Config::from_pairs(&[("JWT_PRIVATE_KEY_FILE", "k.pem")]).unwrap_err();
        assert!(err.to_string().contains("DATABASE_URL"), "{err}");
    }

    #[test]
    fn a_bad_value_is_named() {
        let mut pairs = BASE.to_vec();
        pairs.push(("BCRYPT_COST", "três"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("BCRYPT_COST")
        );
        let mut pairs = BASE.to_vec();
        pairs.push(("BCRYPT_COST", "3"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("BCRYPT_COST")
        );
        let mut pairs = BASE.to_vec();
        pairs.push(("TRUSTED_PROXIES", "10.0.0.0/8, nope"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("TRUSTED_PROXIES")
        );
        let mut pairs = BASE.to_vec();
        pairs.push(("BIND_ADDR", "localhost"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("BIND_ADDR")
        );
    }

    #[test]
    fn a_real_signature_provider_needs_its_token_and_a_shared_callback_secret() {
        let mut pairs = BASE.to_vec();
        pairs.push(("CLICKSIGN_BASE_URL", "https://app.clicksign.com"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("CLICKSIGN_ACCESS_TOKEN")
        );
        pairs.push(("CLICKSIGN_ACCESS_TOKEN", "t"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("SIGNATURE_CALLBACK_SECRET")
        );
        pairs.push(("SIGNATURE_CALLBACK_SECRET", "um-segredo-bem-longo"));
        assert!(Config::from_pairs(&pairs).unwrap().signature.clicksign.is_some());
    }

    #[test]
    fn stripe_needs_a_webhook_secret() {
        let mut pairs = BASE.to_vec();
        pairs.push(("STRIPE_SECRET_KEY", "sk_test_1"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("PAYMENT_WEBHOOK_SECRET")
        );
        pairs.push(("PAYMENT_WEBHOOK_SECRET", "whsec_1"));
        assert_eq!(
            Config::from_pairs(&pairs).unwrap().stripe.map(|(base, _)| base),
            Some("https://api.stripe.com".into())
        );
    }

    #[test]
    fn the_password_policy_is_configurable_within_bcrypts_limit() {
        let mut pairs = BASE.to_vec();
        pairs.push(("PASSWORD_MIN_LENGTH", "12"));
        assert_eq!(Config::from_pairs(&pairs).unwrap().password_policy.min_chars, 12);
        let mut pairs = BASE.to_vec();
        pairs.push(("PASSWORD_MIN_LENGTH", "6"));
        assert!(
            Config::from_pairs(&pairs)
                .unwrap_err()
                .to_string()
                .contains("PASSWORD_MIN_LENGTH")
        );
    }

    #[test]
    fn lists_are_split_on_commas() {
        let mut pairs = BASE.to_vec();
        pairs.push((
            "CORS_ALLOWED_ORIGINS",
            "https://loja.exemplo.com.br, http://localhost:5173",
        ));
        pairs.push(("TRUSTED_PROXIES", "10.0.0.0/8,192.0.2.1"));
        let config = Config::from_pairs(&pairs).unwrap();
        assert_eq!(config.cors_allowed_origins.len(), 2);
        assert_eq!(config.trusted_proxies.len(), 2);
    }

    /// The configuration with `extra` pairs over the required ones.
    fn with(extra: &[(&'static str, &'static str)]) -> Result<Config, ConfigError> {
        let mut pairs = BASE.to_vec();
        pairs.extend_from_slice(extra);
        Config::from_pairs(&pairs)
    }

    #[test]
    fn webhook_delivery_defaults_follow_the_published_schedule() {
        let hooks = with(&[]).unwrap().hooks;
        let minutes: Vec<u64> = hooks.delivery.retry_schedule.iter().map(|d| d.as_secs()).collect();
        assert_eq!(minutes, [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
        assert_eq!(hooks.delivery.max_attempts(), 10);
        assert_eq!(hooks.delivery.max_in_flight_per_subscription, 16);
        assert_eq!(hooks.request_timeout, Duration::from_secs(15));
        assert_eq!(hooks.connect_timeout, Duration::from_secs(5));
        assert_eq!(hooks.rotation_grace, Duration::from_secs(24 * 3600));
        assert_eq!(hooks.delivery.retention, Duration::from_secs(30 * 24 * 3600));
        assert!(hooks.allowed_cidrs.is_empty() && hooks.encryption_key.is_none() && hooks.run_worker);
    }

    #[test]
    fn webhook_settings_are_checked_and_named() {
        let one = with(&[("HOOKS_RETRY_SCHEDULE_SECS", "3600")]).unwrap();
        assert_eq!(one.hooks.delivery.retry_schedule, [Duration::from_secs(3600)]);
        let key = with(&[("HOOKS_ENCRYPTION_KEY", "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=")]).unwrap();
        assert_eq!(key.hooks.encryption_key, Some([5; 32]));
        for (var, value) in [
            ("HOOKS_ALLOWED_CIDRS", "127.0.0.0/8, rede-local"),
            ("HOOKS_ENCRYPTION_KEY", "curta"),
            ("HOOKS_ENCRYPTION_KEY", "BQUFBQ=="),
            ("HOOKS_RETRY_SCHEDULE_SECS", "5,cinco"),
            ("HOOKS_LEASE_SECS", "10"),
            ("HOOKS_MAX_IN_FLIGHT_PER_SUBSCRIPTION", "0"),
        ] {
            let err = with(&[(var, value)]).unwrap_err().to_string();
            assert!(err.contains(var), "{var}={value}: {err}");
        }
    }
}
