//! Configuration from environment variables, as one tree: a node per concern (the server, the
//! database, sign-in and sessions, the outside services, webhooks and the business limits). Each
//! part (`server.rs`, `database.rs`, `tokens.rs`, `outside.rs`, `webhooks.rs`, `limits.rs`) owns its
//! variables (one field each: the name, the default, how `config check` shows it), their checks and
//! the node the service uses; this module reads them all into `Config` and walks them for
//! `config check` (`Config::effective`), so that a new setting is one field, its README row and its
//! test.
//! Every variable is listed in README.md and `.env.example`; a missing or bad one stops start-up
//! naming it, and every part's unreadable values are named at once.

mod database;
mod limits;
mod outside;
mod privacy;
mod server;
mod tokens;
mod webhooks;

pub use database::{DatabaseSettings, PoolTimeouts, ReadReplicas};
pub use outside::{
    MailSettings, OutsideSettings, PixConfig, PixWebhookSettings, ReceiverAccountConfig, SANDBOX_RECEIVER_ACCOUNT,
    SignatureSettings, parse_receiver_account,
};
pub use privacy::PrivacySettings;
pub use server::{Environment, RateLimitSettings, ServerSettings};
pub use tokens::{JwtSettings, SessionSettings, TokenSettings};
pub use webhooks::HookSettings;

use figment::Figment;
use ipnet::IpNet;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The service's settings, checked: one tree, a node per concern, each read from its variables
/// by its own module, which also says how each variable is shown by `config check` (a new setting
/// is one field of its part's variables, its README row and its test).
#[derive(Debug, Clone)]
pub struct Config {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub tokens: TokenSettings,
    pub outside: OutsideSettings,
    pub hooks: HookSettings,
    pub customer_rules: domain::proposals::service::CustomerRules,
    pub privacy: PrivacySettings,
    /// Every variable with the value in effect, secrets masked, walked from the parts as read.
    effective: Vec<(String, String)>,
}

impl Config {
    /// A session of PostgreSQL's own: the direct URL when the pools go through a transaction
    /// pooler, else the pools' URL.
    pub fn session_url(&self) -> &str {
        self.database.direct_url.as_deref().unwrap_or(&self.database.url)
    }

    /// Whether the pools go through a transaction pooler (a direct URL is given): their
    /// connections then keep no session state.
    pub fn behind_pooler(&self) -> bool {
        self.database.direct_url.is_some()
    }

    /// What the hourly housekeeping keeps: callback records and ended sessions.
    pub fn retention(&self) -> domain::retention::RetentionPolicy {
        domain::retention::RetentionPolicy {
            callback_records: self.outside.callback_retention,
            ended_sessions: self.tokens.sessions.ended_retention,
            ..domain::retention::RetentionPolicy::default()
        }
    }

    /// Every variable with the value in effect (defaults included), secrets masked: what
    /// `sales-api config check` prints. Walked from each part's variables as read (and completed
    /// by its check), so that every variable a part reads is listed, named once.
    pub fn effective(&self) -> &[(String, String)] {
        &self.effective
    }
}

/// A part's variables as `config check` shows them: each field under its variable's name, its
/// value as text, a null as `(ausente)`. The parts mark secrets and URLs with [`masked`].
fn listing(part: &impl Serialize) -> Result<Vec<(String, String)>, ConfigError> {
    let value = serde_json::to_value(part).map_err(|e| ConfigError(format!("configuração ilegível: {e}")))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(ConfigError("configuração ilegível: parte sem campos".into()));
    };
    Ok(fields
        .into_iter()
        .map(|(name, value)| {
            let shown = match value {
                serde_json::Value::Null => "(ausente)".to_owned(),
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            (name.to_ascii_uppercase(), shown)
        })
        .collect())
}

/// How `config check` shows what must not be printed, for the parts' `serialize_with`.
pub(super) mod masked {
    use serde::Serializer;

    /// A secret: whether it is set, never its value.
    pub fn secret<S: Serializer>(value: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if value.is_some() { "*** (definida)" } else { "(ausente)" })
    }

    /// A URL with its password (`user:password@`) masked.
    pub fn url<S: Serializer>(value: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::without_password(value))
    }

    pub fn optional_url<S: Serializer>(value: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(given) => url(given, s),
            None => s.serialize_none(),
        }
    }

    /// A comma-separated list of URLs, each password masked.
    pub fn url_list<S: Serializer>(value: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        let urls: Vec<String> = super::split_list(value.as_deref().unwrap_or_default())
            .iter()
            .map(|u| super::without_password(u))
            .collect();
        s.serialize_str(&urls.join(","))
    }

    /// A comma-separated list of keys: how many, never which.
    pub fn key_list<S: Serializer>(value: &str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{} chave(s), mascaradas", super::split_list(value).len()))
    }
}

/// A URL with its password (`user:password@`) masked.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Why the configuration was refused, naming the variable.
#[derive(Debug, thiserror::Error)]
#[error("configuração inválida: {0}")]
pub struct ConfigError(pub String);

pub(crate) fn bad(var: &str, why: impl std::fmt::Display) -> ConfigError {
    ConfigError(format!("{var}: {why}"))
}

