//! The acceptance clocks of the proposals in analysis.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use domain::acceptance::SweepReport;
use domain::acceptance::service::AcceptanceService;

#[derive(Debug, Subcommand)]
pub enum AcceptanceCommand {
    /// Runs one pass of the acceptance check now: every proposal past its deadline is accepted
    /// by silence (APROVADO, ACEITE_TACITO) where its product says so, and marked overdue
    /// otherwise. Every instance and the worker run it every ACCEPTANCE_CHECK_INTERVAL_MS.
    Sweep,
}

/// The acceptance use cases over the configured database, judged by the development clock as
/// every instance sees it (in development) or the machine's.
pub(super) fn acceptance_of(config: &Config) -> Result<AcceptanceService, CliError> {
    let services = Services::build(config)?;
    Ok(services.acceptance(services.rules_clock()))
}

/// `sales-api acceptance sweep`: one pass now, by the clock every instance judges by.
pub async fn sweep_acceptance(config: &Config) -> Result<SweepReport, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services.acceptance(clock).sweep().await.map_err(failed)
}

/// Runs one `acceptance` command.
pub(super) async fn run(command: AcceptanceCommand) -> Result<(), CliError> {
    match command {
        AcceptanceCommand::Sweep => {
            let config = Config::from_env()?;
            let report = sweep_acceptance(&config).await?;
            println!(
                "{} proposta(s) aceita(s) tacitamente; {} vencida(s) sem decisão",
                report.accepted.len(),
                report.overdue.len()
            );
            for identifier in &report.accepted {
                println!("aceita\t{identifier}");
            }
            for identifier in &report.overdue {
                println!("vencida\t{identifier}");
            }
            Ok(())
        }
    }
}
