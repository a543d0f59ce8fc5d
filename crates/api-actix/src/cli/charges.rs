//! The charges of accepted contracts.

use super::pix::run_pix;
use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use std::sync::Arc;

#[derive(Debug, Subcommand)]
pub enum ChargesCommand {
    /// Runs one pass of the billing now: the charges falling due within 10 days created, the
    /// contracts with unpaid charges judged (late, suspended, up to date again). Every instance
    /// and the worker run it every BILLING_RUN_INTERVAL_MS.
    Run,
    /// Applies an employer's report of payroll discounts (CSV with the header
    /// identificador;competencia;valor;data_desconto): each charge paid once, however many times
    /// the report is read; prints a summary and each refused line.
    MarkPaid {
        /// The report's file.
        file: std::path::PathBuf,
    },
}

/// `sales-api charges run`: one pass of the billing now, by the clock every instance judges by.
pub async fn run_billing(config: &Config) -> Result<domain::billing::service::BillingRun, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    let mut run = services.billing(clock.clone()).run().await.map_err(failed)?;
    let ender = Arc::new(services.settlement(clock.clone())?);
    run.arrears = services.arrears(clock, ender)?.run().await.map_err(failed)?;
    Ok(run)
}

/// `sales-api charges mark-paid FILE`: an employer's report of payroll discounts applied, by
/// the back office's command line (`cli:cobranca` in the history).
pub async fn record_discounts(
    config: &Config,
    report: &str,
) -> Result<domain::billing::service::DiscountSummary, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services
        .billing(clock)
        .record_discounts(report, "cli:cobranca")
        .await
        .map_err(failed)
}

/// Runs one `charges` command.
pub(super) async fn run(command: ChargesCommand) -> Result<(), CliError> {
    match command {
        ChargesCommand::Run => {
            let config = Config::from_env()?;
            let run = run_billing(&config).await?;
            println!(
                "{} cobrança(s) criada(s); {} contrato(s) mudaram de situação",
                run.created,
                run.moved.len()
            );
            for moved in &run.moved {
                println!("{}\t{} -> {}", moved.identifier, moved.from, moved.to);
            }
            if let Some(pass) = run_pix(&config).await? {
                println!(
                    "Pix Automático: {} recorrência(s) criada(s); {} cobrança(s) enviada(s), {} nova(s) tentativa(s), {} sem envio possível; {} adiada(s)",
                    pass.recurrences, pass.sent, pass.retried, pass.unsendable, pass.deferred
                );
            }
            Ok(())
        }
        ChargesCommand::MarkPaid { file } => {
            let config = Config::from_env()?;
            let report = std::fs::read_to_string(&file).map_err(|e| failed(format!("{}: {e}", file.display())))?;
            let summary = record_discounts(&config, &report).await?;
            println!(
                "{} paga(s); {} já paga(s); {} recusada(s)",
                summary.paid,
                summary.already_paid,
                summary.refused.len()
            );
            for refused in &summary.refused {
                println!("recusada\t{refused}");
            }
            for moved in &summary.moved {
                println!("{}\t{} -> {}", moved.identifier, moved.from, moved.to);
            }
            Ok(())
        }
    }
}
