//! The demo data set.

use super::CliError;
use super::users::{create_user_service, describe};
use crate::config::Config;
use crate::deployment::Environment;
use crate::services::Services;
use adapters_postgres::PgAccounts;
use clap::Subcommand;
use domain::users::NewUserInput;
use domain::users::{CreateUser, CreateUserError};

#[derive(Debug, Subcommand)]
pub enum SeedCommand {
    /// The demo catalog, partner and one user per application; prints their credentials.
    Demo {
        /// Do nothing when the database already has users.
        #[arg(long)]
        if_empty: bool,
    },
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

/// Runs one `seed` command.
pub(super) async fn run(command: SeedCommand) -> Result<(), CliError> {
    match command {
        SeedCommand::Demo { if_empty } => {
            let config = Config::from_env()?;
            // Demo users with published passwords have no place in production.
            if config.server.environment == Environment::Production {
                return Err(CliError::Failed(
                    "seed demo é recusado em SALES_ENV=production (usuários com senhas públicas); \
                     use SALES_ENV=development"
                        .into(),
                ));
            }
            let pool = Services::build(&config)?.pool;
            if if_empty
                && !adapters_postgres::seed::is_empty(&pool)
                    .await
                    .map_err(|e| CliError::Failed(e.to_string()))?
            {
                println!("O banco já tem usuários: dados de demonstração não carregados.");
                return Ok(());
            }
            adapters_postgres::seed::seed_demo_catalog(&pool)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            adapters_postgres::seed::seed_demo_decided_product(&pool)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            adapters_postgres::seed::seed_demo_at_acceptance_product(&pool)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            let pool_for_rep = pool.clone();
            let service = create_user_service(&config, PgAccounts::new(pool))?;
            println!("Usuários de demonstração (e-mail / senha / aplicação):");
            for (email, password, application, name) in DEMO_USERS {
                let partner =
                    (application == "PARCEIRO").then(|| adapters_postgres::seed::DEMO_PARTNER_CNPJ.to_owned());
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
            adapters_postgres::seed::finish_demo_representative(&pool_for_rep, DEMO_USERS[0].0)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            Ok(())
        }
    }
}
