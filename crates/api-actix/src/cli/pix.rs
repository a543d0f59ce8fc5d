//! Pix Automático at the PSP.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum PixCommand {
    /// Reads back from the PSP every recurrence not ended, every charge sent and not settled and
    /// every charge sent and cancelled in the last 35 days, and applies each as a notification
    /// would (after notifications were lost): prints what it read and mended.
    Reconcile {
        /// Only read and count what differs from the PSP, changing nothing; exits 1 on drift.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `sales-api charges run`'s Pix pass: the recurrences not yet created and the Pix charges due
/// sent or tried again, each under its proposal's claim; `None` where Pix is not offered.
pub async fn run_pix(config: &Config) -> Result<Option<domain::billing::pix_collection::PixPass>, CliError> {
    match pix_collection(config).await? {
        Some(collection) => collection.run().await.map(Some).map_err(failed),
        None => Ok(None),
    }
}

/// `sales-api pix reconcile`: what the service holds of Pix Automático made to agree with the PSP.
pub async fn reconcile_pix(
    config: &Config,
    apply: bool,
) -> Result<domain::billing::pix_collection::PixReconciliation, CliError> {
    let collection = pix_collection(config)
        .await?
        .ok_or_else(|| failed("Pix Automático não está configurado (PIX_*)"))?;
    collection.reconcile(apply).await.map_err(failed)
}

async fn pix_collection(config: &Config) -> Result<Option<domain::billing::pix_collection::PixCollection>, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    Ok(services.pix_collection(clock)?)
}

/// Runs one `pix` command.
pub(super) async fn run(command: PixCommand) -> Result<(), CliError> {
    match command {
        PixCommand::Reconcile { dry_run } => {
            let config = Config::from_env()?;
            let done = reconcile_pix(&config, !dry_run).await?;
            println!(
                "{} recorrência(s) lida(s), {} corrigida(s); {} cobrança(s) lida(s), {} corrigida(s); {} divergente(s)",
                done.recurrences_read, done.recurrences_mended, done.charges_read, done.charges_mended, done.drifted
            );
            if dry_run && done.drifted > 0 {
                return Err(CliError::Failed(format!(
                    "{} objeto(s) do Pix divergente(s) do PSP; corrija com: sales-api pix reconcile",
                    done.drifted
                )));
            }
            Ok(())
        }
    }
}
