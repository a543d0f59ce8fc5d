//! Débito em conta's files for the banks.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum DebitsCommand {
    /// Writes one CNAB 150 remessa per bank agreement (DEBIT_AGREEMENTS) into DIR with every open
    /// debit due up to --until (default: today + 5 days), each agreement's files numbered in
    /// sequence; prints each file's name, debits and total.
    Remessa {
        /// Where the files are written.
        #[arg(long)]
        out: PathBuf,
        /// Only this bank's agreement (3 digits).
        #[arg(long)]
        bank: Option<String>,
        /// The last debit day included (YYYY-MM-DD).
        #[arg(long)]
        until: Option<chrono::NaiveDate>,
    },
    /// Reads a bank's CNAB 150 retorno and applies each result once (B, F and J records),
    /// whatever order or how many times the files arrive; prints a summary. A paid result whose
    /// amount is not the debit sent is refused and listed, and the command exits 1.
    Retorno {
        /// The bank's file.
        file: PathBuf,
    },
}

/// `sales-api debits remessa`: the remessas written into `out`, each as `CNAB150_<bank>_<agreement>_<NSA>.REM`.
pub async fn write_remessas(
    config: &Config,
    out: &std::path::Path,
    bank: Option<&str>,
    until: Option<chrono::NaiveDate>,
) -> Result<Vec<(PathBuf, domain::billing::cnab150::Remessa)>, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    let remessas = services.debits(clock).remessas(bank, until).await.map_err(failed)?;
    std::fs::create_dir_all(out).map_err(|e| failed(format!("{}: {e}", out.display())))?;
    let mut written = Vec::with_capacity(remessas.len());
    for remessa in remessas {
        let path = out.join(remessa.file_name());
        // Recorded with its text before it is written here: a failed write loses nothing.
        std::fs::write(&path, remessa.text()).map_err(|e| failed(format!("{}: {e}", path.display())))?;
        written.push((path, remessa));
    }
    Ok(written)
}

/// `sales-api debits retorno FILE`: a bank's return applied once.
pub async fn read_retorno(
    config: &Config,
    file: &std::path::Path,
) -> Result<domain::billing::debits::RetornoReport, CliError> {
    let text = std::fs::read_to_string(file).map_err(|e| failed(format!("{}: {e}", file.display())))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "retorno".to_owned());
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services.debits(clock).retorno(&name, &text).await.map_err(failed)
}

/// The billing pass's give-back of the payments received after their contracts ended, once now
/// (every instance and the worker run it with the billing).
pub async fn give_back_late_payments(config: &Config) -> Result<usize, CliError> {
    let state = Services::build(config)?.whole_state()?;
    state.settlement.give_back_late_payments().await.map_err(failed)
}

/// How `sales-api debits retorno` ends: a failure (exit 1) when a line was refused, so that a
/// scheduler's run of it is noticed.
pub fn retorno_outcome(report: &domain::billing::debits::RetornoReport) -> Result<(), CliError> {
    match report.summary.refused.len() {
        0 => Ok(()),
        n => Err(CliError::Failed(format!(
            "{n} linha(s) do retorno recusada(s), nada delas aplicado: confira com o banco"
        ))),
    }
}

/// Runs one `debits` command.
pub(super) async fn run(command: DebitsCommand) -> Result<(), CliError> {
    match command {
        DebitsCommand::Remessa { out, bank, until } => {
            let config = Config::from_env()?;
            let written = write_remessas(&config, &out, bank.as_deref(), until).await?;
            println!("{} remessa(s) escrita(s) em {}", written.len(), out.display());
            for (path, remessa) in &written {
                println!(
                    "{}\tNSA {}\t{} débito(s)\t{}",
                    path.display(),
                    remessa.nsa,
                    remessa.debits.len(),
                    domain::contract::formats::reais(remessa.total())
                );
            }
            Ok(())
        }
        DebitsCommand::Retorno { file } => {
            let config = Config::from_env()?;
            let report = read_retorno(&config, &file).await?;
            let s = &report.summary;
            if s.already_read {
                println!("retorno já lido antes: nada aplicado");
            } else {
                println!(
                    "{} paga(s); {} falha(s); {} autorização(ões) recusada(s); {} já aplicada(s); {} desconhecida(s); {} revogação(ões)",
                    s.paid, s.failed, s.authorizations_refused, s.already_applied, s.unknown, s.revoked
                );
            }
            for moved in &report.moved {
                println!("{}\t{} -> {}", moved.identifier, moved.from, moved.to);
            }
            for refused in &s.refused {
                println!(
                    "recusada\tlinha {}\t{}\t{}",
                    refused.line, refused.reference, refused.reason
                );
            }
            if !s.refused.is_empty() {
                return Err(CliError::Failed(format!(
                    "{} linha(s) do retorno recusada(s), nada delas aplicado: confira com o banco",
                    s.refused.len()
                )));
            }
            Ok(())
        }
    }
}
