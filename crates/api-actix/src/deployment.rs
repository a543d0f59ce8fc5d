//! Where the service runs (`SALES_ENV`) and what that allows. Production, the default, refuses to
//! start with a sandbox behind any port or with a setting that is unsafe there; development runs
//! the sandboxes and says so. Either way the start names the adapter behind each port.

use crate::config::{Config, ConfigError};

// Read with the server's settings (`SALES_ENV`); re-exported here, where it is acted on.
pub use crate::config::Environment;

/// The adapter behind each outside port, as the start announces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adapters {
    /// `stripe` or `sandbox`.
    pub payment: &'static str,
    /// `clicksign` or `sandbox`.
    pub signature: &'static str,
    /// `smtp` or `files`.
    pub mail: &'static str,
    /// Pix Automático's PSP: `psp` (`PIX_*`), `sandbox` (development without it) or `desligado`
    /// (production without it: Pix Automático not offered).
    pub pix: &'static str,
    /// The CPF's status at the sale: `serpro` or `sandbox`.
    pub cpf_status: &'static str,
}

impl Adapters {
    pub fn of(config: &Config) -> Self {
        Self {
            payment: if config.outside.stripe.is_some() {
                "stripe"
            } else {
                "sandbox"
            },
            signature: if config.outside.signature.clicksign.is_some() {
                "clicksign"
            } else {
                "sandbox"
            },
            mail: if config.outside.mail.smtp_url.is_some() {
                "smtp"
            } else {
                "files"
            },
            pix: match (&config.outside.pix, config.server.environment) {
                (Some(_), _) => "psp",
                (None, Environment::Development) => "sandbox",
                (None, _) => "desligado",
            },
            cpf_status: if config.outside.cpf_status.serpro.is_some() {
                "serpro"
            } else {
                "sandbox"
            },
        }
    }
}

/// Whether an SMTP URL encrypts the connection: implicit TLS (`smtps://`) or STARTTLS made
/// mandatory (`smtp://host:587?tls=required`); `tls=opportunistic` would fall back to clear text.
fn smtp_is_tls(url: &str) -> bool {
    if url.starts_with("smtps://") {
        return true;
    }
    url.split_once('?')
        .is_some_and(|(_, query)| query.split('&').any(|pair| pair == "tls=required"))
}

/// Every setting that production refuses, each naming its variable; empty when it is safe.
pub fn production_refusals(config: &Config) -> Vec<String> {
    let mut refused = Vec::new();
    if config.outside.stripe.is_none() {
        refused.push("STRIPE_SECRET_KEY: ausente (a plataforma de pagamento seria o sandbox)".to_owned());
    }
    if config.outside.payment_webhook_secret.is_none() {
        refused.push("PAYMENT_WEBHOOK_SECRET: ausente (seria aleatório a cada início)".to_owned());
    }
    if config.outside.signature.clicksign.is_none() {
        refused.push(
            "CLICKSIGN_BASE_URL, CLICKSIGN_ACCESS_TOKEN: ausentes (a assinatura eletrônica seria o sandbox)".to_owned(),
        );
    }
    if config.outside.cpf_status.serpro.is_none() {
        refused.push(
            "CPF_STATUS_CONSUMER_KEY, CPF_STATUS_CONSUMER_SECRET: ausentes (a situação do CPF seria a do sandbox)"
                .to_owned(),
        );
    }
    if config.outside.signature.callback_secret.is_none() {
        refused.push("SIGNATURE_CALLBACK_SECRET: ausente (seria aleatório a cada início)".to_owned());
    }
    match &config.outside.mail.smtp_url {
        None => refused.push("SMTP_URL: ausente (os e-mails seriam gravados em arquivos)".to_owned()),
        Some(url) if !smtp_is_tls(url) => refused
            .push("SMTP_URL: sem TLS (use smtps:// ou smtp://...?tls=required para STARTTLS obrigatório)".to_owned()),
        Some(_) => {}
    }
    if config.hooks.encryption_key.is_none() {
        refused.push(
            "HOOKS_ENCRYPTION_KEY: ausente (cifra os segredos dos webhooks; a mesma em toda instância)".to_owned(),
        );
    }
    if config.privacy.contacts.is_none() {
        refused.push(
            "PRIVACY_CONTROLLER_NAME, PRIVACY_CONTROLLER_CNPJ, PRIVACY_CONTROLLER_ADDRESS, PRIVACY_DPO_NAME, \
             PRIVACY_DPO_EMAIL, PRIVACY_DPO_CHANNEL: ausentes (o aviso de privacidade não nomearia o controlador \
             e o encarregado, LGPD art. 9º, III e art. 41, § 1º)"
                .to_owned(),
        );
    }
    if !config.tokens.sessions.check {
        refused.push("SESSION_CHECK: off (tokens de sessões encerradas continuariam valendo)".to_owned());
    }
    if !config.server.public_url.starts_with("https://") {
        refused.push(format!(
            "PUBLIC_URL: deve começar com https:// em produção (é {})",
            config.server.public_url
        ));
    }
    refused
}

