//! Sign-in and sessions: the token signing keys and claims, password hashing and policy, the
//! sign-in throttle, and password recovery.

use super::{ConfigError, bad, split_list};
use domain::auth::password::PasswordPolicy;
use domain::auth::throttle::ThrottlePolicy;
use domain::privacy::person_channel::PersonLinkPolicy;
use domain::recovery::RecoveryPolicy;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    jwt_private_key_file: Option<PathBuf>,
    #[serde(default)]
    jwt_previous_public_key_files: String,
    #[serde(default = "sales_api")]
    jwt_issuer: String,
    #[serde(default = "sales_api")]
    jwt_audience: String,
    #[serde(default = "bcrypt_cost")]
    bcrypt_cost: u32,
    bcrypt_max_concurrent: Option<usize>,
    #[serde(default = "signin_max_failures")]
    signin_max_failures: u32,
    #[serde(default = "signin_max_failures_per_account")]
    signin_max_failures_per_account: u32,
    #[serde(default = "signin_max_failures_per_address")]
    signin_max_failures_per_address: u32,
    #[serde(default = "fifteen_minutes_secs")]
    signin_window_secs: i64,
    #[serde(default = "signin_block_secs")]
    signin_block_secs: i64,
    #[serde(default = "fifteen_minutes_secs")]
    signin_max_block_secs: i64,
    #[serde(default = "password_min_length")]
    password_min_length: usize,
    password_reset_url: Option<String>,
    /// The page the person's own links open (decision 287).
    privacy_link_url: Option<String>,
    #[serde(default = "recovery_token_ttl_hours")]
    recovery_token_ttl_hours: i64,
    #[serde(default = "recovery_max_emails_per_hour")]
    recovery_max_emails_per_hour: u32,
    #[serde(default = "recovery_max_requests_per_address")]
    recovery_max_requests_per_address: u32,
    session_check: Option<String>,
    #[serde(default = "session_cache_entries")]
    session_cache_entries: usize,
    #[serde(default = "ended_sessions_retention_days")]
    ended_sessions_retention_days: u64,
}

fn sales_api() -> String {
    "sales-api".into()
}
fn bcrypt_cost() -> u32 {
    12
}
fn signin_max_failures() -> u32 {
    5
}
fn signin_max_failures_per_account() -> u32 {
    20
}
fn signin_max_failures_per_address() -> u32 {
    50
}
fn session_cache_entries() -> usize {
    100_000
}
fn ended_sessions_retention_days() -> u64 {
    domain::retention::ENDED_SESSIONS_DAYS
}
fn fifteen_minutes_secs() -> i64 {
    15 * 60
}
fn signin_block_secs() -> i64 {
    30
}
fn password_min_length() -> usize {
    8
}
fn recovery_token_ttl_hours() -> i64 {
    24
}
fn recovery_max_emails_per_hour() -> u32 {
    3
}
fn recovery_max_requests_per_address() -> u32 {
    10
}

#[derive(Debug, Clone)]
pub struct JwtSettings {
    /// Required by `serve`; the other commands sign nothing.
    pub private_key_file: Option<PathBuf>,
    pub previous_public_key_files: Vec<PathBuf>,
    pub issuer: String,
    pub audience: String,
}

/// Whether each authenticated request checks that its token's session holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionSettings {
    /// `SESSION_CHECK=off` (development only, to measure what the check costs): tokens then work
    /// until they expire whatever ends their session.
    pub check: bool,
    /// Answers kept in memory per instance (`SESSION_CACHE_ENTRIES`); 0: every request asks
    /// PostgreSQL.
    pub cache_entries: usize,
    /// How long an ended session is kept on record (`ENDED_SESSIONS_RETENTION_DAYS`).
    pub ended_retention: std::time::Duration,
}

/// Sign-in, tokens, sessions, passwords and their recovery.
#[derive(Debug, Clone)]
pub struct TokenSettings {
    pub sessions: SessionSettings,
    pub jwt: JwtSettings,
    pub bcrypt_cost: u32,
    pub bcrypt_max_concurrent: usize,
    pub signin_throttle: ThrottlePolicy,
    pub password_policy: PasswordPolicy,
    pub recovery: RecoveryPolicy,
    /// The person's own links (privacy): the page they open and their limits.
    pub person_links: PersonLinkPolicy,
    /// The proponent's documents page (decision 289): `$PUBLIC_URL/documentos`.
    pub documents_links: domain::acceptance::proponent::DocumentsLinkPolicy,
}

