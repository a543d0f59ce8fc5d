//! The configuration as the service reads it.

use super::CliError;
use crate::config::Config;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validates the configuration (environment and, in development, .env) and prints every
    /// variable's value in effect, secrets masked; fails on an invalid value or, in production, on
    /// a setting production refuses.
    Check,
}

/// Runs one `config` command.
pub(super) async fn run(command: ConfigCommand) -> Result<(), CliError> {
    match command {
        ConfigCommand::Check => {
            let config = Config::from_env()?;
            for (var, value) in config.effective() {
                println!("{var}={value}");
            }
            crate::deployment::refuse_unsafe(&config)?;
            println!("configuração válida ({})", config.server.environment.as_str());
            Ok(())
        }
    }
}
