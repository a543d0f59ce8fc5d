//! The certificates of accepted contracts.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum CertificatesCommand {
    /// Runs one pass now: every accepted contract whose certificate was not delivered gets it
    /// issued and mailed (every instance and the worker run it after each acceptance check).
    Deliver,
}

/// `sales-api certificates deliver`: one pass now.
pub async fn deliver_certificates(config: &Config) -> Result<domain::certificates::DeliveryPass, CliError> {
    Services::build(config)?
        .certificates()?
        .deliver_due()
        .await
        .map_err(failed)
}

/// Runs one `certificates` command.
pub(super) async fn run(command: CertificatesCommand) -> Result<(), CliError> {
    match command {
        CertificatesCommand::Deliver => {
            let config = Config::from_env()?;
            let pass = deliver_certificates(&config).await?;
            println!(
                "{} certificado(s) emitido(s) e enviado(s); {} retido(s) (contrato encerrado antes do envio); {} pendente(s)",
                pass.delivered.len(),
                pass.withheld.len(),
                pass.failed.len()
            );
            for identifier in &pass.delivered {
                println!("enviado\t{identifier}");
            }
            for identifier in &pass.withheld {
                println!("retido\t{identifier}");
            }
            for identifier in &pass.failed {
                println!("pendente\t{identifier}");
            }
            Ok(())
        }
    }
}
