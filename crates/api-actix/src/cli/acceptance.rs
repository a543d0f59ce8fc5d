//! The acceptance clocks of the proposals in analysis.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use domain::acceptance::SweepReport;
use domain::acceptance::service::AcceptanceService;
use domain::ecommerce::collection::CollectionPass;

#[derive(Debug, Subcommand)]
pub enum AcceptanceCommand {
    /// Runs one pass of the acceptance check now: every proposal past its deadline is accepted
    /// by silence (APROVADO, ACEITE_TACITO) where its product says so, and marked overdue
    /// otherwise. Every instance and the worker run it every ACCEPTANCE_CHECK_INTERVAL_MS.
    Sweep,
    /// Charges now the first premium of the shop's accepted contracts whose product collects
    /// only at acceptance (decision 271): each held subscription's hold ended at the payment
    /// platform under its proposal's claim. The worker runs it after every acceptance sweep.
    Collect,
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

/// `sales-api acceptance collect`: one collection pass now, by the clock every instance judges by.
pub async fn collect_at_acceptance(config: &Config) -> Result<CollectionPass, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services.collection(clock)?.run().await.map_err(failed)
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
        AcceptanceCommand::Collect => {
            let config = Config::from_env()?;
            let pass = collect_at_acceptance(&config).await?;
            println!(
                "{} primeira(s) mensalidade(s) cobrada(s) na aceitação; {} adiada(s)",
                pass.collected.len(),
                pass.deferred
            );
            for identifier in &pass.collected {
                println!("cobrada\t{identifier}");
            }
            Ok(())
        }
    }
}
