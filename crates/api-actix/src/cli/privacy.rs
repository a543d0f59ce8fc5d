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