impl Raw {
    /// `public_url` is the default base of the recovery link.
    pub(super) fn check(&mut self, cores: usize, public_url: &str) -> Result<TokenSettings, ConfigError> {
        if !(4..=31).contains(&self.bcrypt_cost) {
            return Err(bad("BCRYPT_COST", "deve estar entre 4 e 31"));
        }
        if self.signin_max_failures == 0
            || self.signin_max_failures_per_account == 0
            || self.signin_max_failures_per_address == 0
            || self.signin_window_secs <= 0
            || self.signin_block_secs <= 0
            || self.signin_max_block_secs < self.signin_block_secs
        {
            return Err(bad(
                "SIGNIN_*",
                "limites de tentativas de acesso devem ser positivos, e SIGNIN_MAX_BLOCK_SECS >= SIGNIN_BLOCK_SECS",
            ));
        }
        if !(8..=72).contains(&self.password_min_length) {
            return Err(bad("PASSWORD_MIN_LENGTH", "deve estar entre 8 e 72"));
        }
        if self.recovery_token_ttl_hours <= 0
            || self.recovery_max_emails_per_hour == 0
            || self.recovery_max_requests_per_address == 0
        {
            return Err(bad("RECOVERY_*", "limites da recuperação de senha devem ser positivos"));
        }
        let check = match self.session_check.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(_) => return Err(bad("SESSION_CHECK", "deve ser on ou off")),
        };
        if !(1..=3650).contains(&self.ended_sessions_retention_days) {
            return Err(bad("ENDED_SESSIONS_RETENTION_DAYS", "deve estar entre 1 e 3650 dias"));
        }
        let link_base = match self.password_reset_url.clone() {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => url,
            Some(_) => return Err(bad("PASSWORD_RESET_URL", "deve começar com http:// ou https://")),
            None => format!("{public_url}/redefinir-senha"),
        };
        let person_link_base = match self.privacy_link_url.clone() {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => url,
            Some(_) => return Err(bad("PRIVACY_LINK_URL", "deve começar com http:// ou https://")),
            None => format!("{public_url}/privacidade/link"),
        };
        self.privacy_link_url = Some(person_link_base.clone());
        let bcrypt_max_concurrent = self.bcrypt_max_concurrent.unwrap_or(cores).max(1);
        // What was not set is shown as the value in effect.
        self.password_reset_url = Some(link_base.clone());
        self.bcrypt_max_concurrent = Some(bcrypt_max_concurrent);
        self.session_check = Some(if check { "on" } else { "off" }.to_owned());
        Ok(TokenSettings {
            sessions: SessionSettings {
                check,
                cache_entries: self.session_cache_entries,
                ended_retention: std::time::Duration::from_secs(self.ended_sessions_retention_days * 24 * 3600),
            },
            jwt: JwtSettings {
                private_key_file: self.jwt_private_key_file.clone(),
                previous_public_key_files: split_list(&self.jwt_previous_public_key_files)
                    .into_iter()
                    .map(PathBuf::from)
                    .collect(),
                issuer: self.jwt_issuer.clone(),
                audience: self.jwt_audience.clone(),
            },
            bcrypt_cost: self.bcrypt_cost,
            bcrypt_max_concurrent,
            signin_throttle: ThrottlePolicy::new(
                self.signin_max_failures,
                self.signin_max_failures_per_account,
                self.signin_max_failures_per_address,
                self.signin_window_secs,
                self.signin_block_secs,
                self.signin_max_block_secs,
            ),
            password_policy: PasswordPolicy {
                min_chars: self.password_min_length,
            },
            recovery: RecoveryPolicy {
                token_valid_hours: self.recovery_token_ttl_hours,
                max_emails_per_account_per_hour: self.recovery_max_emails_per_hour,
                max_requests_per_address_per_hour: self.recovery_max_requests_per_address,
                link_base,
            },
            person_links: PersonLinkPolicy {
                link_base: person_link_base,
                ..PersonLinkPolicy::default()
            },
            documents_links: domain::acceptance::proponent::DocumentsLinkPolicy {
                link_base: format!("{public_url}/documentos"),
            },
        })
    }
}
