//! The acceptance clocks' sweep, the first premiums collected at acceptance and the
//! certificates it makes due.

use domain::acceptance::service::AcceptanceService;
use domain::certificates::CertificateService;
use domain::ecommerce::collection::CollectionService;

/// Settles the acceptance clocks due every `interval` (tacit acceptance or overdue). Every
/// instance runs it: the store claims each due clock for one pass only (`FOR UPDATE SKIP LOCKED`).
pub(crate) fn spawn_acceptance_sweep(
    acceptance: AcceptanceService,
    collection: CollectionService,
    certificates: CertificateService,
    clock: Option<crate::state::DevelopmentClock>,
    interval: std::time::Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // The development clock as every instance now sees it.
            if let Some(clock) = &clock
                && let Err(error) = clock.refresh().await
            {
                tracing::warn!(%error, "development clock not read");
            }
            match acceptance.sweep().await {
                Ok(report) if report.accepted.is_empty() && report.overdue.is_empty() => {}
                Ok(report) => tracing::info!(
                    accepted = report.accepted.len(),
                    overdue = report.overdue.len(),
                    "acceptance clocks settled"
                ),
                Err(error) => tracing::warn!(%error, "acceptance clocks could not be checked"),
            }
            // The shop's contracts accepted since whose product collects only at acceptance
            // have their first premium charged now (decision 271), each under its claim.
            match collection.run().await {
                Ok(pass) if pass == Default::default() => {}
                Ok(pass) => tracing::info!(
                    collected = pass.collected.len(),
                    deferred = pass.deferred,
                    "first premiums collected at acceptance"
                ),
                Err(error) => tracing::warn!(%error, "collection at acceptance could not complete"),
            }
            // The contracts accepted since (by the analysts or by this sweep) get their
            // certificate.
            match certificates.deliver_due().await {
                Ok(pass) if pass.delivered.is_empty() && pass.failed.is_empty() && pass.withheld.is_empty() => {}
                Ok(pass) => tracing::info!(
                    delivered = pass.delivered.len(),
                    withheld = pass.withheld.len(),
                    failed = pass.failed.len(),
                    "certificates issued and mailed"
                ),
                Err(error) => tracing::warn!(%error, "certificates due could not be read"),
            }
        }
    })
}