/// Refuses, in production, a configuration that is not safe there, naming every problem at once.
pub fn refuse_unsafe(config: &Config) -> Result<(), ConfigError> {
    if config.server.environment == Environment::Development {
        return Ok(());
    }
    let refused = production_refusals(config);
    if refused.is_empty() {
        return Ok(());
    }
    Err(ConfigError(format!(
        "SALES_ENV=production recusa iniciar: {}. Para desenvolvimento local, SALES_ENV=development.",
        refused.join("; ")
    )))
}

/// One INFO line naming the adapter behind each port (never a secret) and, in development, one
/// WARN line naming each sandbox in use.
pub fn announce(config: &Config) {
    let adapters = Adapters::of(config);
    tracing::info!(
        environment = config.server.environment.as_str(),
        payment = adapters.payment,
        signature = adapters.signature,
        mail = adapters.mail,
        pix = adapters.pix,
        cpf_status = adapters.cpf_status,
        "adaptadores: pagamento {}, assinatura {}, e-mail {}, Pix Automático {}, situação do CPF {}",
        adapters.payment,
        adapters.signature,
        adapters.mail,
        adapters.pix,
        adapters.cpf_status
    );
    if config.server.environment == Environment::Development {
        let mut sandboxes = Vec::new();
        if adapters.payment == "sandbox" {
            sandboxes.push("pagamento (sandbox)".to_owned());
        }
        if adapters.signature == "sandbox" {
            sandboxes.push("assinatura (sandbox, com as páginas /sandbox/*)".to_owned());
        }
        if adapters.pix == "sandbox" {
            sandboxes.push("Pix Automático (PSP sandbox)".to_owned());
        }
        if adapters.cpf_status == "sandbox" {
            sandboxes.push("situação do CPF (sandbox, REGULAR salvo o definido em /sandbox/kyc/cpf)".to_owned());
        }
        if adapters.mail == "files" {
            sandboxes.push(format!(
                "e-mail (arquivos .eml em {})",
                config.outside.mail.directory.display()
            ));
        }
        if config.hooks.encryption_key.is_none() {
            sandboxes.push("chave de webhooks gerada (HOOKS_ENCRYPTION_KEY ausente)".to_owned());
        }
        if !sandboxes.is_empty() {
            tracing::warn!(
                "SALES_ENV=development: em uso, nada disso serve para produção: {}",
                sandboxes.join(", ")
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: [(&str, &str); 3] = [
        ("SALES_ENV", "development"),
        ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
        ("JWT_PRIVATE_KEY_FILE", "target/dev-keys/jwt.pem"),
    ];

    /// A production configuration with every outside service and secret set.
    fn complete() -> Vec<(&'static str, &'static str)> {
        vec![
            ("DATABASE_URL", "postgres://postgres@127.0.0.1/sales"),
            ("JWT_PRIVATE_KEY_FILE", "/keys/jwt.pem"),
            ("PUBLIC_URL", "https://vendas.exemplo.com.br"),
            ("STRIPE_SECRET_KEY", "sk_live_1"),
            ("PAYMENT_WEBHOOK_SECRET", "whsec_1"),
            ("CLICKSIGN_BASE_URL", "https://app.clicksign.com"),
            ("CLICKSIGN_ACCESS_TOKEN", "token"),
            ("CPF_STATUS_CONSUMER_KEY", "chave-do-contrato"),
            ("CPF_STATUS_CONSUMER_SECRET", "segredo-do-contrato"),
            ("SIGNATURE_CALLBACK_SECRET", "um-segredo-bem-longo"),
            ("SMTP_URL", "smtps://u:p@smtp.exemplo.com.br:465"),
            ("HOOKS_ENCRYPTION_KEY", "BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU="),
            ("PRIVACY_CONTROLLER_NAME", "Seguradora Exemplo S.A."),
            ("PRIVACY_CONTROLLER_CNPJ", "01444777000108"),
            ("PRIVACY_CONTROLLER_ADDRESS", "Rua Exemplo, 1, São Paulo/SP"),
            ("PRIVACY_DPO_NAME", "Ana Encarregada"),
            ("PRIVACY_DPO_EMAIL", "encarregado@exemplo.com.br"),
            ("PRIVACY_DPO_CHANNEL", "https://exemplo.com.br/privacidade"),
        ]
    }

    #[test]
    fn production_names_who_answers_for_the_data_or_refuses_naming_what_is_missing() {
        let config = Config::from_pairs(&complete()).unwrap();
        let contacts = config.privacy.contacts.clone().unwrap();
        assert_eq!(
            contacts.controller_cnpj.as_str(),
            "01444777000108",
            "read as text: the leading zero kept"
        );
        assert_eq!(contacts.dpo_email.as_str(), "encarregado@exemplo.com.br");
        let without = |names: &[&str]| -> Vec<(&'static str, &'static str)> {
            complete().into_iter().filter(|(k, _)| !names.contains(k)).collect()
        };
        let none = Config::from_pairs(&without(&[
            "PRIVACY_CONTROLLER_NAME",
            "PRIVACY_CONTROLLER_CNPJ",
            "PRIVACY_CONTROLLER_ADDRESS",
            "PRIVACY_DPO_NAME",
            "PRIVACY_DPO_EMAIL",
            "PRIVACY_DPO_CHANNEL",
        ]))
        .unwrap();
        let err = refuse_unsafe(&none).unwrap_err().to_string();
        assert!(
            err.contains("PRIVACY_CONTROLLER_NAME") && err.contains("art. 41"),
            "{err}"
        );
        assert!(none.privacy.contacts(Environment::Production).is_err());
        assert_eq!(
            none.privacy.contacts(Environment::Development).unwrap(),
            domain::privacy::notice::PrivacyContacts::development()
        );
        let partial = Config::from_pairs(&without(&["PRIVACY_DPO_EMAIL"]))
            .unwrap_err()
            .to_string();
        assert!(partial.contains("PRIVACY_DPO_EMAIL"), "{partial}");
        let mut bad = complete();
        bad.push(("PRIVACY_CONTROLLER_CNPJ", "11444777000100"));
        let err = Config::from_pairs(&bad).unwrap_err().to_string();
        assert!(err.contains("PRIVACY_CONTROLLER_CNPJ"), "{err}");
    }

    #[test]
    fn production_is_the_default_and_a_bad_value_is_named() {
        assert_eq!(Environment::parse(None).unwrap(), Environment::Production);
        assert_eq!(
            Environment::parse(Some("development")).unwrap(),
            Environment::Development
        );
        let err = Environment::parse(Some("staging")).unwrap_err().to_string();
        assert!(err.contains("SALES_ENV"), "{err}");
    }

    #[test]
    fn a_complete_production_configuration_is_accepted() {
        let config = Config::from_pairs(&complete()).unwrap();
        assert_eq!(config.server.environment, Environment::Production);
        assert!(refuse_unsafe(&config).is_ok());
        assert_eq!(
            Adapters::of(&config),
            Adapters {
                payment: "stripe",
                signature: "clicksign",
                mail: "smtp",
                pix: "desligado",
                cpf_status: "serpro"
            }
        );
    }

    #[test]
    fn the_session_check_may_be_turned_off_only_in_development() {
        let mut pairs = complete();
        pairs.push(("SESSION_CHECK", "off"));
        let err = refuse_unsafe(&Config::from_pairs(&pairs).unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("SESSION_CHECK"), "{err}");
        let mut dev = DEV.to_vec();
        dev.push(("SESSION_CHECK", "off"));
        let config = Config::from_pairs(&dev).unwrap();
        assert!(!config.tokens.sessions.check);
        assert!(refuse_unsafe(&config).is_ok());
        dev.push(("SESSION_CHECK", "talvez"));
        let err = Config::from_pairs(&dev).unwrap_err().to_string();
        assert!(err.contains("SESSION_CHECK"), "{err}");
    }

    #[test]
    fn production_names_every_unsafe_setting_at_once() {
        let config = Config::from_pairs(&DEV[1..]).unwrap();
        let err = refuse_unsafe(&config).unwrap_err().to_string();
        for var in [
            "STRIPE_SECRET_KEY",
            "PAYMENT_WEBHOOK_SECRET",
            "CLICKSIGN_BASE_URL",
            "SIGNATURE_CALLBACK_SECRET",
            "CPF_STATUS_CONSUMER_KEY",
            "SMTP_URL",
            "HOOKS_ENCRYPTION_KEY",
            "PUBLIC_URL",
        ] {
            assert!(err.contains(var), "{var} not named: {err}");
        }
    }

    #[test]
    fn each_unsafe_setting_alone_is_refused() {
        for (var, value) in [
            ("SMTP_URL", "smtp://smtp.exemplo.com.br:25"),
            ("SMTP_URL", "smtp://smtp.exemplo.com.br:587?tls=opportunistic"),
            ("PUBLIC_URL", "http://vendas.exemplo.com.br"),
        ] {
            let mut pairs = complete();
            pairs.retain(|(k, _)| *k != var);
            pairs.push((var, value));
            let err = refuse_unsafe(&Config::from_pairs(&pairs).unwrap())
                .unwrap_err()
                .to_string();
            assert!(err.contains(var), "{var}={value}: {err}");
        }
        for var in [
            "HOOKS_ENCRYPTION_KEY",
            "SIGNATURE_CALLBACK_SECRET",
            "SMTP_URL",
            "CPF_STATUS_CONSUMER_KEY",
        ] {
            let mut pairs = complete();
            pairs.retain(|(k, _)| *k != var);
            // The provider's own checks may name a companion variable too; this one must be named.
            let refused = Config::from_pairs(&pairs)
                .map_err(|e| e.to_string())
                .and_then(|c| refuse_unsafe(&c).map_err(|e| e.to_string()));
            assert!(refused.unwrap_err().contains(var), "{var}");
        }
        let mut starttls = complete();
        starttls.retain(|(k, _)| *k != "SMTP_URL");
        starttls.push(("SMTP_URL", "smtp://u:p@smtp.exemplo.com.br:587?tls=required"));
        assert!(refuse_unsafe(&Config::from_pairs(&starttls).unwrap()).is_ok());
    }

    #[test]
    fn development_accepts_the_sandboxes() {
        let config = Config::from_pairs(&DEV).unwrap();
        assert_eq!(config.server.environment, Environment::Development);
        assert!(refuse_unsafe(&config).is_ok());
        assert_eq!(
            Adapters::of(&config),
            Adapters {
                payment: "sandbox",
                signature: "sandbox",
                mail: "files",
                pix: "sandbox",
                cpf_status: "sandbox"
            }
        );
    }
}
