//! The catalog's settings the back office's routes do not hold.

use super::{CliError, OPERATOR, failed, lines_of};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use domain::acceptance::AcceptancePolicy;
use domain::billing::term::TermPolicy;
use domain::ecommerce::collection::PremiumCollection;

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Sets a product's acceptance policy within Lei 15.040/2024, art. 49: the days to refuse
    /// from the entry in EM ANÁLISE (at most 25), silence accepting at the deadline (always), how
    /// many requests for documents may suspend the clock (at most one), and the analysts' own
    /// target, past which an undecided proposal is overdue for them. Anything else is refused,
    /// naming the rule. Proposals already in analysis keep the clock they began with. Without
    /// options, prints the policy in effect.
    Acceptance {
        /// The product's code (`codigo_produto`).
        product: i32,
        #[command(flatten)]
        policy: AcceptanceArgs,
        #[command(flatten)]
        documents: SellerDocumentsArgs,
    },
    /// Sets how a product's contracts are billed (issue 67): the days from the acceptance to the
    /// first charge, the retries after a failed one, the grace days before a contract is late,
    /// the days from the due date before its cover may be suspended (never before the law's 15
    /// days from the notice's receipt), what an unpaid first instalment does (resolve: the law's
    /// rule, the contract ends; suspende: noticed like any other) and the days from the
    /// suspension to the end (30 to 180, Lei 15.040/2024 art. 21). The proposals and
    /// certificates print them. Contracts already accepted keep theirs. Without options, prints
    /// the rules in effect.
    Billing {
        /// The product's code (`codigo_produto`).
        product: i32,
        #[command(flatten)]
        rules: BillingArgs,
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
    /// Sets when the shop collects a product's premium (decision 271; Lei 15.040/2024 art. 19
    /// §2): cobertura_provisoria (at the sale, with provisional cover from the payment until
    /// the insurer's decision) or na_aceitacao (the card saved, the subscription held, the first
    /// premium charged only once the insurer accepts; nothing on a refusal). Sales already made
    /// keep theirs. Without options, prints the setting in effect.
    Collection {
        /// The product's code (`codigo_produto`).
        product: i32,
        /// cobertura_provisoria or na_aceitacao.
        #[arg(long)]
        at: Option<String>,
    },
    /// Declares a product collective life (Lei 15.040/2024 art. 21 §2, decision 272) with its
    /// policyholder (the estipulante) and the address its notices go to: each arrears notice is
    /// copied to it, and a contract suspended for its premium ends no sooner than 90 days after
    /// the policyholder's last notice. --individual takes the declaration back. Contracts already
    /// accepted keep theirs. Without options, prints the declaration in effect.
    Collective {
        /// The product's code (`codigo_produto`).
        product: i32,
        /// The policyholder's name.
        #[arg(long)]
        policyholder: Option<String>,
        /// The policyholder's e-mail for the notices.
        #[arg(long)]
        policyholder_email: Option<String>,
        /// The policyholder's CNPJ, printed on the certificates (Resolução CNSP 434/2021).
        #[arg(long)]
        policyholder_cnpj: Option<String>,
        /// The master policy the insured join, printed on the certificates.
        #[arg(long)]
        master_policy: Option<String>,
        /// Not collective life (every contract ends 30 days after its suspension, art. 21).
        #[arg(long, conflicts_with_all = ["policyholder", "policyholder_email", "policyholder_cnpj", "master_policy"])]
        individual: bool,
    },
    /// Registers a product's general conditions (decision 280): their version, the https://
    /// address they are read at, the SHA-256 of that file (given, or computed from --file), and
    /// the summary of exclusions and waiting periods both documents print with the glossary.
    /// Documents issued afterwards name them; those already issued keep what they printed.
    /// Without options, prints the conditions registered.
    Conditions {
        /// The product's code (`codigo_produto`).
        product: i32,
        #[command(flatten)]
        conditions: ConditionsArgs,
    },
    /// Sets whether a proposal of the product must name its beneficiaries (decision 279): with
    /// --required yes, route 5 refuses one without `beneficiaries`; without it (the default, and
    /// the demo's products) none named means the legal heirs (Lei 15.040/2024, art. 115). Without
    /// options, prints the setting.
    Beneficiaries {
        /// The product's code (`codigo_produto`).
        product: i32,
        /// yes or no.
        #[arg(long, value_parser = ["yes", "no"])]
        required: Option<String>,
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

/// `sales-api catalog beneficiaries`: whether the product requires beneficiaries, set to
/// `required` when given.
pub async fn set_product_beneficiaries(
    config: &Config,
    product: i32,
    required: Option<bool>,
) -> Result<bool, CliError> {
    adapters_postgres::PgCatalog::new(Services::build(config)?.pool)
        .beneficiaries_required(product, required, OPERATOR)
        .await
        .map_err(failed)?
        .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")))
}

/// A product's acceptance policy as given on the command line; each one left out keeps its value.
#[derive(Debug, Default, clap::Args)]
pub struct AcceptanceArgs {
    /// Days to decide (1 to 25).
    #[arg(long)]
    pub days: Option<i64>,
    /// Whether silence accepts at the deadline: only yes is within the law.
    #[arg(long, value_parser = ["yes", "no"])]
    pub tacit: Option<String>,
    /// Requests for documents that may suspend the clock (0 or 1).
    #[arg(long)]
    pub suspensions: Option<i64>,
    /// The analysts' target in days, fewer than the deadline's; 0: none.
    #[arg(long)]
    pub review_days: Option<i64>,
}

/// Who collects a product's documentation, as given on the command line (decision 289).
#[derive(Debug, Default, clap::Args)]
pub struct SellerDocumentsArgs {
    /// Whether the product's sellers collect the documentation (`documentacao`) asked of a
    /// proposal; no: every request for documents goes to the proponent.
    #[arg(long, value_parser = ["yes", "no"])]
    pub seller_documents: Option<String>,
}

/// `sales-api catalog acceptance`: the product's acceptance policy with `changes` applied (stored
/// unless no option was given), or what is wrong with them, each named by its option and the
/// rule it breaks.
pub async fn set_product_acceptance(
    config: &Config,
    product: i32,
    changes: AcceptanceArgs,
) -> Result<AcceptancePolicy, CliError> {
    let acceptance = super::acceptance::acceptance_of(config)?;
    let current = acceptance.policy(product).await.map_err(failed)?;
    let AcceptanceArgs {
        days,
        tacit,
        suspensions,
        review_days,
    } = changes;
    if days.is_none() && tacit.is_none() && suspensions.is_none() && review_days.is_none() {
        return Ok(current);
    }
    let review_days = match review_days {
        Some(0) => None,
        Some(days) => Some(days),
        None => current.review_days.map(i64::from),
    };
    let policy = AcceptancePolicy::new(
        days.unwrap_or(i64::from(current.days)),
        tacit.as_deref().map_or(current.tacit, |t| t == "yes"),
        suspensions.unwrap_or(i64::from(current.suspensions)),
        review_days,
    )
    .map_err(|v| CliError::Failed(lines_of(&v)))?
    .with_seller_documents(current.seller_documents);
    acceptance.set_policy(product, policy, OPERATOR).await.map_err(failed)
}

/// `sales-api catalog acceptance --seller-documents yes|no`: whether the product's sellers
/// collect its documentation (decision 289); the rest of the policy stays as it is.
pub async fn set_product_seller_documents(
    config: &Config,
    product: i32,
    seller_documents: bool,
) -> Result<AcceptancePolicy, CliError> {
    let acceptance = super::acceptance::acceptance_of(config)?;
    let current = acceptance.policy(product).await.map_err(failed)?;
    acceptance
        .set_policy(product, current.with_seller_documents(seller_documents), OPERATOR)
        .await
        .map_err(failed)
}

/// A product's billing rules as given on the command line; each one left out keeps its value.
#[derive(Debug, Default, clap::Args)]
pub struct BillingArgs {
    /// Days from the acceptance to the first charge (1 to 30).
    #[arg(long)]
    pub first_due_days: Option<i64>,
    /// Days after the due date a failed charge is tried again, ascending, comma-separated (at
    /// most 5, each 1 to 60; `none` for no retry).
    #[arg(long)]
    pub retry_days: Option<String>,
    /// Days after the due date before the contract is late (0 to 60).
    #[arg(long)]
    pub grace_days: Option<i64>,
    /// Days after the due date from which the cover may be suspended (more than the grace days,
    /// at most 180).
    #[arg(long)]
    pub suspension_days: Option<i64>,
    /// What an unpaid first instalment does: resolve (the contract ends) or suspende.
    #[arg(long)]
    pub first_instalment: Option<String>,
    /// Days from the suspension to the end (30 to 180).
    #[arg(long)]
    pub end_days: Option<i64>,
}

impl BillingArgs {
    fn is_empty(&self) -> bool {
        self.first_due_days.is_none()
            && self.retry_days.is_none()
            && self.grace_days.is_none()
            && self.suspension_days.is_none()
            && self.first_instalment.is_none()
            && self.end_days.is_none()
    }
}

/// `sales-api catalog billing`: the product's billing rules with `changes` applied (stored unless
/// no option was given), or what is wrong with them, each named by its option.
pub async fn set_product_billing(
    config: &Config,
    product: i32,
    changes: BillingArgs,
) -> Result<domain::billing::ProductBilling, CliError> {
    let billing = adapters_postgres::billing::PgBilling::new(Services::build(config)?.pool);
    let current = billing
        .product_billing(product)
        .await
        .map_err(failed)?
        .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")))?;
    if changes.is_empty() {
        return Ok(current);
    }
    let retries: Vec<i64> = match changes.retry_days.as_deref() {
        None => current.policy.retry_days.iter().map(|d| i64::from(*d)).collect(),
        Some("none") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|d| d.trim().parse::<i64>())
            .collect::<Result<_, _>>()
            .map_err(|_| CliError::Failed(format!("retryDays: {list} não é uma lista de dias (ex.: 1,3,5)")))?,
    };
    let policy = &current.policy;
    let rules = domain::billing::ProductBilling::new(
        (
            changes.first_due_days.unwrap_or(i64::from(policy.first_due_days)),
            &retries,
            changes.grace_days.unwrap_or(i64::from(policy.grace_days)),
            changes.suspension_days.unwrap_or(i64::from(policy.suspension_days)),
        ),
        changes
            .first_instalment
            .as_deref()
            .unwrap_or(current.first_instalment.as_str()),
        changes.end_days.unwrap_or(i64::from(current.end_days)),
    )
    .map_err(|v| CliError::Failed(lines_of(&v)))?;
    billing.set_product_billing(product, &rules).await.map_err(failed)?;
    Ok(rules)
}

/// `sales-api catalog term`: the product's term, its months or renewal changed when given (each
/// value out of the rules named with its option); the contracts already accepted keep theirs.
pub async fn set_product_term(
    config: &Config,
    product: i32,
    months: Option<i64>,
    renewal: Option<&str>,
) -> Result<TermPolicy, CliError> {
    let terms = adapters_postgres::terms::PgTerms::new(Services::build(config)?.pool);
    let current = terms
        .policy(product)
        .await
        .map_err(failed)?
        .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")))?;
    if months.is_none() && renewal.is_none() {
        return Ok(current);
    }
    let policy = TermPolicy::new(
        months.unwrap_or(i64::from(current.months)),
        renewal.unwrap_or(current.renewal.as_str()),
    )
    .map_err(|v| CliError::Failed(lines_of(&v)))?;
    terms.set_policy(product, policy).await.map_err(failed)?;
    Ok(policy)
}

/// `sales-api catalog collection`: the product's collection, set to `at` when given (an
/// unknown value named with the ones accepted).
pub async fn set_product_collection(
    config: &Config,
    product: i32,
    at: Option<&str>,
) -> Result<PremiumCollection, CliError> {
    let store = adapters_postgres::premium_collection::PgPremiumCollection::new(Services::build(config)?.pool);
    let Some(at) = at else {
        return store
            .collection(product)
            .await
            .map_err(failed)?
            .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")));
    };
    let collection = PremiumCollection::parse(at.trim()).ok_or_else(|| {
        CliError::Failed(format!(
            "at: {at} não é uma cobrança conhecida; use {}",
            PremiumCollection::ALL.map(PremiumCollection::as_str).join(" ou ")
        ))
    })?;
    if !store.set_collection(product, collection).await.map_err(failed)? {
        return Err(CliError::Failed(format!("produto {product} não encontrado")));
    }
    Ok(collection)
}

/// What `sales-api catalog collective` asks of a product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CollectiveLife {
    /// Prints the declaration in effect.
    Show,
    /// Collective life, with the policyholder's name and e-mail as given.
    Collective {
        policyholder: String,
        email: String,
    },
    Individual,
}

