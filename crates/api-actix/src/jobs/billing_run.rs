//! The billing's run: the payroll discounts' averbações, the charges due, the notices of an
//! unpaid premium, the terms' ends and renewals, Pix Automático's pass and the late payments
//! given back.

/// The passes the billing's run makes, in their order.
pub(crate) struct BillingPasses {
    pub averbacao: domain::billing::averbacao::AverbacaoService,
    pub billing: domain::billing::service::BillingService,
    pub arrears: domain::billing::arrears::ArrearsService,
    pub terms: domain::billing::term::TermService,
    pub pix: Option<domain::billing::pix_collection::PixCollection>,
    pub settlement: domain::proposals::settlement::SettlementService,
    pub ledger: domain::ledger::check::LedgerCheck,
}

/// Runs the billing every `interval`, the first pass at the start. Every instance runs it: each
/// contract's charges are created under its claim, once per period, and a status moves once.
pub(crate) fn spawn_billing_run(passes: BillingPasses, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    let BillingPasses {
        averbacao,
        billing,
        arrears,
        terms,
        pix,
        settlement,
        ledger,
    } = passes;
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // The averbações first: a payroll contract is billed only under an active one.
            match averbacao.run().await {
                Ok(pass) if pass == Default::default() => {}
                Ok(pass) => tracing::info!(?pass, "averbação pass"),
                Err(error) => tracing::warn!(%error, "averbação pass could not complete"),
            }
            match billing.run().await {
                Ok(run) if run.created == 0 && run.moved.is_empty() => {}
                Ok(run) => tracing::info!(created = run.created, moved = run.moved.len(), "billing run"),
                Err(error) => tracing::warn!(%error, "billing run could not complete"),
            }
            // The law's notices of the contracts the run found behind, and their ends.
            match arrears.run().await {
                Ok(pass) if pass == Default::default() => {}
                Ok(pass) => tracing::info!(
                    notices = pass.notices.len(),
                    ended = pass.ended.len(),
                    receipts = pass.receipts,
                    "arrears pass"
                ),
                Err(error) => tracing::warn!(%error, "arrears pass could not complete"),
            }
            // The terms' end: the notices 30 days before, the renewals and the ends (decision 270).
            match terms.run().await {
                Ok(pass) if pass == Default::default() => {}
                Ok(pass) => tracing::info!(
                    notices = pass.notices.len(),
                    renewed = pass.renewed.len(),
                    ended = pass.ended.len(),
                    "term pass"
                ),
                Err(error) => tracing::warn!(%error, "term pass could not complete"),
            }
            // The Pix charges the run created, sent in their window (each under its claim).
            if let Some(pix) = &pix {
                match pix.run().await {
                    Ok(pass) if pass == Default::default() => {}
                    Ok(pass) => tracing::info!(?pass, "Pix collection pass"),
                    Err(error) => tracing::warn!(%error, "Pix collection pass could not complete"),
                }
            }
            // What a rail reported paid after its contract ended goes back (each under its claim).
            match settlement.give_back_late_payments().await {
                Ok(0) => {}
                Ok(given) => tracing::info!(given, "payments received after the end given back"),
                Err(error) => tracing::warn!(%error, "late payments' refunds could not complete"),
            }
            // The ledger's nightly check, by the first instance to take the day.
            match ledger.nightly().await {
                Ok(None) => {}
                Ok(Some(report)) if report.drift_count == 0 => {
                    tracing::info!(contracts = report.contracts, "ledger check: no drift")
                }
                Ok(Some(report)) => tracing::error!(
                    contracts = report.contracts,
                    drifts = report.drift_count,
                    drifted_contracts = report.drifted_contracts,
                    "ledger check: entries differ from the facts (sales-api ledger check --dry-run lists them)"
                ),
                Err(error) => tracing::warn!(%error, "ledger check could not complete"),
            }
        }
    })
}
