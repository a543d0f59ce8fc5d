//! The refunds the finance team pays.

use super::{CliError, failed};
use crate::config::Config;
use crate::services::Services;
use clap::Subcommand;

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
    Ok(Services::build(config)?.refunds()?)
}

/// Runs one `refunds` command.
pub(super) async fn run(command: RefundsCommand) -> Result<(), CliError> {
    match command {
        RefundsCommand::Pending => {
            let config = Config::from_env()?;
            let pending = refunds_of(&config)?.pending().await.map_err(failed)?;
            print!("{}", pending_refunds_text(&pending));
            Ok(())
        }
        RefundsCommand::Paid { id, reference, by } => {
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
    }
}