/// `sales-api catalog collective`: the product's policyholder after `change` (`None`: not
/// collective life), or what is wrong with it, each value named by its option.
pub async fn set_product_collective(
    config: &Config,
    product: i32,
    change: CollectiveLife,
) -> Result<Option<(String, String)>, CliError> {
    let arrears = adapters_postgres::PgArrears::new(Services::build(config)?.pool);
    let not_found = || CliError::Failed(format!("produto {product} não encontrado"));
    let (name, email) = match change {
        CollectiveLife::Show => {
            return arrears
                .collective_life(product)
                .await
                .map_err(failed)?
                .ok_or_else(not_found);
        }
        CollectiveLife::Individual => {
            if !arrears.set_collective_life(product, None).await.map_err(failed)? {
                return Err(not_found());
            }
            return Ok(None);
        }
        CollectiveLife::Collective { policyholder, email } => (policyholder, email),
    };
    let mut wrong = Vec::new();
    let name = name.trim().to_owned();
    if name.is_empty() {
        wrong.push("policyholder: informe o nome do estipulante".to_owned());
    }
    let email = match domain::values::Email::parse(email.trim()) {
        Ok(email) => Some(email),
        Err(_) => {
            wrong.push(format!("policyholderEmail: {email} não é um e-mail válido"));
            None
        }
    };
    let Some(email) = email.filter(|_| wrong.is_empty()) else {
        return Err(CliError::Failed(wrong.join("\n")));
    };
    if !arrears
        .set_collective_life(product, Some((&name, &email)))
        .await
        .map_err(failed)?
    {
        return Err(not_found());
    }
    Ok(Some((name, email.as_str().to_owned())))
}

