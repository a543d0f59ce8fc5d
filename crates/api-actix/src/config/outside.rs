//! The outside services: the payment platform (Stripe), the signature provider (Clicksign) and
//! mail (SMTP), with the keys that verify their callbacks. Each runs as a sandbox when not
//! configured, which production refuses (`deployment`).

use super::{ConfigError, bad, masked};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(serialize_with = "masked::secret")]
    stripe_secret_key: Option<String>,
    #[serde(default = "stripe_api_base")]
    stripe_api_base: String,
    #[serde(serialize_with = "masked::secret")]
    payment_webhook_secret: Option<String>,
    clicksign_base_url: Option<String>,
    #[serde(serialize_with = "masked::secret")]
    clicksign_access_token: Option<String>,
    #[serde(serialize_with = "masked::secret")]
    signature_callback_secret: Option<String>,
    #[serde(default = "signature_max_resends")]
    signature_max_resends: i32,
    #[serde(default = "signature_deadline_days")]
    signature_deadline_days: i64,
    #[serde(default = "signature_remind_interval_days")]
    signature_remind_interval_days: String,
    #[serde(default = "signature_expiry_interval_ms")]
    signature_expiry_interval_ms: u64,
    #[serde(default = "acceptance_check_interval_ms")]
    acceptance_check_interval_ms: u64,
    #[serde(default = "billing_run_interval_ms")]
    billing_run_interval_ms: u64,
    #[serde(default = "refund_due_days")]
    refund_due_days: u32,
    #[serde(serialize_with = "masked::optional_url")]
    smtp_url: Option<String>,
    #[serde(default = "mail_from")]
    mail_from: String,
    #[serde(default = "mail_dir")]
    mail_dir: PathBuf,
    #[serde(default = "callback_retention_days")]
    callback_retention_days: u64,
    #[serde(default = "operation_recovery_after_ms")]
    operation_recovery_after_ms: u64,
    #[serde(default = "ipca_series_url")]
    ipca_series_url: String,
    /// Twilio's Messages API for the notices' text messages (issue 67): the account's SID and
    /// token and the sender; none set, no text messages in production (the sandbox's in
    /// development).
    twilio_account_sid: Option<String>,
    #[serde(serialize_with = "masked::secret")]
    twilio_auth_token: Option<String>,
    #[serde(default, deserialize_with = "super::optional_text_or_number")]
    twilio_from: Option<String>,
    #[serde(default = "twilio_api_base")]
    twilio_api_base: String,
    /// `sms` or `whatsapp`: the channel the notices' text messages go by.
    #[serde(default = "messaging_channel")]
    messaging_channel: String,
    /// Serpro's Consulta CPF (issue 70): the API's base, its token endpoint and the contract's
    /// consumer key and secret; none set, the sandbox in development (production refuses it).
    #[serde(default = "cpf_status_api_base")]
    cpf_status_api_base: String,
    #[serde(default = "cpf_status_token_url")]
    cpf_status_token_url: String,
    cpf_status_consumer_key: Option<String>,
    #[serde(serialize_with = "masked::secret")]
    cpf_status_consumer_secret: Option<String>,
    /// How long a consultation may take before the sale goes on under diligence.
    #[serde(default = "cpf_status_timeout_ms")]
    cpf_status_timeout_ms: u64,
    /// How long a CPF's status is used again before it is asked anew.
    #[serde(default = "cpf_status_cache_seconds")]
    cpf_status_cache_seconds: u64,
    /// `bank:agreement:company;…`: the banks' agreements for débito automático (issue 46).
    #[serde(default)]
    debit_agreements: String,
    /// The payee's PSP for Pix Automático (issue 46): the API Pix's base and token endpoint, the
    /// client credentials, the certificate and key of mutual TLS, the payee's Pix key and the
    /// account charges are paid into.
    pix_api_base: Option<String>,
    pix_token_url: Option<String>,
    pix_client_id: Option<String>,
    #[serde(serialize_with = "masked::secret")]
    pix_client_secret: Option<String>,
    pix_cert_file: Option<PathBuf>,
    pix_key_file: Option<PathBuf>,
    pix_ca_file: Option<PathBuf>,
    pix_key: Option<String>,
    pix_receiver_account: Option<String>,
    /// The header in which the proxy that ends the PSP's mutual TLS hands the verified client
    /// certificate's subject to the service (`PIX_WEBHOOK_SUBJECT_HEADER`).
    #[serde(default = "pix_webhook_subject_header")]
    pix_webhook_subject_header: String,
    /// The subjects (`;`-separated distinguished names) of the PSP's certificates whose
    /// notifications are taken in (`PIX_WEBHOOK_SUBJECTS`); none: every notification refused.
    #[serde(default)]
    pix_webhook_subjects: String,
}

