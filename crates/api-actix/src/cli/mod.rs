//! The `sales-api` command line: serve, the worker, migrate, and one module per group of commands
//! (users, keys, the demo seed, the catalog's settings, the money's runs and files, the LGPD's
//! operations, checks and reconciliations), each with its subcommands and what runs them.

mod acceptance;
mod catalog;
mod certificates;
mod charges;
mod check;
mod configuration;
mod debits;
mod hooks;
mod keys;
mod kyc;
mod ledger;
mod partners;
mod pix;
mod privacy;
mod reconcile;
mod refunds;
mod sandbox;
mod seed;
mod users;

pub use acceptance::{AcceptanceCommand, collect_at_acceptance, sweep_acceptance};
pub use catalog::{
    AcceptanceArgs, BillingArgs, CatalogCommand, CollectiveLife, ConditionsArgs, CoverArgs, set_product_acceptance,
    set_product_beneficiaries, set_product_billing, set_product_collection, set_product_collective,
    set_product_conditions, set_product_line, set_product_master_policy, set_product_seller_documents,
    set_product_term,
};
pub use certificates::{CertificatesCommand, deliver_certificates};
pub use charges::{ChargesCommand, averbacao_of, record_averbacao, record_discounts, run_billing};
pub use check::CheckCommand;
pub use configuration::ConfigCommand;
pub use debits::{DebitsCommand, give_back_late_payments, read_retorno, retorno_outcome, write_remessas};
pub use hooks::{HooksCommand, reseal};
pub use keys::KeysCommand;
pub use kyc::{KycCommand, PepCommand, import_pep_list, pep_import_summary};
pub use ledger::{LedgerCommand, check_ledger, ledger_outcome, ledger_report};
pub use partners::{PartnersCommand, set_partner_broker};
pub use pix::{PixCommand, reconcile_pix, run_pix};
pub use privacy::{PrivacyCommand, privacy_retention, records_of_processing, refusal_defences, retention_summary};
pub use reconcile::ReconcileCommand;
pub use refunds::{RefundsCommand, pending_refunds_text, refunds_of};
pub use sandbox::SandboxCommand;
pub use seed::{DEMO_REPRESENTATIVE_CPF, DEMO_USERS, SeedCommand};
pub use users::UserCommand;

use crate::app::Application;
use crate::config::Config;
use crate::services::Services;
use crate::services::StartupError;
use adapters_postgres::migrations;
use clap::{Parser, Subcommand};
use contract_versions::ApiVersion;
use domain::validation::Violations;

#[derive(Debug, Parser)]
#[command(
    name = "sales-api",
    version,
    about = "Back end de vendas: propostas, clientes, assinatura, e-commerce e eventos."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serves the HTTP API (applies pending migrations first unless --no-migrate or MIGRATE_ON_START=false).
    Serve {
        #[arg(long)]
        no_migrate: bool,
    },
    /// The background work with no HTTP server: webhook deliveries (`serve` delivers them too unless
    /// HOOKS_WORKER=false) and the signing deadlines' expiry.
    Worker,
    /// Applies pending database migrations and exits.
    Migrate {
        /// Create the database named by DATABASE_URL first when it does not exist.
        #[arg(long)]
        create_database: bool,
    },
    /// Manages users (there is no sign-up route).
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Loads data sets.
    Seed {
        #[command(subcommand)]
        command: SeedCommand,
    },
    /// Manages token signing keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// The configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Event subscriptions (webhooks).
    Hooks {
        #[command(subcommand)]
        command: HooksCommand,
    },
    /// Consistency checks of stored data.
    Check {
        #[command(subcommand)]
        command: CheckCommand,
    },
    /// Prints the OpenAPI document the service serves at /openapi.json (docs/openapi.json is
    /// this output, kept by a test); with --version, that contract version's
    /// (docs/openapi/VERSION.json, served at /openapi.json?version=VERSION).
    Openapi {
        #[arg(long)]
        version: Option<String>,
    },
    /// Compares stored state with the outside services'.
    Reconcile {
        #[command(subcommand)]
        command: ReconcileCommand,
    },
    /// Know your customer's lists: the loads of the CGU's PEP list (issue 70).
    Kyc {
        #[command(subcommand)]
        command: KycCommand,
    },
    /// The catalog's settings the back office's routes do not hold.
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
    },
    /// The partners' settings the back office's routes do not hold (their SUSEP registration).
    Partners {
        #[command(subcommand)]
        command: PartnersCommand,
    },
    /// The acceptance clocks of the proposals in analysis (issue 45).
    Acceptance {
        #[command(subcommand)]
        command: AcceptanceCommand,
    },
    /// The charges of accepted contracts (issue 46).
    Charges {
        #[command(subcommand)]
        command: ChargesCommand,
    },
    /// Pix Automático at the PSP (issue 46).
    Pix {
        #[command(subcommand)]
        command: PixCommand,
    },
    /// Débito em conta's files for the banks (issue 46).
    Debits {
        #[command(subcommand)]
        command: DebitsCommand,
    },
    /// The contracts' ledger (issue 65).
    Ledger {
        #[command(subcommand)]
        command: LedgerCommand,
    },
    /// The certificates of accepted contracts.
    Certificates {
        #[command(subcommand)]
        command: CertificatesCommand,
    },
    /// The refunds the finance team pays (payroll discount, account debit, corrections above what
    /// a card was charged).
    Refunds {
        #[command(subcommand)]
        command: RefundsCommand,
    },
    /// The LGPD's operations that run outside a request.
    Privacy {
        #[command(subcommand)]
        command: PrivacyCommand,
    },
    /// The sandbox payment platform on demand (SALES_ENV=development, no STRIPE_SECRET_KEY).
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("{0}")]
    Failed(String),
}

