//! The partners' settings the back office's routes do not hold.

use super::{CliError, OPERATOR, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum PartnersCommand {
    /// Records a partner's registration as a broker at SUSEP (Resolução CNSP 382/2020: the
    /// intermediary identified; decision 280): the proposals and certificates of its sales print
    /// it from then on. --remove takes it back.
    Broker {
        /// The partner's CNPJ or CPF (`cpf_cnpj`), digits only.
        partner: String,
        /// The registration number (dots and dashes accepted and dropped).
        #[arg(long, required_unless_present = "remove")]
        susep_registration: Option<String>,
        /// Removes the registration.
        #[arg(long, conflicts_with = "susep_registration")]
        remove: bool,
    },
}

/// `sales-api partners broker`: the partner's registration after the change (`None`: removed),
/// or what is wrong with it.
pub async fn set_partner_broker(
    config: &Config,
    partner: &str,
    registration: Option<&str>,
) -> Result<Option<String>, CliError> {
    let registration = registration
        .map(domain::contract::insurance::broker_registration)
        .transpose()
        .map_err(CliError::Failed)?;
    let found = adapters_postgres::certificates::PgCertificates::new(Services::build(config)?.pool)
        .set_broker_registration(partner, registration.as_deref(), OPERATOR)
        .await
        .map_err(failed)?;
    if !found {
        return Err(CliError::Failed(format!("parceiro {partner} não encontrado")));
    }
    Ok(registration)
}

/// Runs one `partners` command.
pub(super) async fn run(command: PartnersCommand) -> Result<(), CliError> {
    match command {
        PartnersCommand::Broker {
            partner,
            susep_registration,
            remove,
        } => {
            let config = Config::from_env()?;
            let registration = if remove { None } else { susep_registration };
            match set_partner_broker(&config, &partner, registration.as_deref()).await? {
                Some(registration) => println!("parceiro {partner}: corretor com registro SUSEP {registration}"),
                None => println!("parceiro {partner}: sem registro SUSEP de corretor"),
            }
            Ok(())
        }
    }
}