fn pix_webhook_subject_header() -> String {
    "X-Client-Cert-Subject".to_owned()
}

/// Who may post the PSP's notifications (`/pix/webhook/rec`, `/pix/webhook/cobr`): the standard
/// requires mutual TLS; where a proxy ends it, the verified certificate's subject reaches the
/// service in `header`, and only the configured subjects are believed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixWebhookSettings {
    pub header: String,
    pub subjects: Vec<String>,
}

/// The payee's PSP for Pix Automático (`PIX_*`): all of it, or none (then Pix Automático is not
/// offered in production, and the sandbox PSP stands in in development).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixConfig {
    pub api_base: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
    /// Authorities trusted for the PSP's server besides the public ones (`PIX_CA_FILE`).
    pub ca_file: Option<PathBuf>,
    /// The payee's Pix key (DICT: at most 77 characters).
    pub key: String,
    pub receiver: ReceiverAccountConfig,
}

/// The account the PSP pays charges into (`PIX_RECEIVER_ACCOUNT`, `agência/conta/tipo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiverAccountConfig {
    pub agencia: String,
    pub conta: String,
    pub tipo_conta: String,
}

/// The account charges are paid into in the sandbox PSP.
pub const SANDBOX_RECEIVER_ACCOUNT: &str = "0001/1234567/CORRENTE";

/// `agência/conta/tipo`: up to 4 digits, up to 20 digits, `CORRENTE`, `POUPANCA` or `PAGAMENTO`
/// (the standard's `DadosBancariosRecebedor`).
pub fn parse_receiver_account(text: &str) -> Result<ReceiverAccountConfig, String> {
    let parts: Vec<&str> = text.trim().split('/').map(str::trim).collect();
    let [agencia, conta, tipo] = parts.as_slice() else {
        return Err("use agência/conta/tipo, por exemplo 0001/1234567/CORRENTE".into());
    };
    let digits = |t: &str, max: usize| !t.is_empty() && t.len() <= max && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(agencia, 4) {
        return Err("a agência tem de 1 a 4 dígitos".into());
    }
    if !digits(conta, 20) {
        return Err("a conta tem de 1 a 20 dígitos (com o dígito verificador, sem hífen)".into());
    }
    if !matches!(*tipo, "CORRENTE" | "POUPANCA" | "PAGAMENTO") {
        return Err("o tipo é CORRENTE, POUPANCA ou PAGAMENTO".into());
    }
    Ok(ReceiverAccountConfig {
        agencia: (*agencia).to_owned(),
        conta: (*conta).to_owned(),
        tipo_conta: (*tipo).to_owned(),
    })
}

fn ipca_series_url() -> String {
    adapters_payment::price_index::BCB_IPCA_SERIES_URL.into()
}

fn cpf_status_api_base() -> String {
    "https://gateway.apiserpro.serpro.gov.br/consulta-cpf-df/v1".into()
}

fn cpf_status_token_url() -> String {
    "https://gateway.apiserpro.serpro.gov.br/token".into()
}

fn cpf_status_timeout_ms() -> u64 {
    3_000
}

/// A day: the Receita's status of a CPF changes seldom, and each consultation is billed.
fn cpf_status_cache_seconds() -> u64 {
    86_400
}

fn twilio_api_base() -> String {
    "https://api.twilio.com".into()
}

fn messaging_channel() -> String {
    "sms".into()
}

fn stripe_api_base() -> String {
    "https://api.stripe.com".into()
}
fn signature_max_resends() -> i32 {
    3
}
fn signature_deadline_days() -> i64 {
    10
}
fn signature_remind_interval_days() -> String {
    "3".into()
}
fn signature_expiry_interval_ms() -> u64 {
    60_000
}
fn acceptance_check_interval_ms() -> u64 {
    60_000
}
/// The billing's run: every hour, so that a fleet restarting often still runs it daily (each pass
/// creates and judges only what is due, once).
fn refund_due_days() -> u32 {
    domain::refunds::DEFAULT_DUE_DAYS
}

