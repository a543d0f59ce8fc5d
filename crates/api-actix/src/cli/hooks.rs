//! The event subscriptions' secrets.

use super::CliError;
use crate::config::Config;
use crate::services::Services;
use crate::services::StartupError;
use adapters_postgres::PgHooks;
use adapters_postgres::ResealReport;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Re-encrypts every stored signing secret under HOOKS_ENCRYPTION_KEY (after a rotation, with
    /// the old key in HOOKS_PREVIOUS_ENCRYPTION_KEYS); then the old key may be dropped.
    Reseal {
        /// Also read secrets sealed under the key the first versions derived from the token signing
        /// key (JWT_PRIVATE_KEY_FILE), for deployments that ran without HOOKS_ENCRYPTION_KEY.
        #[arg(long)]
        legacy_token_key: bool,
    },
}

/// `hooks reseal`: every stored signing secret under the current key.
pub async fn reseal(config: &Config, legacy_token_key: bool) -> Result<ResealReport, CliError> {
    let mut keys = crate::security::hook_keys::hook_keys(config).map_err(StartupError::from)?;
    if legacy_token_key {
        keys.previous
            .extend(crate::security::hook_keys::legacy_hooks_key(config));
    }
    let pool = Services::build(config)?.pool;
    let mut report = PgHooks::new(pool.clone(), &keys)
        .reseal_all()
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    // The kept idempotent answers are sealed under the same keys.
    let (moved, current) = adapters_postgres::PgIdempotency::new(pool, keys.sealer())
        .reseal_all()
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    report.resealed += moved;
    report.current += current;
    Ok(report)
}

/// Runs one `hooks` command.
pub(super) async fn run(command: HooksCommand) -> Result<(), CliError> {
    match command {
        HooksCommand::Reseal { legacy_token_key } => {
            let config = Config::from_env()?;
            let report = reseal(&config, legacy_token_key).await?;
            println!(
                "{} segredo(s) recifrado(s) com a chave atual; {} já estavam nela",
                report.resealed, report.current
            );
            Ok(())
        }
    }
}