/// `sales-api catalog collective --policyholder-cnpj --master-policy`: the collective product's
/// policyholder CNPJ and master policy, checked by the domain's rules, printed on its
/// certificates.
pub async fn set_product_master_policy(
    config: &Config,
    product: i32,
    policyholder_cnpj: Option<&str>,
    master_policy: Option<&str>,
) -> Result<(), CliError> {
    let (cnpj, master) = domain::contract::insurance::master_policy(policyholder_cnpj, master_policy)
        .map_err(|v| CliError::Failed(lines_of(&v)))?;
    if !adapters_postgres::certificates::PgCertificates::new(Services::build(config)?.pool)
        .set_master_policy(product, cnpj.as_deref(), master.as_deref())
        .await
        .map_err(failed)?
    {
        return Err(CliError::Failed(format!("produto {product} não encontrado")));
    }
    Ok(())
}

/// `sales-api catalog cover --line`: the product's line for the IOF (Decreto 6.306/2007, art.
/// 22), its proposals' premium split on route 7 and the documents following it.
pub async fn set_product_line(
    config: &Config,
    product: i32,
    line: domain::contract::insurance::InsuranceLine,
) -> Result<(), CliError> {
    if !adapters_postgres::certificates::PgCertificates::new(Services::build(config)?.pool)
        .set_line(product, line)
        .await
        .map_err(failed)?
    {
        return Err(CliError::Failed(format!("produto {product} não encontrado")));
    }
    Ok(())
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
    /// The insurer's code at SUSEP, 5 digits; left as stored when not given.
    #[arg(long)]
    pub insurer_susep_code: Option<String>,
    /// The product's line for the IOF (Decreto 6.306/2007, art. 22): pessoas (0,38%), saude
    /// (2,38%) or demais (7,38%); left as stored when not given.
    #[arg(long, value_parser = ["pessoas", "saude", "demais"])]
    pub line: Option<String>,
}