fn billing_run_interval_ms() -> u64 {
    3_600_000
}

/// The reminder intervals Clicksign's envelopes accept (`remind_interval`, in days).
const REMIND_INTERVALS: [u8; 5] = [1, 2, 3, 7, 14];
fn mail_from() -> String {
    "Vendas <nao-responda@vendas.local>".into()
}
fn callback_retention_days() -> u64 {
    30
}
fn operation_recovery_after_ms() -> u64 {
    60_000
}
fn mail_dir() -> PathBuf {
    "target/mail".into()
}

#[derive(Clone)]
pub struct SignatureSettings {
    pub max_resends: i32,
    /// How long the parties have to sign once the envelope is created: the envelope's
    /// `deadline_at` at the provider and the proposal's; past it, `EXPIRADO`.
    pub deadline: chrono::Duration,
    /// Days between the provider's reminders to the parties who have not signed; `None`: none.
    pub remind_interval_days: Option<u8>,
    /// How often each instance looks for proposals past their deadline.
    pub expiry_interval: std::time::Duration,
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
            .field("deadline", &self.deadline)
            .field("remind_interval_days", &self.remind_interval_days)
            .field("clicksign", &self.clicksign.as_ref().map(|(url, _)| url))
            .field("callback_secret", &"***")
            .finish()
    }
}

#[derive(Clone)]
pub struct MailSettings {
    /// When set, mail goes by SMTP; else it is written as `.eml` files under `directory`.
    pub smtp_url: Option<String>,
    pub from: String,
    pub directory: PathBuf,
}

impl std::fmt::Debug for MailSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry the SMTP password.
        f.debug_struct("MailSettings")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "***"))
            .field("from", &self.from)
            .field("directory", &self.directory)
            .finish()
    }
}

/// The outside services: the payment platform, the signature provider, mail, and how long their
/// callbacks and the operations that call them are kept.
#[derive(Debug, Clone)]
pub struct OutsideSettings {
    /// Stripe's API base and secret key; when absent, the sandbox platform.
    pub stripe: Option<(String, String)>,
    /// Twilio's settings for the notices' text messages; when absent, the sandbox in development
    /// and none in production.
    pub messaging: Option<MessagingSettings>,
    /// The CPF's status at the sale (`CPF_STATUS_*`).
    pub cpf_status: CpfStatusSettings,
    pub payment_webhook_secret: Option<Vec<u8>>,
    pub signature: SignatureSettings,
    pub mail: MailSettings,
    /// How long the records of provider callbacks are kept (to apply each event once).
    pub callback_retention: std::time::Duration,
    /// How long an operation with an outside effect may stay pending before the worker finishes
    /// it (its request died between the outside call and the record).
    pub operation_recovery_after: std::time::Duration,
    /// How often each instance and the worker settle the acceptance clocks due
    /// (`ACCEPTANCE_CHECK_INTERVAL_MS`).
    pub acceptance_check_interval: std::time::Duration,
    /// How often each instance and the worker run the billing: the charges due created, the
    /// contracts with unpaid charges judged (`BILLING_RUN_INTERVAL_MS`).
    pub billing_run_interval: std::time::Duration,
    /// The calendar days a refund to pay is due in, from its day (`REFUND_DUE_DAYS`, 10).
    pub refund_due_days: u32,
    /// The IPCA's monthly series that corrects refunds (`IPCA_SERIES_URL`, the Central Bank's
    /// SGS 433); read with Stripe configured, the sandbox index standing in with the sandbox
    /// platform.
    pub ipca_series_url: String,
    /// The banks' agreements for débito automático, one per bank (`DEBIT_AGREEMENTS`); none
    /// configured, no remessa is written.
    pub debit_agreements: Vec<domain::billing::cnab150::Agreement>,
    /// The payee's PSP for Pix Automático; `None`: not configured.
    pub pix: Option<PixConfig>,
    pub pix_webhook: PixWebhookSettings,
}

