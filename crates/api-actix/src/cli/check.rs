//! Consistency checks of stored data.

use super::CliError;
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum CheckCommand {
    /// Recomputes every proposal's read-model document from its parts and lists those that
    /// differ (exit status 1 when any does); with --repair, rewrites them.
    ReadModel {
        #[arg(long)]
        repair: bool,
    },
}

/// What `check read-model` says: the count, then each differing proposal (the first hundred).
fn read_model_summary(report: &adapters_postgres::ReadModelReport, repair: bool) -> String {
    const LISTED: usize = 100;
    let mut lines = vec![format!(
        "{} proposta(s) conferida(s); {} documento(s) divergente(s){}",
        report.checked,
        report.drifted.len(),
        if repair {
            format!("; {} reescrito(s)", report.repaired)
        } else {
            String::new()
        }
    )];
    lines.extend(
        report
            .drifted
            .iter()
            .take(LISTED)
            .map(|identifier| format!("  {identifier}")),
    );
    if report.drifted.len() > LISTED {
        lines.push(format!("  ... e mais {}", report.drifted.len() - LISTED));
    }
    lines.join("\n")
}

/// Runs one `check` command.
pub(super) async fn run(command: CheckCommand) -> Result<(), CliError> {
    match command {
        CheckCommand::ReadModel { repair } => {
            let config = Config::from_env()?;
            let pool = Services::build(&config)?.pool;
            let report = adapters_postgres::check_read_model(&pool, repair)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{}", read_model_summary(&report, repair));
            if report.drifted.is_empty() || repair {
                Ok(())
            } else {
                Err(CliError::Failed(format!(
                    "{} documento(s) de leitura divergente(s); corrija com: sales-api check read-model --repair",
                    report.drifted.len()
                )))
            }
        }
    }
}