/// A product's general conditions as given on the command line.
#[derive(Debug, Default, clap::Args)]
pub struct ConditionsArgs {
    /// The conditions' version (`2.1`, `2026-12`).
    #[arg(long)]
    pub version: Option<String>,
    /// Where the customer reads them: an https:// address.
    #[arg(long)]
    pub url: Option<String>,
    /// The SHA-256 of the file at that address, 64 hexadecimal characters.
    #[arg(long, conflicts_with = "file")]
    pub sha256: Option<String>,
    /// The file published at that address, whose SHA-256 is computed here.
    #[arg(long)]
    pub file: Option<std::path::PathBuf>,
    /// The summary of the risks excluded.
    #[arg(long)]
    pub exclusions: Option<String>,
    /// The summary of the waiting periods (carências).
    #[arg(long)]
    pub waiting_periods: Option<String>,
}

impl ConditionsArgs {
    fn is_empty(&self) -> bool {
        self.version.is_none()
            && self.url.is_none()
            && self.sha256.is_none()
            && self.file.is_none()
            && self.exclusions.is_none()
            && self.waiting_periods.is_none()
    }
}

/// `sales-api catalog conditions`: the product's general conditions after `args` (stored when
/// any option is given, all checked by the domain's rules), `None` when it has none registered.
pub async fn set_product_conditions(
    config: &Config,
    product: i32,
    args: ConditionsArgs,
) -> Result<Option<domain::contract::insurance::GeneralConditions>, CliError> {
    use sha2::Digest;
    let change = if args.is_empty() {
        None
    } else {
        let sha256 = match (&args.file, args.sha256) {
            (Some(path), _) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| CliError::Failed(format!("--file: {} não pôde ser lido: {e}", path.display())))?;
                hex::encode(sha2::Sha256::digest(&bytes))
            }
            (None, sha256) => sha256.unwrap_or_default(),
        };
        let conditions = domain::contract::insurance::ConditionsInput {
            version: args.version.unwrap_or_default(),
            url: args.url.unwrap_or_default(),
            sha256,
            exclusions: args.exclusions.unwrap_or_default(),
            waiting_periods: args.waiting_periods.unwrap_or_default(),
        }
        .read()
        .map_err(|v| CliError::Failed(lines_of(&v)))?;
        Some(conditions)
    };
    adapters_postgres::certificates::PgCertificates::new(Services::build(config)?.pool)
        .general_conditions(product, change.as_ref())
        .await
        .map_err(failed)?
        .ok_or_else(|| CliError::Failed(format!("produto {product} não encontrado")))
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
        insurer_susep_code: args.insurer_susep_code,
    }
    .read()
    .map_err(|v| CliError::Failed(lines_of(&v)))
}

