//! The users (there is no sign-up route): list, create, disable, change applications, pin a contract version.

use super::{CliError, lines_of};
use crate::config::Config;
use crate::security::password::BcryptHasher;
use crate::services::Services;
use crate::services::StartupError;
use adapters_postgres::PgAccounts;
use clap::Subcommand;
use contract_versions::ApiVersion;
use domain::users::{AdministerUserError, AdministerUsers, CreateUser, CreateUserError, NewUserInput};
use std::sync::Arc;

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
    /// Pins a user's credential to a contract version (2026-11-21, 2026-11-29, 2026-12-01, 2026-12-06): its
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

pub(super) fn create_user_service(config: &Config, accounts: PgAccounts) -> Result<CreateUser, CliError> {
    let hasher = BcryptHasher::new(config.tokens.bcrypt_cost, config.tokens.bcrypt_max_concurrent)
        .map_err(StartupError::from)?;
    Ok(CreateUser {
        writer: Arc::new(accounts),
        hasher: Arc::new(hasher),
        policy: config.tokens.password_policy,
    })
}

pub(super) fn describe(error: CreateUserError) -> String {
    match error {
        CreateUserError::Invalid(v) => lines_of(&v),
        other => other.to_string(),
    }
}

fn administer_users() -> Result<AdministerUsers, CliError> {
    let config = Config::from_env()?;
    let pool = Services::build(&config)?.pool;
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

/// Runs one `user` command.
pub(super) async fn run(command: UserCommand) -> Result<(), CliError> {
    match command {
        UserCommand::List => {
            let config = Config::from_env()?;
            let pool = Services::build(&config)?.pool;
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
        UserCommand::Create {
            email,
            password_stdin,
            applications,
            name,
            cpf,
            partner,
            partner_name,
        } => {
            let password = read_password(password_stdin)?;
            let config = Config::from_env()?;
            let pool = Services::build(&config)?.pool;
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
        UserCommand::Disable { email } => {
            administer_users()?
                .disable(&email)
                .await
                .map_err(describe_administration)?;
            println!("usuário {email} desativado; suas sessões foram encerradas");
            Ok(())
        }
        UserCommand::Update { email, applications } => {
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
        UserCommand::Version { email, version, .. } => {
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
    }
}
