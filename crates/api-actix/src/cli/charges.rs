//! The charges of accepted contracts.

use super::pix::run_pix;
use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;
use std::sync::Arc;

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
    /// Lists the payroll contracts whose discount waits for its averbação (where no consignment
    /// platform is wired, the back office registers each at the employer's platform).
    Averbacoes,
    /// Records what the employer's consignment platform answered for a contract's averbação
    /// (forward only: pendente, then ativa or recusada; ativa, then cancelada). A contract is
    /// billed only while its averbação is ativa.
    Averbacao {
        /// The proposal's identificador.
        identifier: String,
        /// The platform's id of the averbação.
        #[arg(long)]
        id: String,
        /// pendente, ativa, recusada or cancelada.
        #[arg(long)]
        status: String,
        /// Why it was refused or cancelled.
        #[arg(long)]
        reason: Option<String>,
        /// The margin left after it, in cents.
        #[arg(long)]
        margin: Option<i64>,
    },
}

/// `sales-api charges averbacao`: the back office's record of an averbação, by the command line
/// (`cli:averbacao` in the history). True when it changed something.
pub async fn record_averbacao(
    config: &Config,
    identifier: &str,
    averbacao: &domain::billing::averbacao::Averbacao,
) -> Result<bool, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services
        .averbacao(clock)
        .record_by_office(identifier, averbacao, "cli:averbacao")
        .await
        .map_err(failed)
}

/// The averbação `sales-api charges averbacao` records, from its options; each value out of the
/// rules named with its option.
pub fn averbacao_of(
    id: &str,
    status: &str,
    reason: Option<String>,
    margin: Option<i64>,
) -> Result<domain::billing::averbacao::Averbacao, CliError> {
    use domain::billing::averbacao::{Averbacao, AverbacaoStatus};
    let status = AverbacaoStatus::parse(status.trim())
        .ok_or_else(|| failed(format!("--status {status}: use pendente, ativa, recusada ou cancelada")))?;
    if id.trim().is_empty() || id.trim().chars().count() > 120 {
        return Err(failed("--id: de 1 a 120 caracteres"));
    }
    if margin.is_some_and(|m| m < 0) {
        return Err(failed("--margin: centavos, não negativo"));
    }
    // The column's own limit (averbacoes.motivo).
    if reason.as_ref().is_some_and(|r| r.trim().chars().count() > 200) {
        return Err(failed("--reason: até 200 caracteres"));
    }
    Ok(Averbacao {
        id: id.trim().to_owned(),
        status,
        margin_cents: margin,
        reason: reason.map(|r| r.trim().to_owned()).filter(|r| !r.is_empty()),
    })
}

/// `sales-api charges run`: one pass of the billing now, by the clock every instance judges by.
pub async fn run_billing(config: &Config) -> Result<domain::billing::service::BillingRun, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    let averbacao = services.averbacao(clock.clone()).run().await.map_err(failed)?;
    let mut run = services.billing(clock.clone()).run().await.map_err(failed)?;
    run.averbacao = averbacao;
    let ender = Arc::new(services.settlement(clock.clone())?);
    run.arrears = services
        .arrears(clock.clone(), ender.clone())?
        .run()
        .await
        .map_err(failed)?;
    run.term = services.terms(clock, ender)?.run().await.map_err(failed)?;
    Ok(run)
}

/// `sales-api charges mark-paid FILE`: an employer's report of payroll discounts applied, by
/// the back office's command line (`cli:cobranca` in the history).
pub async fn record_discounts(
    config: &Config,
    report: &str,
) -> Result<domain::billing::service::DiscountSummary, CliError> {
    let services = Services::build(config)?;
    let clock = services.rules_clock_now().await.map_err(failed)?;
    services
        .billing(clock)
        .record_discounts(report, "cli:cobranca")
        .await
        .map_err(failed)
}