/// Runs one `catalog` command.
pub(super) async fn run(command: CatalogCommand) -> Result<(), CliError> {
    match command {
        CatalogCommand::Acceptance {
            product,
            policy,
            documents,
        } => {
            let config = Config::from_env()?;
            let mut policy = set_product_acceptance(&config, product, policy).await?;
            if let Some(seller) = documents.seller_documents {
                policy = set_product_seller_documents(&config, product, seller == "yes").await?;
            }
            let review = policy
                .review_days
                .map_or_else(|| "nenhuma".to_owned(), |d| format!("{d} dia(s)"));
            println!(
                "produto {product}: {} dia(s) para decidir; aceite tácito: {}; suspensões: {}; meta da análise: {review}; documentação pelo vendedor: {}",
                policy.days,
                if policy.tacit { "sim" } else { "não" },
                policy.suspensions,
                if policy.seller_documents {
                    "sim"
                } else {
                    "não (tudo pelo proponente)"
                }
            );
            Ok(())
        }
        CatalogCommand::Billing { product, rules } => {
            let config = Config::from_env()?;
            let rules = set_product_billing(&config, product, rules).await?;
            let p = &rules.policy;
            println!(
                "produto {product}: 1ª cobrança {} dia(s) após o aceite; novas tentativas nos dias {:?}; em atraso após {} dia(s); suspensão a partir de {} dia(s) do vencimento; primeira parcela: {}; encerramento {} dia(s) após a suspensão",
                p.first_due_days,
                p.retry_days,
                p.grace_days,
                p.suspension_days,
                rules.first_instalment.as_str(),
                rules.end_days
            );
            Ok(())
        }
        CatalogCommand::Term {
            product,
            months,
            renewal,
        } => {
            let config = Config::from_env()?;
            let policy = set_product_term(&config, product, months, renewal.as_deref()).await?;
            println!(
                "produto {product}: vigência de {} mes(es); renovação: {}",
                policy.months,
                policy.renewal.as_str()
            );
            Ok(())
        }
        CatalogCommand::Collection { product, at } => {
            let config = Config::from_env()?;
            let collection = set_product_collection(&config, product, at.as_deref()).await?;
            println!(
                "produto {product}: {}",
                match collection {
                    PremiumCollection::ProvisionalCover =>
                        "cobrado na contratação, com cobertura provisória até a decisão da seguradora",
                    PremiumCollection::AtAcceptance => "cobrado só na aceitação; nada antes nem na recusa",
                }
            );
            Ok(())
        }
        CatalogCommand::Beneficiaries { product, required } => {
            let config = Config::from_env()?;
            let required = set_product_beneficiaries(&config, product, required.as_deref().map(|r| r == "yes")).await?;
            println!(
                "produto {product}: {}",
                if required {
                    "a proposta deve indicar ao menos um beneficiário"
                } else {
                    "beneficiários opcionais; sem indicação, os herdeiros legais (Lei 15.040/2024, art. 115)"
                }
            );
            Ok(())
        }
        CatalogCommand::Collective {
            product,
            policyholder,
            policyholder_email,
            policyholder_cnpj,
            master_policy,
            individual,
        } => {
            let config = Config::from_env()?;
            if policyholder_cnpj.is_some() || master_policy.is_some() {
                set_product_master_policy(&config, product, policyholder_cnpj.as_deref(), master_policy.as_deref())
                    .await?;
            }
            let change = match (individual, policyholder, policyholder_email) {
                (true, _, _) => CollectiveLife::Individual,
                (false, None, None) => CollectiveLife::Show,
                (false, policyholder, email) => CollectiveLife::Collective {
                    policyholder: policyholder.unwrap_or_default(),
                    email: email.unwrap_or_default(),
                },
            };
            match set_product_collective(&config, product, change).await? {
                Some((name, email)) => println!(
                    "produto {product}: seguro coletivo de vida; estipulante {name} <{email}>; o contrato suspenso termina ao menos 90 dias após o último aviso ao estipulante"
                ),
                None => println!(
                    "produto {product}: seguro individual; o contrato suspenso termina ao menos 30 dias após a suspensão"
                ),
            }
            Ok(())
        }
        CatalogCommand::Conditions { product, conditions } => {
            let config = Config::from_env()?;
            match set_product_conditions(&config, product, conditions).await? {
                Some(c) => println!(
                    "produto {product}: condições gerais versão {}, em {}, SHA-256 {}",
                    c.version, c.url, c.sha256
                ),
                None => println!("produto {product}: condições gerais não registradas"),
            }
            Ok(())
        }
        CatalogCommand::Cover { product, cover } => {
            let config = Config::from_env()?;
            let line = cover.line.as_deref().map(|line| {
                domain::contract::insurance::InsuranceLine::parse(line)
                    .ok_or_else(|| CliError::Failed(format!("--line: {line} não é um ramo conhecido")))
            });
            let line = line.transpose()?;
            let cover = product_cover(cover)?;
            let pool = Services::build(&config)?.pool;
            let certificates = adapters_postgres::certificates::PgCertificates::new(pool);
            if !certificates.set_cover(product, &cover).await.map_err(failed)? {
                return Err(CliError::Failed(format!("produto {product} não encontrado")));
            }
            if let Some(line) = line {
                set_product_line(&config, product, line).await?;
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
