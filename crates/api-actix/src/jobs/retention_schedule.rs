//! The retention schedule of personal data.

use domain::privacy::retention::RetentionService;

/// Applies the retention schedule every `interval`. Every instance runs it: each person is taken
/// by one instance at a time.
pub(crate) fn spawn_retention_schedule(
    retention: RetentionService,
    interval: std::time::Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        // The first pass one interval after the start: a fleet restarting does not run it at once.
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            // Each pass that changed something is recorded (the metrics sample the records) and
            // logged by the use case.
            if let Err(error) = retention.run(false).await {
                tracing::warn!(%error, "retention schedule could not be applied");
            }
        }
    })
}
