//! Know your customer's lists (issue 70): the loads an operator runs when a list is published.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use domain::kyc::pep_list::{PepImportError, PepImportReport};
use std::path::PathBuf;

/// Who the loads are recorded as.
const IMPORTED_BY: &str = "cli:kyc";

#[derive(Debug, Subcommand)]
pub enum KycCommand {
    /// The CGU's list of politically exposed persons.
    Pep {
        #[command(subcommand)]
        command: PepCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum PepCommand {
    /// Loads the Portal da Transparência's monthly file (AAAAMM_PEP.csv: `;`, a header line, the
    /// nine columns by position; Latin-1 or UTF-8), replacing the list in force in one
    /// transaction; prints the lines read, taken and refused (each refused line with its number
    /// and why). A file that is not the list is refused whole and the list in force kept (exit 1).
    Import { file: PathBuf },
}

/// `sales-api kyc pep import FILE`.
pub async fn import_pep_list(config: &Config, file: &std::path::Path) -> Result<PepImportReport, CliError> {
    let bytes = std::fs::read(file).map_err(|e| CliError::Failed(format!("{}: {e}", file.display())))?;
    let source = file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let services = Services::build(config)?;
    let store = adapters_postgres::pep_list::PgPepList::new(services.pool.clone());
    domain::kyc::pep_list::import(&store, &bytes, &source, IMPORTED_BY)
        .await
        .map_err(|error| match error {
            PepImportError::File(refused) => CliError::Failed(refused.to_string()),
            PepImportError::Store(error) => failed(error),
        })
}

/// What the import prints: the counts, then each refused line.
pub fn pep_import_summary(report: &PepImportReport) -> String {
    let import = &report.import;
    let mut out = format!(
        "lista de PEP {} (sha256 {}): {} linha(s) lida(s), {} pessoa(s) em vigor, {} recusada(s)\n",
        import.source, import.sha256, import.lines_read, import.entries, import.refused
    );
    for refused in &report.refused {
        out.push_str(&format!("linha {}: {}\n", refused.line, refused.reason));
    }
    out
}

/// Runs one `kyc` command.
pub(super) async fn run(command: KycCommand) -> Result<(), CliError> {
    match command {
        KycCommand::Pep {
            command: PepCommand::Import { file },
        } => {
            let config = Config::from_env()?;
            let report = import_pep_list(&config, &file).await?;
            print!("{}", pep_import_summary(&report));
            Ok(())
        }
    }
}
