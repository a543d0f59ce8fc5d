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
            use domain::billing::averbacao::{Averbacao, AverbacaoStatus};
            let status = AverbacaoStatus::parse(&status)
                .ok_or_else(|| failed(format!("--status {status}: use pendente, ativa, recusada ou cancelada")))?;
            if id.trim().is_empty() || id.chars().count() > 120 {
                return Err(failed("--id: de 1 a 120 caracteres"));
            }
            if margin.is_some_and(|m| m < 0) {
                return Err(failed("--margin: centavos, não negativo"));
            }
            let averbacao = Averbacao {
                id: id.trim().to_owned(),
                status,
                margin_cents: margin,
                reason,
            };
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
