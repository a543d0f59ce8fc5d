//! The signing deadlines' expiry.

use domain::proposals::signing::SigningService;

/// Expires the proposals past their signing deadline every `interval`. Every instance runs it:
/// the store claims each overdue proposal for one pass only, so each expires once.
pub(crate) fn spawn_expiry(signing: SigningService, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match signing.expire_overdue().await {
                Ok(0) => {}
                Ok(expired) => tracing::info!(expired, "proposals past their signing deadline expired"),
                Err(error) => tracing::warn!(%error, "signing deadlines could not be checked"),
            }
        }
    })
}