impl Config {
    /// Reads the process environment and, in development, a `.env` file in the working directory.
    pub fn from_env() -> Result<Self, ConfigError> {
        let process: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let pairs = with_dotenv(process, std::path::Path::new(".env"))?;
        Self::from_figment(figment_of(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))))
    }

    /// Reads the given pairs as if they were the environment (for tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<Self, ConfigError> {
        Self::from_figment(figment_of(pairs.iter().copied()))
    }

    fn from_figment(figment: Figment) -> Result<Self, ConfigError> {
        let mut unreadable = Vec::new();
        let server = read::<server::Raw>(&figment, &mut unreadable);
        let database = read::<database::Raw>(&figment, &mut unreadable);
        let tokens = read::<tokens::Raw>(&figment, &mut unreadable);
        let outside = read::<outside::Raw>(&figment, &mut unreadable);
        let webhooks = read::<webhooks::Raw>(&figment, &mut unreadable);
        let limits = read::<limits::Raw>(&figment, &mut unreadable);
        let privacy = read::<privacy::Raw>(&figment, &mut unreadable);
        let (
            Some(mut server_vars),
            Some(database_vars),
            Some(mut token_vars),
            Some(outside_vars),
            Some(hook_vars),
            Some(limit_vars),
            Some(privacy_vars),
        ) = (server, database, tokens, outside, webhooks, limits, privacy)
        else {
            return Err(ConfigError(unreadable.join("; ")));
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        // Each check completes its variables with the defaults it computed, so that the listing
        // shows the values in effect.
        let hooks = hook_vars.check()?;
        let database = database_vars.check()?;
        let server = server_vars.check(cores)?;
        let tokens = token_vars.check(cores, &server.public_url)?;
        let customer_rules = limit_vars.check()?;
        let outside = outside_vars.check()?;
        let privacy = privacy_vars.check()?;
        let mut effective = Vec::new();
        for part in [
            listing(&server_vars)?,
            listing(&database_vars)?,
            listing(&token_vars)?,
            listing(&outside_vars)?,
            listing(&hook_vars)?,
            listing(&limit_vars)?,
            listing(&privacy_vars)?,
        ] {
            effective.extend(part);
        }
        Ok(Config {
            server,
            database,
            tokens,
            outside,
            hooks,
            customer_rules,
            privacy,
            effective,
        })
    }
}

/// The variables as figment reads them: keys lower-cased, each value's text parsed as figment's
/// environment provider would, and an empty (or blank) value counted as unset, so that `PUBLIC_URL=`
/// in a file or an orchestrator means the default rather than an invalid URL.
/// Variables that are text whatever they look like: a Pix key or a client id of digits
/// (`01234567890`, a CPF) read as a number would lose its leading zero.
const ALWAYS_TEXT: [&str; 5] = [
    "PIX_KEY",
    "PIX_CLIENT_ID",
    "PIX_CLIENT_SECRET",
    "PIX_RECEIVER_ACCOUNT",
    "PRIVACY_CONTROLLER_CNPJ",
];

fn figment_of<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Figment {
    pairs
        .filter(|(_, value)| !value.trim().is_empty())
        .fold(Figment::new(), |figment, (key, value)| {
            let parsed: figment::value::Value = if ALWAYS_TEXT.contains(&key) {
                figment::value::Value::from(value.to_owned())
            } else {
                value.parse().unwrap_or_else(|never| match never {})
            };
            figment.merge((key.to_ascii_lowercase(), parsed))
        })
}