/// One line per bad field.
fn lines_of(violations: &Violations) -> String {
    violations
        .errors()
        .iter()
        .map(|e| format!("{}: {}", e.field, e.message))
        .collect::<Vec<_>>()
        .join("\n")
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Serve { no_migrate } => {
            let mut config = Config::from_env()?;
            config.server.migrate_on_start &= !no_migrate;
            let app = Application::build(config.clone()).await?;
            tracing::info!(addr = %config.server.bind_addr, public_url = %config.server.public_url, "serving");
            app.run_until_stopped()
                .await
                .map_err(|e| CliError::Failed(e.to_string()))
        }
        Command::Worker => {
            let config = Config::from_env()?;
            Ok(crate::jobs::worker::run_worker(config).await?)
        }
        Command::Migrate { create_database } => {
            let config = Config::from_env()?;
            if create_database
                && migrations::create_database_if_missing(config.session_url())
                    .await
                    .map_err(StartupError::from)?
            {
                println!("banco de dados criado");
            }
            let applied = migrations::run_pending(config.session_url())
                .await
                .map_err(StartupError::from)?;
            println!("{} migração(ões) aplicada(s)", applied.len());
            Ok(())
        }
        Command::Openapi { version } => {
            let version = match version {
                Some(name) => ApiVersion::parse(&name).map_err(|unknown| CliError::Failed(unknown.to_string()))?,
                None => ApiVersion::NEWEST,
            };
            println!("{}", crate::routes::docs::document_text_of(version));
            Ok(())
        }
        Command::User { command } => users::run(command).await,
        Command::Keys { command } => keys::run(command).await,
        Command::Seed { command } => seed::run(command).await,
        Command::Config { command } => configuration::run(command).await,
        Command::Hooks { command } => hooks::run(command).await,
        Command::Check { command } => check::run(command).await,
        Command::Reconcile { command } => reconcile::run(command).await,
        Command::Catalog { command } => catalog::run(command).await,
        Command::Kyc { command } => kyc::run(command).await,
        Command::Partners { command } => partners::run(command).await,
        Command::Acceptance { command } => acceptance::run(command).await,
        Command::Charges { command } => charges::run(command).await,
        Command::Pix { command } => pix::run(command).await,
        Command::Debits { command } => debits::run(command).await,
        Command::Ledger { command } => ledger::run(command).await,
        Command::Certificates { command } => certificates::run(command).await,
        Command::Refunds { command } => refunds::run(command).await,
        Command::Privacy { command } => privacy::run(command).await,
        Command::Sandbox { command } => sandbox::run(command).await,
    }
}

/// Who the command line's changes are recorded as.
const OPERATOR: &str = "sales-api";

fn failed(error: impl std::fmt::Display) -> CliError {
    CliError::Failed(error.to_string())
}

/// The service's use cases over the configured database, as `serve` builds them.
async fn cli_state() -> Result<crate::state::AppState, CliError> {
    Ok(Services::build(&Config::from_env()?)?.whole_state()?)
}
