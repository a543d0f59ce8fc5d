//! The catalog's settings the back office's routes do not hold.

use super::{CliError, OPERATOR, failed, lines_of};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use domain::acceptance::AcceptancePolicy;
use domain::billing::term::TermPolicy;

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
    /// Sets a product's term (decision 270): how many months each contract runs from the day the
    /// insurer received its proposal, and whether it renews automatically at the end (a notice
    /// 30 days before, a new term and certificate) or ends (a notice 30 days before, then
    /// CANCELADO with the reason FIM_DE_VIGENCIA). Contracts already accepted keep the term they
    /// began with. Without options, prints the term in effect.
    Term {
        /// The product's code (`codigo_produto`).
        product: i32,
        /// Months of each term (1 to 60).
        #[arg(long)]
        months: Option<i64>,
        /// At the end: automatica (renews) or nenhuma (ends).
        #[arg(long, value_parser = ["automatica", "nenhuma"])]
        renewal: Option<String>,
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

/// Runs one `catalog` command.
pub(super) async fn run(command: CatalogCommand) -> Result<(), CliError> {
    match command {
        CatalogCommand::Acceptance {
            product,
            days,
            tacit,
            suspensions,
        } => {
            let config = Config::from_env()?;
            let acceptance = super::acceptance::acceptance_of(&config)?;
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
        CatalogCommand::Term {
            product,
            months,
            renewal,
        } => {
            let config = Config::from_env()?;
            let terms = adapters_postgres::terms::PgTerms::new(Services::build(&config)?.pool);
            let current = terms
                .policy(product)
                .await
                .map_err(failed)?
                .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")))?;
            let policy = if months.is_none() && renewal.is_none() {
                current
            } else {
                let policy = TermPolicy::new(
                    months.unwrap_or(i64::from(current.months)),
                    renewal.as_deref().unwrap_or(current.renewal.as_str()),
                )
                .map_err(|v| CliError::Failed(lines_of(&v)))?;
                terms.set_policy(product, policy).await.map_err(failed)?;
                policy
            };
            println!(
                "produto {product}: vigência de {} mes(es); renovação: {}",
                policy.months,
                policy.renewal.as_str()
            );
            Ok(())
        }
        CatalogCommand::Cover { product, cover } => {
            let config = Config::from_env()?;
            let cover = product_cover(cover)?;
            let pool = Services::build(&config)?.pool;
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
    }
}
