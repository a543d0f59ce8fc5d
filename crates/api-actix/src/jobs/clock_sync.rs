//! The development clock's shared shift, read again every second (development only).

/// Reads the development clock's shared shift again every second, so that a move made through
/// another instance reaches this one.
pub(crate) fn spawn_clock_sync(clock: Option<crate::state::DevelopmentClock>) -> Option<tokio::task::JoinHandle<()>> {
    let clock = clock?;
    Some(tokio::spawn(async move {
        let mut ticks = tokio::time::interval(std::time::Duration::from_secs(1));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if let Err(error) = clock.refresh().await {
                tracing::warn!(%error, "development clock not read");
            }
        }
    }))
}