impl Raw {
    pub(super) fn check(&self) -> Result<OutsideSettings, ConfigError> {
        if self.stripe_secret_key.is_some() && self.payment_webhook_secret.is_none() {
            return Err(bad(
                "PAYMENT_WEBHOOK_SECRET",
                "obrigatória quando STRIPE_SECRET_KEY está definida",
            ));
        }
        if !(self.stripe_api_base.starts_with("https://") || self.stripe_api_base.starts_with("http://")) {
            return Err(bad("STRIPE_API_BASE", "deve começar com https:// ou http://"));
        }
        let clicksign = match (self.clicksign_base_url.clone(), self.clicksign_access_token.clone()) {
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
        if self.signature_max_resends < 0 {
            return Err(bad("SIGNATURE_MAX_RESENDS", "deve ser zero ou mais"));
        }
        if !(1..=90).contains(&self.signature_deadline_days) {
            return Err(bad("SIGNATURE_DEADLINE_DAYS", "deve estar entre 1 e 90"));
        }
        if self.acceptance_check_interval_ms < 100 {
            return Err(bad("ACCEPTANCE_CHECK_INTERVAL_MS", "deve ser ao menos 100"));
        }
        if self.billing_run_interval_ms < 100 {
            return Err(bad("BILLING_RUN_INTERVAL_MS", "deve ser ao menos 100"));
        }
        if !(1..=60).contains(&self.refund_due_days) {
            return Err(bad("REFUND_DUE_DAYS", "deve estar entre 1 e 60"));
        }
        if self.signature_expiry_interval_ms < 100 {
            return Err(bad("SIGNATURE_EXPIRY_INTERVAL_MS", "deve ser ao menos 100"));
        }
        let remind_interval_days = match self.signature_remind_interval_days.trim() {
            "off" => None,
            days => match days.parse::<u8>() {
                Ok(days) if REMIND_INTERVALS.contains(&days) => Some(days),
                _ => return Err(bad("SIGNATURE_REMIND_INTERVAL_DAYS", "deve ser 1, 2, 3, 7, 14 ou off")),
            },
        };
        // Providers retry an event for up to three days (Stripe): a shorter memory could apply
        // a late retry twice.
        if self.callback_retention_days < 7 {
            return Err(bad("CALLBACK_RETENTION_DAYS", "deve ser ao menos 7"));
        }
        // Longer than the outside calls of one request take with their retries (a minute by
        // default): a shorter wait would finish operations whose request is still running.
        if self.operation_recovery_after_ms < 1_000 {
            return Err(bad("OPERATION_RECOVERY_AFTER_MS", "deve ser ao menos 1000"));
        }
        let debit_agreements = domain::billing::cnab150::Agreement::parse_list(&self.debit_agreements)
            .map_err(|reason| bad("DEBIT_AGREEMENTS", &reason))?;
        let pix = self.pix()?;
        let messaging = self.messaging()?;
        let cpf_status = self.cpf_status()?;
        if actix_web::http::header::HeaderName::from_bytes(self.pix_webhook_subject_header.trim().as_bytes()).is_err() {
            return Err(bad("PIX_WEBHOOK_SUBJECT_HEADER", "deve ser um nome de cabeçalho HTTP"));
        }
        if !(self.ipca_series_url.starts_with("https://") || self.ipca_series_url.starts_with("http://")) {
            return Err(bad("IPCA_SERIES_URL", "deve começar com https:// ou http://"));
        }
        if let Some(url) = &self.smtp_url
            && !(url.starts_with("smtp://") || url.starts_with("smtps://"))
        {
            return Err(bad("SMTP_URL", "deve começar com smtp:// ou smtps://"));
        }
        Ok(OutsideSettings {
            stripe: self
                .stripe_secret_key
                .clone()
                .map(|key| (self.stripe_api_base.clone(), key)),
            payment_webhook_secret: self.payment_webhook_secret.clone().map(String::into_bytes),
            messaging,
            cpf_status,
            signature: SignatureSettings {
                max_resends: self.signature_max_resends,
                deadline: chrono::Duration::days(self.signature_deadline_days),
                remind_interval_days,
                expiry_interval: std::time::Duration::from_millis(self.signature_expiry_interval_ms),
                clicksign,
                callback_secret: self.signature_callback_secret.clone().map(String::into_bytes),
            },
            mail: MailSettings {
                smtp_url: self.smtp_url.clone(),
                from: self.mail_from.clone(),
                directory: self.mail_dir.clone(),
            },
            callback_retention: std::time::Duration::from_secs(self.callback_retention_days * 24 * 3600),
            operation_recovery_after: std::time::Duration::from_millis(self.operation_recovery_after_ms),
            acceptance_check_interval: std::time::Duration::from_millis(self.acceptance_check_interval_ms),
            billing_run_interval: std::time::Duration::from_millis(self.billing_run_interval_ms),
            refund_due_days: self.refund_due_days,
            ipca_series_url: self.ipca_series_url.clone(),
            debit_agreements,
            pix,
            pix_webhook: PixWebhookSettings {
                header: self.pix_webhook_subject_header.trim().to_owned(),
                subjects: self
                    .pix_webhook_subjects
                    .split(';')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            },
        })
    }

    /// `CPF_STATUS_*`: Serpro's key and secret together or neither, its addresses, the timeout
    /// and how long an answer is kept.
    fn cpf_status(&self) -> Result<CpfStatusSettings, ConfigError> {
        let serpro = match (&self.cpf_status_consumer_key, &self.cpf_status_consumer_secret) {
            (None, None) => None,
            (Some(key), Some(secret)) => Some((key.clone(), secret.clone())),
            (None, Some(_)) => return Err(bad("CPF_STATUS_CONSUMER_KEY", "variável obrigatória ausente")),
            (Some(_), None) => return Err(bad("CPF_STATUS_CONSUMER_SECRET", "variável obrigatória ausente")),
        };
        for (var, url) in [
            ("CPF_STATUS_API_BASE", &self.cpf_status_api_base),
            ("CPF_STATUS_TOKEN_URL", &self.cpf_status_token_url),
        ] {
            if !(url.starts_with("https://") || url.starts_with("http://")) {
                return Err(bad(var, "deve começar com https:// ou http://"));
            }
        }
        if !(100..=60_000).contains(&self.cpf_status_timeout_ms) {
            return Err(bad("CPF_STATUS_TIMEOUT_MS", "deve estar entre 100 e 60000"));
        }
        if self.cpf_status_cache_seconds > 30 * 86_400 {
            return Err(bad("CPF_STATUS_CACHE_SECONDS", "deve ser no máximo 2592000 (30 dias)"));
        }
        Ok(CpfStatusSettings {
            serpro: serpro.map(|(consumer_key, consumer_secret)| SerproCredentials {
                api_base: self.cpf_status_api_base.clone(),
                token_url: self.cpf_status_token_url.clone(),
                consumer_key,
                consumer_secret,
            }),
            timeout: std::time::Duration::from_millis(self.cpf_status_timeout_ms),
            cache_for: chrono::Duration::seconds(i64::try_from(self.cpf_status_cache_seconds).unwrap_or(86_400)),
        })
    }

    /// `TWILIO_*`: the SID, the token and the sender, or none; `MESSAGING_CHANNEL` either way.
    fn messaging(&self) -> Result<Option<MessagingSettings>, ConfigError> {
        let channel = domain::messaging::MessageChannel::parse(self.messaging_channel.trim())
            .ok_or_else(|| bad("MESSAGING_CHANNEL", "deve ser sms ou whatsapp"))?;
        let (sid, token, from) = match (&self.twilio_account_sid, &self.twilio_auth_token, &self.twilio_from) {
            (None, None, None) => return Ok(None),
            (Some(sid), Some(token), Some(from)) => (sid, token, from),
            (None, _, _) => return Err(bad("TWILIO_ACCOUNT_SID", "variável obrigatória ausente")),
            (_, None, _) => return Err(bad("TWILIO_AUTH_TOKEN", "variável obrigatória ausente")),
            (_, _, None) => return Err(bad("TWILIO_FROM", "variável obrigatória ausente")),
        };
        if !(self.twilio_api_base.starts_with("https://") || self.twilio_api_base.starts_with("http://")) {
            return Err(bad("TWILIO_API_BASE", "deve começar com https:// ou http://"));
        }
        // E.164: a `+` and 8 to 15 digits (the environment may have read the `+` as a sign).
        let digits = from.trim().trim_start_matches('+');
        if !((8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())) {
            return Err(bad(
                "TWILIO_FROM",
                "deve ser um número no formato E.164 (+5511999999999)",
            ));
        }
        let from = format!("+{digits}");
        Ok(Some(MessagingSettings {
            api_base: self.twilio_api_base.clone(),
            account_sid: sid.clone(),
            auth_token: token.clone(),
            from,
            channel,
        }))
    }

    /// `PIX_*`: all the required ones or none, each checked and named when wrong.
    fn pix(&self) -> Result<Option<PixConfig>, ConfigError> {
        if self.pix_ca_file.is_some() && self.pix_api_base.is_none() {
            return Err(bad("PIX_API_BASE", "obrigatória quando PIX_CA_FILE está definida"));
        }
        let required = [
            ("PIX_API_BASE", self.pix_api_base.is_some()),
            ("PIX_CLIENT_ID", self.pix_client_id.is_some()),
            ("PIX_CLIENT_SECRET", self.pix_client_secret.is_some()),
            ("PIX_CERT_FILE", self.pix_cert_file.is_some()),
            ("PIX_KEY_FILE", self.pix_key_file.is_some()),
            ("PIX_KEY", self.pix_key.is_some()),
            ("PIX_RECEIVER_ACCOUNT", self.pix_receiver_account.is_some()),
        ];
        if required.iter().all(|(_, given)| !given) {
            if self.pix_token_url.is_some() {
                return Err(bad("PIX_API_BASE", "obrigatória quando PIX_TOKEN_URL está definida"));
            }
            return Ok(None);
        }
        if let Some((missing, _)) = required.iter().find(|(_, given)| !given) {
            let given: Vec<&str> = required.iter().filter(|(_, g)| *g).map(|(name, _)| *name).collect();
            return Err(bad(
                missing,
                format!("obrigatória quando {} está definida", given.join(", ")),
            ));
        }
        let (
            Some(api_base),
            Some(client_id),
            Some(client_secret),
            Some(cert_file),
            Some(key_file),
            Some(key),
            Some(account),
        ) = (
            self.pix_api_base.clone(),
            self.pix_client_id.clone(),
            self.pix_client_secret.clone(),
            self.pix_cert_file.clone(),
            self.pix_key_file.clone(),
            self.pix_key.clone(),
            self.pix_receiver_account.as_deref(),
        )
        else {
            return Ok(None);
        };
        // The API Pix is reached only over mutual TLS.
        if !api_base.starts_with("https://") {
            return Err(bad("PIX_API_BASE", "deve começar com https:// (TLS mútuo)"));
        }
        let token_url = self
            .pix_token_url
            .clone()
            .unwrap_or_else(|| format!("{}/oauth/token", api_base.trim_end_matches('/')));
        if !token_url.starts_with("https://") {
            return Err(bad("PIX_TOKEN_URL", "deve começar com https:// (TLS mútuo)"));
        }
        if key.trim().is_empty() || key.chars().count() > 77 {
            return Err(bad("PIX_KEY", "a chave Pix do recebedor tem de 1 a 77 caracteres"));
        }
        let receiver = parse_receiver_account(account).map_err(|reason| bad("PIX_RECEIVER_ACCOUNT", reason))?;
        Ok(Some(PixConfig {
            api_base: api_base.trim_end_matches('/').to_owned(),
            token_url,
            client_id,
            client_secret,
            cert_file,
            key_file,
            ca_file: self.pix_ca_file.clone(),
            key: key.trim().to_owned(),
            receiver,
        }))
    }
}

/// The CPF's status at the sale: Serpro's contract (none: the sandbox, development only), how long
/// a consultation may take and how long its answer is kept.
#[derive(Debug, Clone)]
pub struct CpfStatusSettings {
    pub serpro: Option<SerproCredentials>,
    pub timeout: std::time::Duration,
    pub cache_for: chrono::Duration,
}

/// Serpro's Consulta CPF: where, and the contract's credentials.
#[derive(Clone)]
pub struct SerproCredentials {
    pub api_base: String,
    pub token_url: String,
    pub consumer_key: String,
    pub consumer_secret: String,
}

impl std::fmt::Debug for SerproCredentials {
    // The secret is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SerproCredentials")
            .field("api_base", &self.api_base)
            .field("token_url", &self.token_url)
            .field("consumer_key", &self.consumer_key)
            .field("consumer_secret", &"***")
            .finish()
    }
}

/// Twilio's account for the notices' text messages, and the channel they go by.
#[derive(Clone)]
pub struct MessagingSettings {
    pub api_base: String,
    pub account_sid: String,
    pub auth_token: String,
    /// E.164.
    pub from: String,
    pub channel: domain::messaging::MessageChannel,
}

impl std::fmt::Debug for MessagingSettings {
    // The token is a credential: never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessagingSettings")
            .field("api_base", &self.api_base)
            .field("account_sid", &self.account_sid)
            .field("auth_token", &"***")
            .field("from", &self.from)
            .field("channel", &self.channel)
            .finish()
    }
}
