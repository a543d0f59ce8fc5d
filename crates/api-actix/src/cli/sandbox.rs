//! The sandbox payment platform on demand.

use super::{CliError, cli_state};
use crate::routes::sandbox_payments::PaymentAction;
use crate::routes::sandbox_payments::run_payment_action;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// The subscription's next charge fails (an open invoice, `past_due`); the events go to the service.
    FailPayment { subscription: String },
    /// The subscription's open invoice is paid (`active` again); the events go to the service.
    PayInvoice { subscription: String },
}

/// Runs one `sandbox` command.
pub(super) async fn run(command: SandboxCommand) -> Result<(), CliError> {
    let state = cli_state().await?;
    let gateway = state
        .sandbox_payments
        .as_ref()
        .and_then(|s| s.gateway.clone())
        .ok_or_else(|| {
            CliError::Failed("a plataforma sandbox só existe em SALES_ENV=development sem STRIPE_SECRET_KEY".into())
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