/// Runs one `charges` command.
pub(super) async fn run(command: ChargesCommand) -> Result<(), CliError> {
    match command {
        ChargesCommand::Run => {
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
            let a = run.averbacao;
            println!(
                "averbações: {} pedida(s), {} ativa(s), {} recusada(s), {} cancelada(s), {} adiada(s), {} aguardando o backoffice",
                a.requested, a.activated, a.refused, a.cancelled, a.deferred, a.awaiting_office
            );
            println!(
                "vigências: {} aviso(s) enviado(s), {} renovada(s), {} encerrada(s)",
                run.term.notices.len(),
                run.term.renewed.len(),
                run.term.ended.len()
            );
            for renewed in &run.term.renewed {
                println!("{renewed}	renovada");
            }
            for ended in &run.term.ended {
                println!("{ended}	encerrada no fim da vigência");
            }
            if let Some(pass) = run_pix(&config).await? {
                println!(
                    "Pix Automático: {} recorrência(s) criada(s); {} cobrança(s) enviada(s), {} nova(s) tentativa(s), {} sem envio possível; {} adiada(s)",
                    pass.recurrences, pass.sent, pass.retried, pass.unsendable, pass.deferred
                );
            }
            Ok(())
        }
        ChargesCommand::MarkPaid { file } => {
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
        ChargesCommand::Averbacoes => {
            let config = Config::from_env()?;
            let services = Services::build(&config)?;
            let clock = services.rules_clock_now().await.map_err(failed)?;
            let awaiting = services.averbacao(clock).awaiting().await.map_err(failed)?;
            println!("identificador\ttipo\tnumero\tespecie\tvalor_mensal\taceita_em");
            for case in &awaiting {
                let r = &case.request;
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    case.identifier,
                    r.sheet_type.as_str(),
                    r.number,
                    r.specie.map(|s| s.to_string()).unwrap_or_default(),
                    domain::contract::formats::reais(r.monthly_amount_cents),
                    case.accepted_on
                );
            }
            Ok(())
        }
        ChargesCommand::Averbacao {
            identifier,
            id,
            status,
            reason,
            margin,
        } => {
            let averbacao = averbacao_of(&id, &status, reason, margin)?;
            let status = averbacao.status;
            let config = Config::from_env()?;
            if record_averbacao(&config, &identifier, &averbacao).await? {
                println!("averbação {} de {identifier}: {status}", averbacao.id);
            } else {
                println!(
                    "averbação {} de {identifier} já estava {status}: nada mudou",
                    averbacao.id
                );
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::billing::averbacao::AverbacaoStatus;

    fn refused(result: Result<domain::billing::averbacao::Averbacao, CliError>) -> String {
        match result {
            Err(error) => error.to_string(),
            Ok(averbacao) => panic!("accepted: {averbacao:?}"),
        }
    }

    #[test]
    fn an_averbacao_out_of_the_rules_is_refused_naming_its_option() {
        assert!(refused(averbacao_of("AV-1", "aprovada", None, None)).contains("--status aprovada"));
        assert!(refused(averbacao_of("  ", "ativa", None, None)).contains("--id"));
        assert!(refused(averbacao_of(&"9".repeat(121), "ativa", None, None)).contains("--id"));
        assert!(refused(averbacao_of("AV-1", "ativa", None, Some(-1))).contains("--margin"));
        assert!(refused(averbacao_of("AV-1", "recusada", Some("x".repeat(201)), None)).contains("--reason"));
    }

    #[test]
    fn an_averbacao_within_the_rules_is_taken_trimmed() {
        let taken = averbacao_of(" AV-1 ", " recusada ", Some(" margem insuficiente ".into()), Some(0)).unwrap();
        assert_eq!(taken.id, "AV-1");
        assert_eq!(taken.status, AverbacaoStatus::Refused);
        assert_eq!(taken.reason.as_deref(), Some("margem insuficiente"));
        assert_eq!(taken.margin_cents, Some(0));
        assert_eq!(
            averbacao_of("AV-1", "ativa", Some("  ".into()), None).unwrap().reason,
            None
        );
    }
}
