//! The LGPD's operations that run outside a request.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

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
    /// Prints, as JSON, the refused proposals' defences kept for the person of this CPF (decision
    /// 290): what they declared, the refusal's words and category, the requests for documents;
    /// kept apart for the back office for five years from the refusal (CDC art. 27), found by a
    /// keyed digest of the CPF, after the proposal's own data went.
    RefusalDefences { cpf: String },
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

/// `sales-api privacy refusal-defences CPF`: the defences kept for the person (decision 290).
pub async fn refusal_defences(config: &Config, cpf: &str) -> Result<serde_json::Value, CliError> {
    let cpf = domain::values::Cpf::parse(cpf).map_err(|r| CliError::Failed(format!("cpf: {}", r.message)))?;
    let services = Services::build(config)?;
    let sealer = crate::security::hook_keys::hook_keys(config).map_err(failed)?.sealer();
    adapters_postgres::refusal_defences::defences_of(&services.pool, &sealer, &cpf)
        .await
        .map_err(failed)
}

/// `sales-api privacy retention`: one pass of the schedule now, by the rules clock (the shared
/// development clock in development).
pub async fn privacy_retention(
    config: &Config,
    dry_run: bool,
) -> Result<domain::privacy::retention::RetentionReport, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services.retention(clock)?.run(dry_run).await.map_err(failed)
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

/// Runs one `privacy` command.
pub(super) async fn run(command: PrivacyCommand) -> Result<(), CliError> {
    match command {
        PrivacyCommand::Retention { dry_run } => {
            let config = Config::from_env()?;
            let report = privacy_retention(&config, dry_run).await?;
            print!("{}", retention_summary(&report));
            Ok(())
        }
        PrivacyCommand::RefusalDefences { cpf } => {
            let config = Config::from_env()?;
            let defences = refusal_defences(&config, &cpf).await?;
            println!("{}", serde_json::to_string_pretty(&defences).map_err(failed)?);
            Ok(())
        }
        PrivacyCommand::Ropa { json } => {
            let records = records_of_processing();
            if json {
                let text = serde_json::to_string_pretty(&records).map_err(failed)?;
                println!("{text}");
            } else {
                print!("{}", domain::privacy::declarations::records_markdown(&records));
            }
            Ok(())
        }
    }
}
