//! Stored state compared with the outside services'.

use super::{CliError, cli_state};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ReconcileCommand {
    /// Reads every stored subscription from the payment platform, lists those whose stored state
    /// differs and the refunds the platform holds that were never recorded (exit status 1 when
    /// anything differs with --dry-run) and stores the platform's subscription state, with its
    /// history entry and partners' PAGAMENTO_ALTERADO; --dry-run only lists.
    Payments {
        #[arg(long)]
        dry_run: bool,
    },
    /// Reads each proposal's envelope from the signature provider: an envelope still open on a
    /// cancelled, expired or refused proposal is cancelled at the provider; one the provider
    /// closed or cancelled while the proposal awaits signatures is listed (exit status 1 when
    /// anything differs with --dry-run, which only lists).
    Signatures {
        #[arg(long)]
        dry_run: bool,
    },
}

/// What `reconcile payments` says: the count, then each differing subscription (the first
/// hundred) with its stored and its platform's state.
fn reconcile_summary(report: &domain::ecommerce::ReconcileReport, dry_run: bool) -> String {
    const LISTED: usize = 100;
    let state =
        |status: &str, invoice: &Option<String>| format!("{status} (fatura: {})", invoice.as_deref().unwrap_or("-"));
    let mut lines = vec![format!(
        "{} assinatura(s) conferida(s); {} divergente(s){}",
        report.checked,
        report.drifted.len(),
        if dry_run {
            String::new()
        } else {
            format!("; {} corrigida(s)", report.mended)
        }
    )];
    lines.extend(report.drifted.iter().take(LISTED).map(|drift| {
        let platform = match &drift.platform {
            Some(p) => state(&p.status, &p.latest_invoice_status),
            None => "desconhecida na plataforma (mantida)".into(),
        };
        format!(
            "  {} da proposta {}: guardada {} · plataforma {platform}",
            drift.stored.platform_id,
            drift.stored.proposal_identifier,
            state(&drift.stored.status, &drift.stored.latest_invoice_status),
        )
    }));
    if report.drifted.len() > LISTED {
        lines.push(format!("  ... e mais {}", report.drifted.len() - LISTED));
    }
    if !report.unrecorded_refunds.is_empty() {
        lines.push(format!(
            "{} reembolso(s) na plataforma sem registro no serviço (não corrigidos: registre-os sob o protocolo do pedido do cliente)",
            report.unrecorded_refunds.len()
        ));
        lines.extend(report.unrecorded_refunds.iter().take(LISTED).map(|unrecorded| {
            format!(
                "  {} de {} centavos, fatura {} da assinatura {} (proposta {})",
                unrecorded.refund.id,
                unrecorded.refund.amount,
                unrecorded.refund.invoice_id,
                unrecorded.subscription,
                unrecorded.proposal_identifier
            )
        }));
    }
    lines.join("\n")
}

/// What `reconcile signatures` says: the count, then each differing envelope (the first hundred).
fn envelope_summary(report: &domain::proposals::signing::EnvelopeReport, dry_run: bool) -> String {
    const LISTED: usize = 100;
    let mut lines = vec![format!(
        "{} envelope(s) conferido(s); {} sem estado no provedor (sandbox); {} divergente(s){}",
        report.checked,
        report.unverifiable,
        report.drifted.len(),
        if dry_run {
            String::new()
        } else {
            format!("; {} cancelado(s)", report.mended)
        }
    )];
    lines.extend(report.drifted.iter().take(LISTED).map(|drift| {
        let state = match drift.state {
            domain::signature::EnvelopeState::Open => "aberto",
            domain::signature::EnvelopeState::Closed => "concluído",
            domain::signature::EnvelopeState::Cancelled => "cancelado",
        };
        format!(
            "  envelope {} da proposta {} ({}): {state} no provedor",
            drift.stored.envelope, drift.stored.identifier, drift.stored.status
        )
    }));
    if report.drifted.len() > LISTED {
        lines.push(format!("  ... e mais {}", report.drifted.len() - LISTED));
    }
    lines.join("\n")
}

/// Runs one `reconcile` command.
pub(super) async fn run(command: ReconcileCommand) -> Result<(), CliError> {
    match command {
        ReconcileCommand::Payments { dry_run } => {
            let state = cli_state().await?;
            let report = state
                .ecommerce
                .reconcile(!dry_run)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{}", reconcile_summary(&report, dry_run));
            if dry_run && report.differs() {
                return Err(CliError::Failed(format!(
                    "{} assinatura(s) divergente(s) e {} reembolso(s) sem registro; corrija as assinaturas com: sales-api reconcile payments",
                    report.drifted.len(),
                    report.unrecorded_refunds.len()
                )));
            }
            Ok(())
        }
        ReconcileCommand::Signatures { dry_run } => {
            let state = cli_state().await?;
            let report = state
                .signing
                .reconcile(!dry_run)
                .await
                .map_err(|e| CliError::Failed(e.to_string()))?;
            println!("{}", envelope_summary(&report, dry_run));
            if dry_run && !report.drifted.is_empty() {
                return Err(CliError::Failed(format!(
                    "{} envelope(s) divergente(s); cancele os abertos com: sales-api reconcile signatures",
                    report.drifted.len()
                )));
            }
            Ok(())
        }
    }
}
