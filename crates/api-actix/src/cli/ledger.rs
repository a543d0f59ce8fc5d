//! The contracts' ledger.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Compares every contract's ledger with the facts each rail recorded (the charges paid by
    /// payroll, debit and Pix, the card invoices, the refunds): enters what a fact lacks and lists
    /// what differs; exits 1 when anything differs that entering could not mend.
    Check {
        /// Only compare and list, entering nothing; exits 1 on any drift.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `sales-api ledger check`: every contract's ledger against its facts; with `mend`, the missing
/// entries entered.
pub async fn check_ledger(config: &Config, mend: bool) -> Result<domain::ledger::check::LedgerReport, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services.ledger_check(clock).run(mend).await.map_err(failed)
}

/// The check's lines: the counts, then each drift (an entry missing, without its fact, or at
/// another amount), by proposal.
pub fn ledger_report(report: &domain::ledger::check::LedgerReport, mended: bool) -> String {
    let mut out = format!(
        "{} contrato(s) conferido(s); {} divergência(s) em {} contrato(s); {} lançamento(s) inserido(s)\n",
        report.contracts, report.drift_count, report.drifted_contracts, report.entered
    );
    for d in &report.drifts {
        let what = match (d.ledger, d.fact) {
            (None, Some(fact)) if mended => format!("lançamento ausente, inserido ({fact} centavos)"),
            (None, Some(fact)) => format!("lançamento ausente ({fact} centavos)"),
            (Some(entry), None) => format!("lançamento sem fato ({entry} centavos)"),
            (Some(entry), Some(fact)) => format!("lançado {entry}, fato {fact} centavos"),
            (None, None) => "sem lançamento nem fato".to_owned(),
        };
        out.push_str(&format!(
            "{} {} {} {}: {what}\n",
            d.identifier,
            d.source.origin,
            d.source.id,
            d.source.kind.as_str()
        ));
    }
    if report.drifts.len() < report.drift_count as usize {
        out.push_str(&format!(
            "… e mais {} divergência(s)\n",
            report.drift_count as usize - report.drifts.len()
        ));
    }
    out
}

/// Exit 1 when anything differs that was not mended (with --dry-run, any drift).
pub fn ledger_outcome(report: &domain::ledger::check::LedgerReport, mended: bool) -> Result<(), CliError> {
    match report.remaining(mended) {
        0 => Ok(()),
        n if mended => Err(CliError::Failed(format!(
            "{n} divergência(s) do razão que só uma pessoa resolve (um lançamento sem fato ou com outro valor)"
        ))),
        n => Err(CliError::Failed(format!(
            "{n} divergência(s) do razão; insira os lançamentos ausentes com: sales-api ledger check"
        ))),
    }
}

/// Runs one `ledger` command.
pub(super) async fn run(command: LedgerCommand) -> Result<(), CliError> {
    match command {
        LedgerCommand::Check { dry_run } => {
            let config = Config::from_env()?;
            let report = check_ledger(&config, !dry_run).await?;
            print!("{}", ledger_report(&report, !dry_run));
            ledger_outcome(&report, !dry_run)
        }
    }
}