/// In development (`SALES_ENV=development` in the environment, or in the file when the environment
/// does not say), the variables of `file` that the environment does not set (or sets empty) are added;
/// in production the file is ignored, so nothing on a server's disk changes what it runs.
fn with_dotenv(
    mut process: Vec<(String, String)>,
    file: &std::path::Path,
) -> Result<Vec<(String, String)>, ConfigError> {
    if !file.exists() {
        return Ok(process);
    }
    let entries = dotenvy::from_path_iter(file)
        .and_then(|lines| lines.collect::<Result<Vec<(String, String)>, _>>())
        .map_err(|e| ConfigError(format!("{}: {e}", file.display())))?;
    let set = |pairs: &[(String, String)], key: &str| {
        pairs
            .iter()
            .find(|(k, v)| k == key && !v.trim().is_empty())
            .map(|(_, v)| v.clone())
    };
    let environment = set(&process, "SALES_ENV").or_else(|| set(&entries, "SALES_ENV"));
    if Environment::parse(environment.as_deref())? != Environment::Development {
        return Ok(process);
    }
    for (key, value) in entries {
        if set(&process, &key).is_none() {
            process.retain(|(k, _)| *k != key);
            process.push((key, value));
        }
    }
    Ok(process)
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

/// An optional variable that may be all digits (a phone number in E.164, `+5511…`, reaches us
/// as a number, its `+` read as a sign): taken as text, the number's digits.
pub(super) fn optional_text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Number(u64),
    }
    Ok(Option::<TextOrNumber>::deserialize(d)?.map(|value| match value {
        TextOrNumber::Text(text) => text,
        TextOrNumber::Number(n) => n.to_string(),
    }))
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
    use std::time::Duration;

    const BASE: [(&str, &str); 2] = [
        ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
        ("JWT_PRIVATE_KEY_FILE", "target/dev-keys/jwt.pem"),
    ];

    #[test]
    fn defaults_apply_when_only_the_required_values_are_set() {
        let config = Config::from_pairs(&BASE).unwrap();
        assert_eq!(config.server.bind_addr.to_string(), "127.0.0.1:8080");
        assert_eq!(config.server.public_url, "http://127.0.0.1:8080");
        assert_eq!(config.tokens.bcrypt_cost, 12);
        assert!(config.server.cors_allowed_origins.is_empty());
        assert!(config.server.migrate_on_start);
        assert_eq!(
            config.server.metrics_addr.map(|a| a.to_string()).as_deref(),
            Some("127.0.0.1:9464")
        );
    }

    #[test]
    fn the_catalog_cache_is_on_by_default_can_be_turned_off_and_a_bad_size_is_named() {
        assert_eq!(Config::from_pairs(&BASE).unwrap().database.catalog_cache_entries, 1_000);
        let mut pairs = BASE.to_vec();
        pairs.push(("CATALOG_CACHE_ENTRIES", "0"));
        assert_eq!(Config::from_pairs(&pairs).unwrap().database.catalog_cache_entries, 0);
        let mut pairs = BASE.to_vec();
        pairs.push(("CATALOG_CACHE_ENTRIES", "muitos"));
        let err = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(err.contains("CATALOG_CACHE_ENTRIES"), "{err}");
    }

    #[test]
    fn an_empty_value_counts_as_unset_for_every_variable() {
        let mut pairs = BASE.to_vec();
        for var in [
            "PUBLIC_URL",
            "BCRYPT_COST",
            "WORKERS",
            "HOOKS_ENCRYPTION_KEY",
            "HOOKS_LEASE_SECS",
            "SMTP_URL",
            "STRIPE_SECRET_KEY",
            "CLICKSIGN_BASE_URL",
            "SALES_ENV",
            "MIN_SALARY_CENTS",
            "TRUSTED_PROXIES",
        ] {
            pairs.push((var, ""));
        }
        pairs.push(("DB_POOL_MAX_SIZE", "  "));
        let config = Config::from_pairs(&pairs).unwrap();
        assert_eq!(config.server.public_url, "http://127.0.0.1:8080");
        assert_eq!(config.tokens.bcrypt_cost, 12);
        assert_eq!(config.database.pool.max_size, 16);
        assert_eq!(config.server.environment, Environment::Production);
        assert!(
            config.hooks.encryption_key.is_none()
                && config.outside.mail.smtp_url.is_none()
                && config.outside.stripe.is_none()
        );
        assert_eq!(config.customer_rules.min_salary_cents, 141_200);
        let required = Config::from_pairs(&[("DATABASE_URL", "")]).unwrap_err().to_string();
        assert!(
            required.contains("DATABASE_URL: variável obrigatória ausente"),
            "{required}"
        );
    }

    #[test]
    fn the_pix_psp_is_configured_whole_over_tls_or_not_at_all() {
        let none = Config::from_pairs(&BASE).unwrap();
        assert_eq!(none.outside.pix, None);
        let whole = [
            ("PIX_API_BASE", "https://pix.psp.example/api/v2/"),
            ("PIX_CLIENT_ID", "cliente"),
            ("PIX_CLIENT_SECRET", "segredo"),
            ("PIX_CERT_FILE", "/etc/sales/pix.crt"),
            ("PIX_KEY_FILE", "/etc/sales/pix.key"),
            ("PIX_KEY", "11222333000181"),
            ("PIX_RECEIVER_ACCOUNT", "0001/1234567/CORRENTE"),
        ];
        let mut pairs = BASE.to_vec();
        pairs.extend(whole);
        let pix = Config::from_pairs(&pairs).unwrap().outside.pix.unwrap();
        assert_eq!(pix.key, "11222333000181");
        assert_eq!(pix.api_base, "https://pix.psp.example/api/v2");
        assert_eq!(pix.token_url, "https://pix.psp.example/api/v2/oauth/token");
        assert_eq!(pix.receiver.conta, "1234567");
        // A key of digits keeps its leading zero (a CPF), as does a numeric client id.
        let mut pairs = BASE.to_vec();
        pairs.extend(whole.iter().filter(|(k, _)| !matches!(*k, "PIX_KEY" | "PIX_CLIENT_ID")));
        pairs.extend([("PIX_KEY", "01234567890"), ("PIX_CLIENT_ID", "007")]);
        let pix = Config::from_pairs(&pairs).unwrap().outside.pix.unwrap();
        assert_eq!((pix.key.as_str(), pix.client_id.as_str()), ("01234567890", "007"));
        // One missing: named, with those given.
        let mut pairs = BASE.to_vec();
        pairs.extend(whole.iter().filter(|(k, _)| *k != "PIX_KEY_FILE"));
        let err = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(err.contains("PIX_KEY_FILE") && err.contains("PIX_API_BASE"), "{err}");
        // Without TLS, or an account off the standard's shape: named.
        for (var, value, named) in [
            ("PIX_API_BASE", "http://pix.psp.example", "PIX_API_BASE"),
            ("PIX_TOKEN_URL", "http://auth.psp.example/token", "PIX_TOKEN_URL"),
            ("PIX_RECEIVER_ACCOUNT", "0001/123-4/CORRENTE", "PIX_RECEIVER_ACCOUNT"),
            ("PIX_RECEIVER_ACCOUNT", "00001/1234/CORRENTE", "PIX_RECEIVER_ACCOUNT"),
            ("PIX_RECEIVER_ACCOUNT", "0001/1234/SALARIO", "PIX_RECEIVER_ACCOUNT"),
        ] {
            let mut pairs = BASE.to_vec();
            pairs.extend(whole.iter().filter(|(k, _)| *k != var));
            pairs.push((var, value));
            let err = Config::from_pairs(&pairs).unwrap_err().to_string();
            assert!(err.contains(named), "{var}={value}: {err}");
        }
        // The secret never shows in the printed configuration.
        let mut pairs = BASE.to_vec();
        pairs.extend(whole);
        let effective = Config::from_pairs(&pairs).unwrap().effective().to_vec();
        let shown = effective.iter().find(|(k, _)| k == "PIX_CLIENT_SECRET").unwrap();
        assert!(!shown.1.contains("segredo"), "{shown:?}");
    }

    /// The variables named in the README's configuration table.
    fn documented_variables() -> Vec<String> {
        let readme =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
        let table = &readme[readme.find("## Configuration").unwrap()..readme.find("## Routes").unwrap()];
        table
            .lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| l.split('|').nth(1).unwrap_or("").split('`').skip(1).step_by(2))
            .filter(|v| {
                v.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
            .map(str::to_owned)
            .collect()
    }

    fn dotenv_file(text: &str) -> (std::path::PathBuf, impl Drop) {
        struct Remove(std::path::PathBuf);
        impl Drop for Remove {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
        let path = std::env::temp_dir().join(format!("sales-api-dotenv-{}", uuid::Uuid::new_v4()));
        std::fs::write(&path, text).unwrap();
        (path.clone(), Remove(path))
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn a_dotenv_file_fills_in_development_what_the_environment_does_not_set() {
        let (file, _remove) = dotenv_file(
            "SALES_ENV=development\nBIND_ADDR=127.0.0.1:9000\nMAIL_FROM=\"Vendas <nao-responda@vendas.local>\"\nWORKERS=3\n",
        );
        let merged = with_dotenv(pairs(&[("WORKERS", "1"), ("BIND_ADDR", "")]), &file).unwrap();
        let value = |key: &str| merged.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(value("WORKERS"), Some("1"), "the environment wins");
        assert_eq!(value("BIND_ADDR"), Some("127.0.0.1:9000"), "an empty variable is unset");
        assert_eq!(value("MAIL_FROM"), Some("Vendas <nao-responda@vendas.local>"));
        assert_eq!(value("SALES_ENV"), Some("development"));
    }

    #[test]
    fn a_dotenv_file_is_ignored_in_production_and_a_broken_one_is_named() {
        let (file, _remove) = dotenv_file("SALES_ENV=development\nWORKERS=3\n");
        let merged = with_dotenv(pairs(&[("SALES_ENV", "production")]), &file).unwrap();
        assert_eq!(merged, pairs(&[("SALES_ENV", "production")]));
        let (quiet, _remove) = dotenv_file("WORKERS=3\n");
        assert_eq!(
            with_dotenv(vec![], &quiet).unwrap(),
            vec![],
            "no SALES_ENV anywhere: production"
        );
        let (broken, _remove) = dotenv_file("SALES_ENV=development\nMAIL_FROM=\"sem fim\n");
        let err = with_dotenv(vec![], &broken).unwrap_err().to_string();
        assert!(err.contains(&broken.display().to_string()), "{err}");
    }

    #[test]
    fn the_example_environment_is_valid_shell_and_lists_every_documented_variable() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let example = root.join(".env.example");
        let shell = std::process::Command::new("bash")
            .args(["-c", "set -eu -a; . \"$1\"; printf %s \"$MAIL_FROM\"", "bash"])
            .arg(&example)
            .output()
            .unwrap();
        assert!(shell.status.success(), "{}", String::from_utf8_lossy(&shell.stderr));
        assert_eq!(
            String::from_utf8_lossy(&shell.stdout),
            "Vendas <nao-responda@vendas.local>"
        );
        let text = std::fs::read_to_string(&example).unwrap();
        let documented = documented_variables();
        assert!(documented.len() > 50, "{documented:?}");
        for var in documented {
            assert!(
                text.lines()
                    .any(|l| l.trim_start_matches("# ").starts_with(&format!("{var}="))),
                "{var} is documented in the README but missing from .env.example"
            );
        }
        // And the file reads as the service reads it.
        assert!(dotenvy::from_path_iter(&example).unwrap().all(|line| line.is_ok()));
    }

    #[test]
    fn the_effective_configuration_names_each_variable_once_with_the_value_in_effect() {
        let config = Config::from_pairs(&BASE).unwrap();
        let effective = config.effective();
        let mut names: Vec<&str> = effective.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a variable listed twice: {effective:?}");
        let value = |name: &str| effective.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        // Defaults the checks compute are shown as computed, not as unset.
        assert_eq!(value("WORKERS"), Some(config.server.workers.to_string().as_str()));
        assert_eq!(value("PUBLIC_URL"), Some("http://127.0.0.1:8080"));
        assert_eq!(
            value("PASSWORD_RESET_URL"),
            Some("http://127.0.0.1:8080/redefinir-senha")
        );
        assert_eq!(value("SESSION_CHECK"), Some("on"));
        assert_eq!(value("METRICS_ADDR"), Some("127.0.0.1:9464"));
        assert_eq!(value("RATE_LIMIT_REQUESTS_PER_MINUTE"), Some("600"));
        assert_eq!(value("SALES_ENV"), Some("production"));
        assert_eq!(value("HOOKS_PREVIOUS_ENCRYPTION_KEYS"), Some("0 chave(s), mascaradas"));
        assert_eq!(value("STRIPE_SECRET_KEY"), Some("(ausente)"));
    }

    #[test]
    fn the_effective_configuration_masks_every_secret_and_names_every_documented_variable() {
        let config = with(&[
            ("DATABASE_URL", "postgres://vendas:senha-do-banco@db:5432/sales"),
            ("STRIPE_SECRET_KEY", "sk_live_segredo"),
            ("PAYMENT_WEBHOOK_SECRET", "whsec_segredo"),
            ("CLICKSIGN_BASE_URL", "https://app.clicksign.com"),
            ("CLICKSIGN_ACCESS_TOKEN", "token-segredo"),
            ("SIGNATURE_CALLBACK_SECRET", "callback-segredo-longo"),
            ("SMTP_URL", "smtps://vendas:senha-smtp@smtp.exemplo.com.br:465"),
            ("HOOKS_ENCRYPTION_KEY", "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU="),
            (
                "HOOKS_PREVIOUS_ENCRYPTION_KEYS",
                "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
            ),
        ])
        .unwrap();
        let effective = config.effective();
        let printed: String = effective.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        for secret in [
            "senha-do-banco",
            "sk_live_segredo",
            "whsec_segredo",
            "token-segredo",
            "callback-segredo-longo",
            "senha-smtp",
            "BQUFBQUF",
            "AQEBAQEB",
        ] {
            assert!(!printed.contains(secret), "{secret} printed:\n{printed}");
        }
        assert!(
            printed.contains("DATABASE_URL=postgres://vendas:***@db:5432/sales"),
            "{printed}"
        );
        assert!(
            printed.contains("SMTP_URL=smtps://vendas:***@smtp.exemplo.com.br:465"),
            "{printed}"
        );
        assert!(printed.contains("BCRYPT_COST=12"), "{printed}");
        // Every variable the README documents is shown.
        for var in documented_variables().into_iter().filter(|v| v != "RUST_LOG") {
            assert!(effective.iter().any(|(k, _)| *k == var), "{var} not shown");
        }
    }

    #[test]
    fn the_legal_holds_years_are_five_by_default_and_never_fewer() {
        let with = |value: &'static str| {
            let mut pairs = BASE.to_vec();
            pairs.push(("RETENTION_CONTRACT_YEARS", value));
            Config::from_pairs(&pairs)
        };
        assert_eq!(Config::from_pairs(&BASE).unwrap().privacy.hold.contract_years, 5);
        assert_eq!(with("20").unwrap().privacy.hold.contract_years, 20);
        for bad in ["4", "0", "101", "cinco"] {
            let refused = with(bad).unwrap_err().to_string();
            assert!(refused.contains("RETENTION_CONTRACT_YEARS"), "{bad}: {refused}");
        }
    }

    #[test]
    fn the_retention_schedule_keeps_health_answers_no_longer_than_the_sale() {
        let with = |pairs: &[(&'static str, &'static str)]| {
            let mut all = BASE.to_vec();
            all.extend_from_slice(pairs);
            Config::from_pairs(&all)
        };
        let defaults = Config::from_pairs(&BASE).unwrap().privacy;
        assert_eq!(defaults.schedule.unconcluded_days, 180);
        assert_eq!(defaults.schedule.health_days, 30);
        assert_eq!(defaults.schedule.hold, defaults.hold);
        assert_eq!(defaults.retention_check_interval, std::time::Duration::from_secs(3600));
        let set = with(&[
            ("RETENTION_UNCONCLUDED_DAYS", "90"),
            ("RETENTION_HEALTH_UNCONCLUDED_DAYS", "90"),
            ("RETENTION_CONTRACT_YEARS", "10"),
        ])
        .unwrap()
        .privacy
        .schedule;
        assert_eq!(
            (set.unconcluded_days, set.health_days, set.hold.contract_years),
            (90, 90, 10)
        );
        for (name, pairs) in [
            ("RETENTION_UNCONCLUDED_DAYS", vec![("RETENTION_UNCONCLUDED_DAYS", "0")]),
            (
                "RETENTION_UNCONCLUDED_DAYS",
                vec![("RETENTION_UNCONCLUDED_DAYS", "3651")],
            ),
            (
                "RETENTION_HEALTH_UNCONCLUDED_DAYS",
                vec![("RETENTION_HEALTH_UNCONCLUDED_DAYS", "0")],
            ),
            (
                "RETENTION_HEALTH_UNCONCLUDED_DAYS",
                vec![
                    ("RETENTION_UNCONCLUDED_DAYS", "60"),
                    ("RETENTION_HEALTH_UNCONCLUDED_DAYS", "61"),
                ],
            ),
            (
                "RETENTION_CHECK_INTERVAL_MS",
                vec![("RETENTION_CHECK_INTERVAL_MS", "999")],
            ),
        ] {
            let refused = with(&pairs).unwrap_err().to_string();
            assert!(refused.contains(name), "{pairs:?}: {refused}");
        }
    }

    #[test]
    fn a_bad_direct_url_or_a_short_callback_retention_is_refused_naming_it() {
        let with = |name: &'static str, value: &'static str| {
            let mut pairs = BASE.to_vec();
            pairs.push((name, value));
            Config::from_pairs(&pairs)
        };
        let refused = with("DATABASE_DIRECT_URL", "mysql://db/sales").unwrap_err().to_string();
        assert!(refused.contains("DATABASE_DIRECT_URL"), "{refused}");
        let direct = with("DATABASE_DIRECT_URL", "postgres://postgres@db:5432/sales").unwrap();
        assert!(direct.behind_pooler());
        assert_eq!(direct.session_url(), "postgres://postgres@db:5432/sales");
        let plain = Config::from_pairs(&BASE).unwrap();
        assert!(!plain.behind_pooler());
        assert_eq!(plain.session_url(), plain.database.url);

        let refused = with("CALLBACK_RETENTION_DAYS", "3").unwrap_err().to_string();
        assert!(refused.contains("CALLBACK_RETENTION_DAYS"), "{refused}");
        let refused = with("CALLBACK_RETENTION_DAYS", "muitos").unwrap_err().to_string();
        assert!(refused.contains("CALLBACK_RETENTION_DAYS"), "{refused}");
        assert_eq!(
            with("CALLBACK_RETENTION_DAYS", "7")
                .unwrap()
                .retention()
                .callback_records
                .as_secs(),
            7 * 86_400
        );
    }

    #[test]
    fn the_record_of_ended_sessions_is_kept_six_months_unless_told_and_a_bad_value_is_refused_naming_it() {
        let with = |value: &'static str| {
            let mut pairs = BASE.to_vec();
            pairs.push(("ENDED_SESSIONS_RETENTION_DAYS", value));
            Config::from_pairs(&pairs)
        };
        assert_eq!(
            Config::from_pairs(&BASE).unwrap().retention().ended_sessions.as_secs(),
            183 * 86_400
        );
        assert_eq!(with("30").unwrap().retention().ended_sessions.as_secs(), 30 * 86_400);
        for bad in ["0", "3651", "seis meses", "-1"] {
            let refused = with(bad).unwrap_err().to_string();
            assert!(refused.contains("ENDED_SESSIONS_RETENTION_DAYS"), "{bad}: {refused}");
        }
    }

    #[test]
    fn read_replicas_are_a_list_of_postgres_urls_and_a_bad_one_or_no_lag_is_refused_naming_it() {
        let with = |name: &'static str, value: &'static str| {
            let mut pairs = BASE.to_vec();
            pairs.push((name, value));
            Config::from_pairs(&pairs)
        };
        let refused = with("DATABASE_READ_URLS", "postgres://r1/sales,mysql://r2/sales")
            .unwrap_err()
            .to_string();
        assert!(refused.contains("DATABASE_READ_URLS"), "{refused}");
        let refused = with("DATABASE_READ_MAX_LAG_MS", "0").unwrap_err().to_string();
        assert!(refused.contains("DATABASE_READ_MAX_LAG_MS"), "{refused}");
        let refused = with("DATABASE_READ_MAX_LAG_MS", "um segundo").unwrap_err().to_string();
        assert!(refused.contains("DATABASE_READ_MAX_LAG_MS"), "{refused}");
        let replicas = with("DATABASE_READ_URLS", " postgres://r1/sales, ,postgresql://r2/sales ")
            .unwrap()
            .database
            .read_replicas;
        assert_eq!(replicas.urls, ["postgres://r1/sales", "postgresql://r2/sales"]);
        assert_eq!(replicas.max_lag, Duration::from_millis(1_000));
        assert!(
            Config::from_pairs(&BASE)
                .unwrap()
                .database
                .read_replicas
                .urls
                .is_empty()
        );
    }

    #[test]
    fn the_metrics_listener_is_turned_off_by_off_and_an_empty_value_is_the_default() {
        let with = |value: &'static str| {
            let mut pairs = BASE.to_vec();
            pairs.push(("METRICS_ADDR", value));
            Config::from_pairs(&pairs)
        };
        assert_eq!(with("off").unwrap().server.metrics_addr, None);
        // Unset or empty: the default, which another process on the host may hold.
        assert!(!Config::from_pairs(&BASE).unwrap().server.metrics_addr_given);
        assert!(!with("").unwrap().server.metrics_addr_given);
        assert!(with("0.0.0.0:9100").unwrap().server.metrics_addr_given);
        assert_eq!(
            with("").unwrap().server.metrics_addr.map(|a| a.to_string()).as_deref(),
            Some("127.0.0.1:9464")
        );
        assert_eq!(
            with("0.0.0.0:9100")
                .unwrap()
                .server
                .metrics_addr
                .map(|a| a.to_string())
                .as_deref(),
            Some("0.0.0.0:9100")
        );
        assert!(with("porta").unwrap_err().to_string().contains("METRICS_ADDR"));
        let mut pairs = BASE.to_vec();
        pairs.push(("OTEL_EXPORTER_OTLP_ENDPOINT", "coletor:4318"));
        let refused = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(refused.contains("OTEL_EXPORTER_OTLP_ENDPOINT"), "{refused}");
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
    fn the_new_bounds_take_their_defaults_and_refuse_values_that_would_turn_them_off() {
        let config = Config::from_pairs(&BASE).unwrap();
        assert_eq!(config.server.body_read_timeout, Duration::from_millis(5_000));
        assert_eq!(config.hooks.max_subscriptions_per_owner, 20);
        assert_eq!(config.hooks.replay_max_deliveries, 10_000);
        assert_eq!(config.hooks.delivery.max_in_flight_per_owner, 32);
        for (var, value) in [
            ("BODY_READ_TIMEOUT_MS", "99"),
            ("BODY_READ_TIMEOUT_MS", "cinco"),
            ("HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER", "0"),
            ("HOOKS_REPLAY_MAX_DELIVERIES", "0"),
            ("HOOKS_MAX_IN_FLIGHT_PER_OWNER", "0"),
        ] {
            let mut pairs = BASE.to_vec();
            pairs.push((var, value));
            let err = Config::from_pairs(&pairs).unwrap_err().to_string();
            assert!(err.contains(var), "{var}={value}: {err}");
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
        assert!(
            Config::from_pairs(&pairs)
                .unwrap()
                .outside
                .signature
                .clicksign
                .is_some()
        );
    }

    #[test]
    fn serpro_needs_its_key_and_secret_together_and_each_bad_value_is_named() {
        let none = with(&[]).unwrap().outside.cpf_status;
        assert!(none.serpro.is_none());
        assert_eq!(none.timeout, std::time::Duration::from_millis(3_000));
        assert_eq!(none.cache_for, chrono::Duration::days(1));
        let both = with(&[
            ("CPF_STATUS_CONSUMER_KEY", "chave"),
            ("CPF_STATUS_CONSUMER_SECRET", "segredo-do-contrato"),
            ("CPF_STATUS_CACHE_SECONDS", "3600"),
        ])
        .unwrap();
        let serpro = both.outside.cpf_status.serpro.clone().unwrap();
        assert_eq!(serpro.consumer_key, "chave");
        assert!(
            !format!("{serpro:?}").contains("segredo-do-contrato"),
            "the secret is never printed"
        );
        assert_eq!(both.outside.cpf_status.cache_for, chrono::Duration::hours(1));
        for (pairs, named) in [
            (
                &[("CPF_STATUS_CONSUMER_KEY", "chave")][..],
                "CPF_STATUS_CONSUMER_SECRET",
            ),
            (
                &[("CPF_STATUS_CONSUMER_SECRET", "segredo")][..],
                "CPF_STATUS_CONSUMER_KEY",
            ),
            (&[("CPF_STATUS_API_BASE", "gateway.serpro")][..], "CPF_STATUS_API_BASE"),
            (&[("CPF_STATUS_TOKEN_URL", "ftp://token")][..], "CPF_STATUS_TOKEN_URL"),
            (&[("CPF_STATUS_TIMEOUT_MS", "10")][..], "CPF_STATUS_TIMEOUT_MS"),
            (
                &[("CPF_STATUS_CACHE_SECONDS", "2592001")][..],
                "CPF_STATUS_CACHE_SECONDS",
            ),
        ] {
            let err = with(pairs).unwrap_err().to_string();
            assert!(err.contains(named), "{named}: {err}");
        }
    }

    #[test]
    fn twilio_needs_its_sid_token_and_an_e164_sender_and_the_channel_is_sms_or_whatsapp() {
        let mut pairs = BASE.to_vec();
        assert!(Config::from_pairs(&pairs).unwrap().outside.messaging.is_none());
        pairs.push(("TWILIO_ACCOUNT_SID", "AC123"));
        let refused = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(refused.contains("TWILIO_AUTH_TOKEN"), "{refused}");
        pairs.push(("TWILIO_AUTH_TOKEN", "tw-secret-42"));
        pairs.push(("TWILIO_FROM", "11 90000-0000"));
        let refused = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(
            refused.contains("TWILIO_FROM") && refused.contains("E.164"),
            "{refused}"
        );
        pairs.pop();
        pairs.push(("TWILIO_FROM", "+5511900000000"));
        pairs.push(("MESSAGING_CHANNEL", "telegram"));
        let refused = Config::from_pairs(&pairs).unwrap_err().to_string();
        assert!(refused.contains("MESSAGING_CHANNEL"), "{refused}");
        pairs.pop();
        pairs.push(("MESSAGING_CHANNEL", "whatsapp"));
        let twilio = Config::from_pairs(&pairs).unwrap().outside.messaging.unwrap();
        assert_eq!(twilio.channel, domain::messaging::MessageChannel::WhatsApp);
        assert_eq!(twilio.from, "+5511900000000", "the sign read as a number keeps its +");
        assert_eq!(twilio.api_base, "https://api.twilio.com");
        assert!(
            !format!("{twilio:?}").contains("tw-secret-42"),
            "the token is never printed"
        );
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
            Config::from_pairs(&pairs).unwrap().outside.stripe.map(|(base, _)| base),
            Some("https://api.stripe.com".into())
        );
    }

    #[test]
    fn the_password_policy_is_configurable_within_bcrypts_limit() {
        let mut pairs = BASE.to_vec();
        pairs.push(("PASSWORD_MIN_LENGTH", "12"));
        assert_eq!(Config::from_pairs(&pairs).unwrap().tokens.password_policy.min_chars, 12);
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
        assert_eq!(config.server.cors_allowed_origins.len(), 2);
        assert_eq!(config.server.trusted_proxies.len(), 2);
    }

    /// The configuration with `extra` pairs over the required ones.
    fn with(extra: &[(&'static str, &'static str)]) -> Result<Config, ConfigError> {
        let mut pairs = BASE.to_vec();
        pairs.extend_from_slice(extra);
        Config::from_pairs(&pairs)
    }

    #[test]
    fn the_rate_limit_is_600_a_minute_unless_set_and_off_turns_it_off() {
        let limit = with(&[]).unwrap().server.rate_limit.unwrap();
        assert_eq!(limit.per_minute, 600);
        assert_eq!(limit.sync_interval, Duration::from_millis(250));
        assert_eq!(
            with(&[("RATE_LIMIT_REQUESTS_PER_MINUTE", "1200")])
                .unwrap()
                .server
                .rate_limit
                .map(|r| r.per_minute),
            Some(1200)
        );
        assert_eq!(
            with(&[("RATE_LIMIT_REQUESTS_PER_MINUTE", "off")])
                .unwrap()
                .server
                .rate_limit,
            None
        );
        for (name, value) in [
            ("RATE_LIMIT_REQUESTS_PER_MINUTE", "0"),
            ("RATE_LIMIT_REQUESTS_PER_MINUTE", "muitas"),
            ("RATE_LIMIT_SYNC_MS", "5"),
            ("RATE_LIMIT_MAX_KEYS", "10"),
            ("RATE_LIMIT_MAX_KEYS", "muitas"),
        ] {
            let refused = with(&[(name, value)]).unwrap_err().to_string();
            assert!(refused.contains(name), "{refused}");
        }
    }

    #[test]
    fn pending_operations_are_recovered_after_a_minute_unless_set() {
        assert_eq!(
            with(&[]).unwrap().outside.operation_recovery_after,
            Duration::from_secs(60)
        );
        assert_eq!(
            with(&[("OPERATION_RECOVERY_AFTER_MS", "5000")])
                .unwrap()
                .outside
                .operation_recovery_after,
            Duration::from_secs(5)
        );
        for value in ["999", "um minuto", "-1"] {
            let refused = with(&[("OPERATION_RECOVERY_AFTER_MS", value)]).unwrap_err().to_string();
            assert!(refused.contains("OPERATION_RECOVERY_AFTER_MS"), "{refused}");
        }
    }

    #[test]
    fn signing_deadlines_are_ten_days_with_reminders_every_three_unless_set() {
        let signature = with(&[]).unwrap().outside.signature;
        assert_eq!(signature.deadline, chrono::Duration::days(10));
        assert_eq!(signature.remind_interval_days, Some(3));
        assert_eq!(signature.expiry_interval, Duration::from_secs(60));
        assert_eq!(
            with(&[]).unwrap().outside.acceptance_check_interval,
            Duration::from_secs(60),
            "ACCEPTANCE_CHECK_INTERVAL_MS defaults to a minute"
        );
        let set = with(&[
            ("SIGNATURE_DEADLINE_DAYS", "30"),
            ("SIGNATURE_REMIND_INTERVAL_DAYS", "off"),
        ])
        .unwrap()
        .outside
        .signature;
        assert_eq!(set.deadline, chrono::Duration::days(30));
        assert_eq!(set.remind_interval_days, None);
        for (name, value) in [
            ("SIGNATURE_DEADLINE_DAYS", "0"),
            ("SIGNATURE_DEADLINE_DAYS", "91"),
            ("SIGNATURE_REMIND_INTERVAL_DAYS", "5"),
            ("SIGNATURE_REMIND_INTERVAL_DAYS", "semanal"),
            ("SIGNATURE_EXPIRY_INTERVAL_MS", "10"),
            ("ACCEPTANCE_CHECK_INTERVAL_MS", "99"),
        ] {
            let refused = with(&[(name, value)]).unwrap_err().to_string();
            assert!(refused.contains(name), "{refused}");
        }
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
