//! Configuration from environment variables, one part per concern: the server, the database,
//! sign-in and sessions, the outside services, webhooks and the business limits. Each part
//! (`server.rs`, `database.rs`, `tokens.rs`, `outside.rs`, `webhooks.rs`, `limits.rs`) owns its
//! variables, their defaults and their checks; this module reads them all and assembles `Config`.
//! Every variable is listed in README.md and `.env.example`; a missing or bad one stops start-up
//! naming it, and every part's unreadable values are named at once.

mod database;
mod limits;
mod outside;
mod server;
mod tokens;
mod webhooks;

pub use database::PoolTimeouts;
pub use outside::{MailSettings, SignatureSettings};
pub use tokens::JwtSettings;
pub use webhooks::HookSettings;

use figment::Figment;
use figment::providers::Env;
use ipnet::IpNet;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::net::SocketAddr;
use std::time::Duration;

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
        let mut unreadable = Vec::new();
        let server = read::<server::Raw>(&figment, &mut unreadable);
        let database = read::<database::Raw>(&figment, &mut unreadable);
        let tokens = read::<tokens::Raw>(&figment, &mut unreadable);
        let outside = read::<outside::Raw>(&figment, &mut unreadable);
        let webhooks = read::<webhooks::Raw>(&figment, &mut unreadable);
        let limits = read::<limits::Raw>(&figment, &mut unreadable);
        let (Some(server), Some(database), Some(tokens), Some(outside), Some(webhooks), Some(limits)) =
            (server, database, tokens, outside, webhooks, limits)
        else {
            return Err(ConfigError(unreadable.join("; ")));
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let hooks = webhooks.check()?;
        let database = database.check()?;
        let server = server.check(cores)?;
        let tokens = tokens.check(cores, &server.public_url)?;
        let customer_rules = limits.check()?;
        let outside = outside.check()?;
        Ok(Config {
            environment: server.environment,
            database_url: database.url,
            bind_addr: server.bind_addr,
            public_url: server.public_url,
            bcrypt_cost: tokens.bcrypt_cost,
            bcrypt_max_concurrent: tokens.bcrypt_max_concurrent,
            jwt: tokens.jwt,
            log_json: server.log_json,
            pool: database.pool,
            migrate_on_start: server.migrate_on_start,
            cors_allowed_origins: server.cors_allowed_origins,
            trusted_proxies: server.trusted_proxies,
            max_body_bytes: server.max_body_bytes,
            signin_throttle: tokens.signin_throttle,
            workers: server.workers,
            shutdown_timeout: server.shutdown_timeout,
            customer_rules,
            password_policy: tokens.password_policy,
            mail: outside.mail,
            signature: outside.signature,
            payment_webhook_secret: outside.payment_webhook_secret,
            stripe: outside.stripe,
            recovery: tokens.recovery,
            hooks,
            catalog_cache_entries: database.catalog_cache_entries,
        })
    }
}

/// One part's variables; what cannot be read (missing, or not of the variable's type) is added to
/// `unreadable`, named.
fn read<T: DeserializeOwned>(figment: &Figment, unreadable: &mut Vec<String>) -> Option<T> {
    figment
        .extract::<T>()
        .map_err(|errors| {
            unreadable.extend(errors.into_iter().map(|e| {
                let var = e.path.last().map(|p| p.to_ascii_uppercase());
                match (&e.kind, var) {
                    (figment::error::Kind::MissingField(field), _) => {
                        format!("{}: variável obrigatória ausente", field.to_ascii_uppercase())
                    }
                    (kind, Some(var)) => format!("{var}: valor inválido ({kind})"),
                    (kind, None) => kind.to_string(),
                }
            }));
        })
        .ok()
}

/// base64 of 32 bytes.
pub(super) fn parse_key(var: &str, text: &str) -> Result<[u8; 32], ConfigError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| bad(var, "deve ser base64"))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| bad(var, "deve ter 32 bytes (base64 de 44 caracteres)"))
}

/// A list variable with a single number in it (`3600`) reaches us as a number: take it as text.
pub(super) fn text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
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
pub(super) fn networks(var: &str, value: &str) -> Result<Vec<IpNet>, ConfigError> {
    split_list(value)
        .iter()
        .map(|p| {
            p.parse::<IpNet>()
                .or_else(|_| p.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| bad(var, format!("endereço ou CIDR inválido: {p}")))
        })
        .collect()
}

pub(super) fn split_list(value: &str) -> Vec<String> {
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
    fn unreadable_values_of_every_part_are_named_at_once() {
        let err = Config::from_pairs(&[
            ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
            ("BCRYPT_COST", "doze"),
            ("DB_POOL_MAX_SIZE", "muitos"),
            ("HOOKS_LEASE_SECS", "um minuto"),
            ("WORKERS", "dois"),
        ])
        .unwrap_err()
        .to_string();
        for var in ["BCRYPT_COST", "DB_POOL_MAX_SIZE", "HOOKS_LEASE_SECS", "WORKERS"] {
            assert!(err.contains(var), "{var} not named: {err}");
        }
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
