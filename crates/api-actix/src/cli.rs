//! The `sales-api` command line: serve, migrate, create users, seed the demo data, make keys.

use crate::app::{Application, StartupError, pool_settings};
use crate::config::Config;
use crate::deployment::Environment;
use crate::routes::sandbox_payments::{PaymentAction, run_payment_action};
use crate::security::jwt::generate_key_pair;
use crate::security::password::BcryptHasher;
use adapters_postgres::{PgAccounts, PgHooks, ResealReport, build_pool, migrations, seed};
use clap::{Parser, Subcommand};
use contract_versions::ApiVersion;
use domain::acceptance::service::AcceptanceService;
use domain::acceptance::{AcceptancePolicy, SweepReport};
use domain::users::{AdministerUserError, AdministerUsers, CreateUser, CreateUserError, NewUserInput};
use domain::validation::Violations;
use std::path::PathBuf;
use std::sync::Arc;

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
    /// The catalog's settings the back office's routes do not hold.
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
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

#[derive(Debug, Subcommand)]
pub enum PrivacyCommand {
    /// Applies the retention schedule once (every instance also applies it every
    /// RETENTION_CHECK_INTERVAL_MS): unconcluded sales' health answers after
    /// RETENTION_HEALTH_UNCONCLUDED_DAYS, their personal data after RETENTION_UNCONCLUDED_DAYS,
    /// people whose contracts' holds ended; prints each person (CPF masked) and what went.
    /// --dry-run only lists what is due.
    Retention {
        #[arg(long)]
        dry_run: bool,
    },
    /// Prints the records of processing (LGPD art. 37) from the declarations in code: each
    /// category's purpose, legal basis, retention, recipients and where it is stored, as Markdown
    /// (docs/privacy.md holds the current output) or, with --json, as JSON.
    Ropa {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ReconcileCommand {
    /// Reads every stored subscription from the payment platform, lists those whose stored state
    /// differs and the refunds the platform holds that were never recorded (exit status 1 when
    /// anything differs with --dry-run) and stores the platform's subscription state, with its
    /// history entry and partners' PAGAMENTO_ALTERADO; --dry-run only lists.
    Payments {
        #[arg(long)]
        dry_run: bool,
    },
    /// Reads each proposal's envelope from the signature provider: an envelope still open on a
    /// cancelled, expired or refused proposal is cancelled at the provider; one the provider
    /// closed or cancelled while the proposal awaits signatures is listed (exit status 1 when
    /// anything differs with --dry-run, which only lists).
    Signatures {
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Sets a product's acceptance policy (Circular SUSEP 642/2021): the days to accept or refuse
    /// from the entry in EM ANÁLISE, whether silence accepts, and how many requests for
    /// documents may suspend the clock. Proposals already in analysis keep the clock they began
    /// with. Without options, prints the policy in effect.
    Acceptance {
        /// The product's code (`codigo_produto`).
        product: i32,
        /// Days to decide (1 to 90).
        #[arg(long)]
        days: Option<i64>,
        /// Whether silence accepts at the deadline: yes or no.
        #[arg(long, value_parser = ["yes", "no"])]
        tacit: Option<String>,
        /// Requests for documents that may suspend the clock (0 to 10).
        #[arg(long)]
        suspensions: Option<i64>,
    },
    /// Sets what the product's certificates say besides the proposal (issue 45): the insurer,
    /// the SUSEP process, the coverage and its capital, the SAC and the ombudsman. Certificates
    /// of a product without them wait until they are set.
    Cover {
        /// The product's code (`codigo_produto`).
        product: i32,
        #[command(flatten)]
        cover: CoverArgs,
    },
}

/// What a product's certificate says besides the proposal.
#[derive(Debug, clap::Args)]
pub struct CoverArgs {
    /// The insurer's name (a product may be another insurer's).
    #[arg(long)]
    pub insurer: String,
    /// The insurer's CNPJ, 14 digits (punctuation accepted).
    #[arg(long)]
    pub insurer_cnpj: String,
    /// The product's SUSEP process number.
    #[arg(long)]
    pub susep_process: String,
    /// The coverage, as the certificate prints it.
    #[arg(long)]
    pub coverage: String,
    /// The insured capital, in cents.
    #[arg(long)]
    pub capital: i64,
    /// The insurer's SAC contact.
    #[arg(long)]
    pub sac: String,
    /// The insurer's ombudsman contact.
    #[arg(long)]
    pub ombudsman: String,
}

#[derive(Debug, Subcommand)]
pub enum AcceptanceCommand {
    /// Runs one pass of the acceptance check now: every proposal past its deadline is accepted
    /// by silence (APROVADO, ACEITE_TACITO) where its product says so, and marked overdue
    /// otherwise. Every instance and the worker run it every ACCEPTANCE_CHECK_INTERVAL_MS.
    Sweep,
}

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

#[derive(Debug, Subcommand)]
pub enum PixCommand {
    /// Reads back from the PSP every recurrence not ended, every charge sent and not settled and
    /// every charge sent and cancelled in the last 35 days, and applies each as a notification
    /// would (after notifications were lost): prints what it read and mended.
    Reconcile {
        /// Only read and count what differs from the PSP, changing nothing; exits 1 on drift.
        #[arg(long)]
        dry_run: bool,
    },
}

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

#[derive(Debug, Subcommand)]
pub enum CertificatesCommand {
    /// Runs one pass now: every accepted contract whose certificate was not delivered gets it
    /// issued and mailed (every instance and the worker run it after each acceptance check).
    Deliver,
}

#[derive(Debug, Subcommand)]
pub enum RefundsCommand {
    /// Lists the refunds to pay not yet paid, oldest first: id, proposal, reason, amount (with
    /// the IPCA correction), since when.
    Pending,
    /// Marks a refund to pay as paid, with the bank's reference (a TED's or Pix's end-to-end id).
    Paid {
        /// The refund's id (`ap_…`), as `refunds pending` lists it.
        id: String,
        #[arg(long)]
        reference: String,
        /// Who paid it (recorded with it).
        #[arg(long, default_value = "financeiro")]
        by: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// The subscription's next charge fails (an open invoice, `past_due`); the events go to the service.
    FailPayment { subscription: String },
    /// The subscription's open invoice is paid (`active` again); the events go to the service.
    PayInvoice { subscription: String },
}

#[derive(Debug, Subcommand)]
pub enum CheckCommand {
    /// Recomputes every proposal's read-model document from its parts and lists those that
    /// differ (exit status 1 when any does); with --repair, rewrites them.
    ReadModel {
        #[arg(long)]
        repair: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validates the configuration (environment and, in development, .env) and prints every
    /// variable's value in effect, secrets masked; fails on an invalid value or, in production, on
    /// a setting production refuses.
    Check,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Re-encrypts every stored signing secret under HOOKS_ENCRYPTION_KEY (after a rotation, with
    /// the old key in HOOKS_PREVIOUS_ENCRYPTION_KEYS); then the old key may be dropped.
    Reseal {
        /// Also read secrets sealed under the key the first versions derived from the token signing
        /// key (JWT_PRIVATE_KEY_FILE), for deployments that ran without HOOKS_ENCRYPTION_KEY.
        #[arg(long)]
        legacy_token_key: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Creates a user allowed to sign in to the given applications.
    Create {
        #[arg(long)]
        email: String,
        /// Read the password from standard input (its first line); without it the password is
        /// asked at a prompt. Never an argument: it would sit in the shell history and the process
        /// list.
        #[arg(long)]
        password_stdin: bool,
        /// ECOMMERCE, PARCEIRO or BACKOFFICE; repeat for several.
        #[arg(long = "application", required = true)]
        applications: Vec<String>,
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        cpf: Option<String>,
        /// For PARCEIRO users: the CNPJ of the partner they represent (created when new).
        #[arg(long)]
        partner: Option<String>,
        #[arg(long)]
        partner_name: Option<String>,
    },
    /// Lists every user: id, e-mail, applications, the partner it represents, name, creation.
    List,
    /// Disables a user: it can no longer sign in, and every session it has ends on every
    /// instance within seconds.
    Disable {
        #[arg(long)]
        email: String,
    },
    /// Replaces a user's applications; every session it has ends (its tokens name the old ones).
    Update {
        #[arg(long)]
        email: String,
        /// ECOMMERCE, PARCEIRO or BACKOFFICE; repeat for several.
        #[arg(long = "application", required = true)]
        applications: Vec<String>,
    },
    /// Pins a user's credential to a contract version (2026-11-21, 2026-11-29, 2026-12-01): its
    /// requests that send no Sales-Version read it from the next one on; its sessions go on.
    Version {
        #[arg(long)]
        email: String,
        /// The version; without it, --unpin.
        #[arg(long, required_unless_present = "unpin", conflicts_with = "unpin")]
        version: Option<String>,
        /// Back to never pinned (2026-11-29).
        #[arg(long)]
        unpin: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SeedCommand {
    /// The demo catalog, partner and one user per application; prints their credentials.
    Demo {
        /// Do nothing when the database already has users.
        #[arg(long)]
        if_empty: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Writes a new Ed25519 key pair (PEM) to DIR/jwt-ed25519.pem and DIR/jwt-ed25519.pub.pem.
    Generate {
        #[arg(long)]
        out: PathBuf,
        /// Keep an existing pair instead of failing.
        #[arg(long)]
        keep_existing: bool,
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

/// The demo representative's CPF (a valid, fictitious number).
pub const DEMO_REPRESENTATIVE_CPF: &str = "52998224725";

/// The demo users: e-mail, password, application and name.
pub const DEMO_USERS: [(&str, &str, &str, &str); 3] = [
    (
        "parceiro@demo.com.br",
        "Parceiro#2026",
        "PARCEIRO",
        "Paula Representante Demo",
    ),
    (
        "ecommerce@demo.com.br",
        "Ecommerce#2026",
        "ECOMMERCE",
        "Loja Online Demo",
    ),
    (
        "backoffice@demo.com.br",
        "Backoffice#2026",
        "BACKOFFICE",
        "Bruno Retaguarda Demo",
    ),
];

fn create_user_service(config: &Config, accounts: PgAccounts) -> Result<CreateUser, CliError> {
    let hasher = BcryptHasher::new(config.tokens.bcrypt_cost, config.tokens.bcrypt_max_concurrent)
        .map_err(StartupError::from)?;
    Ok(CreateUser {
        writer: Arc::new(accounts),
        hasher: Arc::new(hasher),
        policy: config.tokens.password_policy,
    })
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

fn describe(error: CreateUserError) -> String {
    match error {
        CreateUserError::Invalid(v) => lines_of(&v),
        other => other.to_string(),
    }
}

fn administer_users() -> Result<AdministerUsers, CliError> {
    let config = Config::from_env()?;
    let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
    Ok(AdministerUsers {
        store: Arc::new(PgAccounts::new(pool)),
    })
}

fn describe_administration(error: AdministerUserError) -> CliError {
    CliError::Failed(match error {
        AdministerUserError::Invalid(v) => lines_of(&v),
        other => other.to_string(),
    })
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Keys {
            command: KeysCommand::Generate { out, keep_existing },
        } => generate_keys(&out, keep_existing),
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
            Ok(crate::app::run_worker(config).await?)
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
        Command::User {
            command: UserCommand::List,
        } => {
            let config = Config::from_env()?;
            let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
            let users = PgAccounts::new(pool)
                .list_users()
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("id\te-mail\taplicações\tparceiro\tnome\tcriado em");
            for u in &users {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    u.id,
                    u.email,
                    u.applications.join(","),
                    u.partner_document.as_deref().unwrap_or("-"),
                    u.name.as_deref().unwrap_or("-"),
                    u.created_at.format("%Y-%m-%d %H:%M:%S UTC")
                );
            }
            println!("{} usuário(s)", users.len());
            Ok(())
        }
        Command::User {
            command:
                UserCommand::Create {
                    email,
                    password_stdin,
                    applications,
                    name,
                    cpf,
                    partner,
                    partner_name,
                },
        } => {
            let password = read_password(password_stdin)?;
            let config = Config::from_env()?;
            let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
            let service = create_user_service(&config, PgAccounts::new(pool))?;
            let input = NewUserInput {
                email,
                password,
                applications,
                name,
                cpf,
                partner_cnpj: partner,
                partner_name,
            };
            let id = service
                .execute(input)
                .await
                .map_err(|e| CliError::Failed(describe(e)))?;
            println!("usuário {id} criado");
            Ok(())
        }
        Command::User {
            command: UserCommand::Disable { email },
        } => {
            administer_users()?
                .disable(&email)
                .await
                .map_err(describe_administration)?;
            println!("usuário {email} desativado; suas sessões foram encerradas");
            Ok(())
        }
        Command::User {
            command: UserCommand::Update { email, applications },
        } => {
            administer_users()?
                .set_applications(&email, &applications)
                .await
                .map_err(describe_administration)?;
            println!(
                "aplicações de {email}: {}; suas sessões foram encerradas",
                applications.join(",")
            );
            Ok(())
        }
        Command::User {
            command: UserCommand::Version { email, version, .. },
        } => {
            let version = version
                .map(|name| ApiVersion::parse(&name))
                .transpose()
                .map_err(|unknown| CliError::Failed(unknown.to_string()))?;
            administer_users()?
                .pin_version(&email, version.map(ApiVersion::as_str))
                .await
                .map_err(describe_administration)?;
            match version {
                Some(version) => println!("{email} fixado na versão {version} do contrato"),
                None => println!(
                    "{email} sem versão fixada: lê {} quando não envia Sales-Version",
                    ApiVersion::UNPINNED
                ),
            }
            Ok(())
        }
        Command::Config {
            command: ConfigCommand::Check,
        } => {
            let config = Config::from_env()?;
            for (var, value) in config.effective() {
                println!("{var}={value}");
            }
            crate::deployment::refuse_unsafe(&config)?;
            println!("configuração válida ({})", config.server.environment.as_str());
            Ok(())
        }
        Command::Hooks {
            command: HooksCommand::Reseal { legacy_token_key },
        } => {
            let config = Config::from_env()?;
            let report = reseal(&config, legacy_token_key).await?;
            println!(
                "{} segredo(s) recifrado(s) com a chave atual; {} já estavam nela",
                report.resealed, report.current
            );
            Ok(())
        }
        Command::Catalog {
            command:
                CatalogCommand::Acceptance {
                    product,
                    days,
                    tacit,
                    suspensions,
                },
        } => {
            let config = Config::from_env()?;
            let acceptance = acceptance_of(&config)?;
            let current = acceptance.policy(product).await.map_err(failed)?;
            let policy = if days.is_none() && tacit.is_none() && suspensions.is_none() {
                current
            } else {
                let policy = AcceptancePolicy::new(
                    days.unwrap_or(i64::from(current.days)),
                    tacit.as_deref().map_or(current.tacit, |t| t == "yes"),
                    suspensions.unwrap_or(i64::from(current.suspensions)),
                )
                .map_err(|v| CliError::Failed(lines_of(&v)))?;
                acceptance.set_policy(product, policy, OPERATOR).await.map_err(failed)?
            };
            println!(
                "produto {product}: {} dia(s) para decidir; aceite tácito: {}; suspensões: {}",
                policy.days,
                if policy.tacit { "sim" } else { "não" },
                policy.suspensions
            );
            Ok(())
        }
        Command::Acceptance {
            command: AcceptanceCommand::Sweep,
        } => {
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
        Command::Catalog {
            command: CatalogCommand::Cover { product, cover },
        } => {
            let config = Config::from_env()?;
            let cover = product_cover(cover)?;
            let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
            if !adapters_postgres::certificates::PgCertificates::new(pool)
                .set_cover(product, &cover)
                .await
                .map_err(failed)?
            {
                return Err(CliError::Failed(format!("produto {product} não encontrado")));
            }
            println!(
                "produto {product}: {} (CNPJ {}), processo SUSEP {}, {} com capital de {}",
                cover.insurer,
                domain::contract::formats::cnpj(&cover.insurer_cnpj),
                cover.susep_process,
                cover.coverage,
                domain::contract::formats::reais(cover.capital)
            );
            Ok(())
        }
        Command::Charges {
            command: ChargesCommand::Run,
        } => {
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
        Command::Pix {
            command: PixCommand::Reconcile { dry_run },
        } => {
            let config = Config::from_env()?;
            let done = reconcile_pix(&config, !dry_run).await?;
            println!(
                "{} recorrência(s) lida(s), {} corrigida(s); {} cobrança(s) lida(s), {} corrigida(s); {} divergente(s)",
                done.recurrences_read, done.recurrences_mended, done.charges_read, done.charges_mended, done.drifted
            );
            if dry_run && done.drifted > 0 {
                return Err(CliError::Failed(format!(
                    "{} objeto(s) do Pix divergente(s) do PSP; corrija com: sales-api pix reconcile",
                    done.drifted
                )));
            }
            Ok(())
        }
        Command::Ledger {
            command: LedgerCommand::Check { dry_run },
        } => {
            let config = Config::from_env()?;
            let report = check_ledger(&config, !dry_run).await?;
            print!("{}", ledger_report(&report, !dry_run));
            ledger_outcome(&report, !dry_run)
        }
        Command::Charges {
            command: ChargesCommand::MarkPaid { file },
        } => {
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
        Command::Debits {
            command: DebitsCommand::Remessa { out, bank, until },
        } => {
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
        Command::Debits {
            command: DebitsCommand::Retorno { file },
        } => {
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
        Command::Certificates {
            command: CertificatesCommand::Deliver,
        } => {
            let config = Config::from_env()?;
            let pass = deliver_certificates(&config).await?;
            println!(
                "{} certificado(s) emitido(s) e enviado(s); {} pendente(s)",
                pass.delivered.len(),
                pass.failed.len()
            );
            for identifier in &pass.delivered {
                println!("enviado\t{identifier}");
            }
            for identifier in &pass.failed {
                println!("pendente\t{identifier}");
            }
            Ok(())
        }
        Command::Refunds {
            command: RefundsCommand::Pending,
        } => {
            let config = Config::from_env()?;
            let pending = refunds_of(&config)?.pending().await.map_err(failed)?;
            print!("{}", pending_refunds_text(&pending));
            Ok(())
        }
        Command::Refunds {
            command: RefundsCommand::Paid { id, reference, by },
        } => {
            let config = Config::from_env()?;
            let paid = refunds_of(&config)?
                .mark_paid(&id, &reference, &by)
                .await
                .map_err(failed)?;
            println!("reembolso {id} marcado como pago (referência {})", reference.trim());
            if let Some(late) = &paid.late {
                println!(
                    "pago depois do vencimento: correção do atraso de {} registrada como {} (total {})",
                    domain::contract::formats::reais(late.amount),
                    late.id,
                    domain::contract::formats::reais(paid.total())
                );
            }
            Ok(())
        }
        Command::Privacy {
            command: PrivacyCommand::Retention { dry_run },
        } => {
            let config = Config::from_env()?;
            let report = privacy_retention(&config, dry_run).await?;
            print!("{}", retention_summary(&report));
            Ok(())
        }
        Command::Privacy {
            command: PrivacyCommand::Ropa { json },
        } => {
            let records = records_of_processing();
            if json {
                let text = serde_json::to_string_pretty(&records).map_err(failed)?;
                println!("{text}");
            } else {
                print!("{}", domain::privacy::declarations::records_markdown(&records));
            }
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
        Command::Reconcile {
            command: ReconcileCommand::Payments { dry_run },
        } => {
            let state = cli_state().await?;
            let report = state
                .ecommerce
                .reconcile(!dry_run)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{}", reconcile_summary(&report, dry_run));
            if dry_run && report.differs() {
                return Err(CliError::Failed(format!(
                    "{} assinatura(s) divergente(s) e {} reembolso(s) sem registro; corrija as assinaturas com: sales-api reconcile payments",
                    report.drifted.len(),
                    report.unrecorded_refunds.len()
                )));
            }
            Ok(())
        }
        Command::Reconcile {
            command: ReconcileCommand::Signatures { dry_run },
        } => {
            let state = cli_state().await?;
            let report = state
                .signing
                .reconcile(!dry_run)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{}", envelope_summary(&report, dry_run));
            if dry_run && !report.drifted.is_empty() {
                return Err(CliError::Failed(format!(
                    "{} envelope(s) divergente(s); cancele os abertos com: sales-api reconcile signatures",
                    report.drifted.len()
                )));
            }
            Ok(())
        }
        Command::Sandbox { command } => {
            let state = cli_state().await?;
            let gateway = state
                .sandbox_payments
                .as_ref()
                .and_then(|s| s.gateway.clone())
                .ok_or_else(|| {
                    CliError::Failed(
                        "a plataforma sandbox só existe em SALES_ENV=development sem STRIPE_SECRET_KEY".into(),
                    )
                })?;
            let (subscription, action) = match command {
                SandboxCommand::FailPayment { subscription } => (subscription, PaymentAction::Fail),
                SandboxCommand::PayInvoice { subscription } => (subscription, PaymentAction::Pay),
            };
            let events = run_payment_action(&gateway, &state.ecommerce, &subscription, action)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{subscription}: eventos aplicados: {}", events.join(", "));
            Ok(())
        }
        Command::Check {
            command: CheckCommand::ReadModel { repair },
        } => {
            let config = Config::from_env()?;
            let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
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
        Command::Seed {
            command: SeedCommand::Demo { if_empty },
        } => {
            let config = Config::from_env()?;
            // Demo users with published passwords have no place in production.
            if config.server.environment == Environment::Production {
                return Err(CliError::Failed(
                    "seed demo é recusado em SALES_ENV=production (usuários com senhas públicas); \
                     use SALES_ENV=development"
                        .into(),
                ));
            }
            let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
            if if_empty
                && !seed::is_empty(&pool)
                    .await
                    .map_err(|e| CliError::Failed(e.to_string()))?
            {
                println!("O banco já tem usuários: dados de demonstração não carregados.");
                return Ok(());
            }
            seed::seed_demo_catalog(&pool)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            seed::seed_demo_decided_product(&pool)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            let pool_for_rep = pool.clone();
            let service = create_user_service(&config, PgAccounts::new(pool))?;
            println!("Usuários de demonstração (e-mail / senha / aplicação):");
            for (email, password, application, name) in DEMO_USERS {
                let partner = (application == "PARCEIRO").then(|| seed::DEMO_PARTNER_CNPJ.to_owned());
                let cpf = (application == "PARCEIRO").then(|| DEMO_REPRESENTATIVE_CPF.to_owned());
                let input = NewUserInput {
                    email: email.into(),
                    password: password.into(),
                    applications: vec![application.into()],
                    name: Some(name.into()),
                    cpf,
                    partner_cnpj: partner,
                    partner_name: None,
                };
                match CreateUser::execute(&service, input).await {
                    Ok(_) | Err(CreateUserError::DuplicateEmail) => println!("  {email} / {password} / {application}"),
                    Err(e) => return Err(CliError::Failed(describe(e))),
                }
            }
            seed::finish_demo_representative(&pool_for_rep, DEMO_USERS[0].0)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            Ok(())
        }
    }
}

/// Who the command line's changes are recorded as.
const OPERATOR: &str = "sales-api";

fn failed(error: impl std::fmt::Display) -> CliError {
    CliError::Failed(error.to_string())
}

/// The acceptance use cases over the configured database, judged by the development clock as
/// every instance sees it (in development) or the machine's.
fn acceptance_of(config: &Config) -> Result<AcceptanceService, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock: std::sync::Arc<dyn domain::clock::Clock> = match crate::app::development_clock(config, &pool) {
        Some(dev) => dev.clock,
        None => std::sync::Arc::new(domain::clock::SystemClock),
    };
    Ok(crate::app::acceptance_service(&pool, clock))
}

/// A product's cover as given on the command line, checked by the domain's rules.
fn product_cover(args: CoverArgs) -> Result<domain::contract::certificate::ProductCover, CliError> {
    domain::contract::certificate::CoverInput {
        insurer: args.insurer,
        insurer_cnpj: args.insurer_cnpj,
        susep_process: args.susep_process,
        coverage: args.coverage,
        capital: args.capital,
        sac: args.sac,
        ombudsman: args.ombudsman,
    }
    .read()
    .map_err(|v| CliError::Failed(lines_of(&v)))
}

/// `sales-api certificates deliver`: one pass now.
pub async fn deliver_certificates(config: &Config) -> Result<domain::certificates::DeliveryPass, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let mail = crate::app::mailer(config)?;
    crate::app::certificate_service(&pool, mail)
        .deliver_due()
        .await
        .map_err(failed)
}

/// `refunds pending`'s text: one line per refund to pay, with what paying it today transfers, its
/// due date (and how late it is) and where to pay it.
pub fn pending_refunds_text(pending: &[domain::refunds::ports::RefundToPay]) -> String {
    use domain::contract::formats::{date, instant, reais};
    let mut text = format!("{} reembolso(s) a pagar\n", pending.len());
    for item in pending {
        let refund = &item.refund;
        let due = match (refund.due_on, &item.late_correction) {
            (Some(due), Some(late)) => format!(
                "venceu em {} ({} dia(s) de atraso; correção {})",
                date(due),
                (late.to - due).num_days(),
                reais(item.owed_today() - refund.amount)
            ),
            (Some(due), None) => format!("vence em {}", date(due)),
            (None, _) => "sem vencimento".to_owned(),
        };
        let destination = item
            .destination
            .as_ref()
            .map_or_else(|| "destino não informado".to_owned(), |d| d.for_payment());
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{due}\t{destination}\n",
            refund.id,
            item.identifier,
            refund.reason.as_str(),
            reais(item.owed_today()),
            instant(refund.created_at),
        ));
    }
    text
}

/// The finance team's refunds use cases over the configured database.
pub fn refunds_of(config: &Config) -> Result<domain::refunds::service::RefundsService, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = match crate::app::development_clock(config, &pool) {
        Some(dev) => domain::clock::FreshClock::shared(dev.clock, dev.store),
        None => domain::clock::FreshClock::fixed(std::sync::Arc::new(domain::clock::SystemClock)),
    };
    Ok(domain::refunds::service::RefundsService {
        index: crate::app::price_index(config)?,
        store: std::sync::Arc::new(adapters_postgres::refunds::PgRefunds::new(pool)),
        clock,
    })
}

/// The clock every instance judges time-bound rules by: in development the shared shift, read
/// now; else the machine's.
async fn rules_clock_now(
    config: &Config,
    pool: &adapters_postgres::PgPool,
) -> Result<std::sync::Arc<dyn domain::clock::Clock>, CliError> {
    Ok(match crate::app::development_clock(config, pool) {
        Some(dev) => {
            dev.refresh().await.map_err(failed)?;
            dev.clock.clone()
        }
        None => std::sync::Arc::new(domain::clock::SystemClock),
    })
}

/// `sales-api acceptance sweep`: one pass now, by the clock every instance judges by.
pub async fn sweep_acceptance(config: &Config) -> Result<SweepReport, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    crate::app::acceptance_service(&pool, clock)
        .sweep()
        .await
        .map_err(failed)
}

/// `sales-api debits remessa`: the remessas written into `out`, each as `CNAB150_<bank>_<agreement>_<NSA>.REM`.
pub async fn write_remessas(
    config: &Config,
    out: &std::path::Path,
    bank: Option<&str>,
    until: Option<chrono::NaiveDate>,
) -> Result<Vec<(PathBuf, domain::billing::cnab150::Remessa)>, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    let remessas = crate::app::debits_service(config, &pool, clock)
        .remessas(bank, until)
        .await
        .map_err(failed)?;
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
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    crate::app::debits_service(config, &pool, clock)
        .retorno(&name, &text)
        .await
        .map_err(failed)
}

/// The billing pass's give-back of the payments received after their contracts ended, once now
/// (every instance and the worker run it with the billing).
pub async fn give_back_late_payments(config: &Config) -> Result<usize, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let state = crate::app::build_state(config, pool, None)?;
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

/// `sales-api charges run`: one pass of the billing now, by the clock every instance judges by.
pub async fn run_billing(config: &Config) -> Result<domain::billing::service::BillingRun, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    crate::app::billing_service(&pool, clock).run().await.map_err(failed)
}

/// `sales-api charges run`'s Pix pass: the recurrences not yet created and the Pix charges due
/// sent or tried again, each under its proposal's claim; `None` where Pix is not offered.
pub async fn run_pix(config: &Config) -> Result<Option<domain::billing::pix_collection::PixPass>, CliError> {
    match pix_collection(config).await? {
        Some(collection) => collection.run().await.map(Some).map_err(failed),
        None => Ok(None),
    }
}

/// `sales-api pix reconcile`: what the service holds of Pix Automático made to agree with the PSP.
pub async fn reconcile_pix(
    config: &Config,
    apply: bool,
) -> Result<domain::billing::pix_collection::PixReconciliation, CliError> {
    let collection = pix_collection(config)
        .await?
        .ok_or_else(|| failed("Pix Automático não está configurado (PIX_*)"))?;
    collection.reconcile(apply).await.map_err(failed)
}

async fn pix_collection(config: &Config) -> Result<Option<domain::billing::pix_collection::PixCollection>, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    let claims = std::sync::Arc::new(adapters_postgres::PgOperations::new(pool.clone()));
    Ok(crate::app::pix_collection(config, &pool, claims, clock)?.map(|(collection, _)| collection))
}

/// `sales-api ledger check`: every contract's ledger against its facts; with `mend`, the missing
/// entries entered.
pub async fn check_ledger(config: &Config, mend: bool) -> Result<domain::ledger::check::LedgerReport, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    crate::app::ledger_check(&pool, clock).run(mend).await.map_err(failed)
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

/// `sales-api charges mark-paid FILE`: an employer's report of payroll discounts applied, by
/// the back office's command line (`cli:cobranca` in the history).
pub async fn record_discounts(
    config: &Config,
    report: &str,
) -> Result<domain::billing::service::DiscountSummary, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock = rules_clock_now(config, &pool).await?;
    crate::app::billing_service(&pool, clock)
        .record_discounts(report, "cli:cobranca")
        .await
        .map_err(failed)
}

/// The records of processing: each category's declaration with where the stores keep it.
pub fn records_of_processing() -> Vec<domain::privacy::declarations::ProcessingRecord> {
    domain::privacy::declarations::DECLARATIONS
        .iter()
        .map(|declaration| domain::privacy::declarations::ProcessingRecord {
            declaration: declaration.clone(),
            stored_in: adapters_postgres::personal_data_map::stored_in(declaration.category),
        })
        .collect()
}

/// `sales-api privacy retention`: one pass of the schedule now, by the rules clock (the shared
/// development clock in development).
pub async fn privacy_retention(
    config: &Config,
    dry_run: bool,
) -> Result<domain::privacy::retention::RetentionReport, CliError> {
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let clock: std::sync::Arc<dyn domain::clock::Clock> = match crate::app::development_clock(config, &pool) {
        Some(dev) => {
            dev.refresh().await.map_err(failed)?;
            dev.clock.clone()
        }
        None => std::sync::Arc::new(domain::clock::SystemClock),
    };
    crate::app::retention_service(config, &pool, clock)?
        .run(dry_run)
        .await
        .map_err(failed)
}

/// What `privacy retention` prints: the counts, then one line per person (CPF masked) with what
/// went or, on a dry run, is due.
pub fn retention_summary(report: &domain::privacy::retention::RetentionReport) -> String {
    let verb = if report.dry_run {
        "a anonimizar"
    } else {
        "anonimizado(s)"
    };
    let mut out = format!(
        "{} titular(es) {verb}; {} proposta(s) não concluída(s) {verb}; {} conjunto(s) de respostas de saúde {}\n",
        report.persons_anonymised(),
        report.proposals_anonymised(),
        report.health_answers_dropped(),
        if report.dry_run { "a descartar" } else { "descartado(s)" },
    );
    for person in &report.persons {
        let plan = &person.plan;
        let mut what = Vec::new();
        if plan.anonymise_person {
            what.push("titular anonimizado".to_string());
        }
        if plan.registrations_health {
            what.push("saúde dos cadastros".to_string());
        }
        what.extend(plan.proposals_health.iter().map(|p| format!("saúde de {p}")));
        what.extend(
            plan.proposals_anonymised
                .iter()
                .map(|p| format!("proposta {p} anonimizada")),
        );
        out.push_str(&format!("{}\t{}\n", person.masked_cpf, what.join("; ")));
    }
    out
}

/// The service's use cases over the configured database, as `serve` builds them.
async fn cli_state() -> Result<crate::state::AppState, CliError> {
    let config = Config::from_env()?;
    let pool = build_pool(&pool_settings(&config)).map_err(StartupError::from)?;
    Ok(crate::app::build_state(&config, pool, None)?)
}

/// What `reconcile payments` says: the count, then each differing subscription (the first
/// hundred) with its stored and its platform's state.
fn reconcile_summary(report: &domain::ecommerce::ReconcileReport, dry_run: bool) -> String {
    const LISTED: usize = 100;
    let state =
        |status: &str, invoice: &Option<String>| format!("{status} (fatura: {})", invoice.as_deref().unwrap_or("-"));
    let mut lines = vec![format!(
        "{} assinatura(s) conferida(s); {} divergente(s){}",
        report.checked,
        report.drifted.len(),
        if dry_run {
            String::new()
        } else {
            format!("; {} corrigida(s)", report.mended)
        }
    )];
    lines.extend(report.drifted.iter().take(LISTED).map(|drift| {
        let platform = match &drift.platform {
            Some(p) => state(&p.status, &p.latest_invoice_status),
            None => "desconhecida na plataforma (mantida)".into(),
        };
        format!(
            "  {} da proposta {}: guardada {} · plataforma {platform}",
            drift.stored.platform_id,
            drift.stored.proposal_identifier,
            state(&drift.stored.status, &drift.stored.latest_invoice_status),
        )
    }));
    if report.drifted.len() > LISTED {
        lines.push(format!("  ... e mais {}", report.drifted.len() - LISTED));
    }
    if !report.unrecorded_refunds.is_empty() {
        lines.push(format!(
            "{} reembolso(s) na plataforma sem registro no serviço (não corrigidos: registre-os sob o protocolo do pedido do cliente)",
            report.unrecorded_refunds.len()
        ));
        lines.extend(report.unrecorded_refunds.iter().take(LISTED).map(|unrecorded| {
            format!(
                "  {} de {} centavos, fatura {} da assinatura {} (proposta {})",
                unrecorded.refund.id,
                unrecorded.refund.amount,
                unrecorded.refund.invoice_id,
                unrecorded.subscription,
                unrecorded.proposal_identifier
            )
        }));
    }
    lines.join("\n")
}

/// What `reconcile signatures` says: the count, then each differing envelope (the first hundred).
fn envelope_summary(report: &domain::proposals::signing::EnvelopeReport, dry_run: bool) -> String {
    const LISTED: usize = 100;
    let mut lines = vec![format!(
        "{} envelope(s) conferido(s); {} sem estado no provedor (sandbox); {} divergente(s){}",
        report.checked,
        report.unverifiable,
        report.drifted.len(),
        if dry_run {
            String::new()
        } else {
            format!("; {} cancelado(s)", report.mended)
        }
    )];
    lines.extend(report.drifted.iter().take(LISTED).map(|drift| {
        let state = match drift.state {
            domain::signature::EnvelopeState::Open => "aberto",
            domain::signature::EnvelopeState::Closed => "concluído",
            domain::signature::EnvelopeState::Cancelled => "cancelado",
        };
        format!(
            "  envelope {} da proposta {} ({}): {state} no provedor",
            drift.stored.envelope, drift.stored.identifier, drift.stored.status
        )
    }));
    if report.drifted.len() > LISTED {
        lines.push(format!("  ... e mais {}", report.drifted.len() - LISTED));
    }
    lines.join("\n")
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

/// `hooks reseal`: every stored signing secret under the current key.
pub async fn reseal(config: &Config, legacy_token_key: bool) -> Result<ResealReport, CliError> {
    let mut keys = crate::security::hook_keys::hook_keys(config).map_err(StartupError::from)?;
    if legacy_token_key {
        keys.previous
            .extend(crate::security::hook_keys::legacy_hooks_key(config));
    }
    let pool = build_pool(&pool_settings(config)).map_err(StartupError::from)?;
    let mut report = PgHooks::new(pool.clone(), &keys)
        .reseal_all()
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    // The kept idempotent answers are sealed under the same keys.
    let (moved, current) = adapters_postgres::PgIdempotency::new(pool, keys.sealer())
        .reseal_all()
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    report.resealed += moved;
    report.current += current;
    Ok(report)
}

/// The new user's password: the first line of standard input, or typed at a prompt (not echoed).
fn read_password(from_stdin: bool) -> Result<String, CliError> {
    use std::io::{BufRead, IsTerminal};
    let password = if from_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::Failed(format!("não foi possível ler a senha da entrada padrão: {e}")))?;
        line.trim_end_matches(['\n', '\r']).to_owned()
    } else if std::io::stdin().is_terminal() {
        rpassword::prompt_password("Senha do novo usuário: ")
            .map_err(|e| CliError::Failed(format!("não foi possível ler a senha: {e}")))?
    } else {
        return Err(CliError::Failed(
            "informe a senha com --password-stdin (a entrada padrão não é um terminal)".into(),
        ));
    };
    if password.is_empty() {
        return Err(CliError::Failed("password: a senha é obrigatória".into()));
    }
    Ok(password)
}

fn generate_keys(dir: &std::path::Path, keep_existing: bool) -> Result<(), CliError> {
    let private = dir.join("jwt-ed25519.pem");
    let public = dir.join("jwt-ed25519.pub.pem");
    if private.exists() {
        if keep_existing {
            return Ok(());
        }
        return Err(CliError::Failed(format!("{} já existe", private.display())));
    }
    let (private_pem, public_pem) = generate_key_pair().map_err(|e| CliError::Failed(e.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|e| CliError::Failed(format!("{}: {e}", dir.display())))?;
    write_private(&private, &private_pem)?;
    std::fs::write(&public, public_pem).map_err(|e| CliError::Failed(format!("{}: {e}", public.display())))?;
    println!("chaves escritas em {}", dir.display());
    Ok(())
}

fn write_private(path: &std::path::Path, pem: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))?;
    file.write_all(pem.as_bytes())
        .map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))
}
