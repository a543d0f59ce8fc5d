//! Waking the local delivery engine when a delivery is queued anywhere.

use super::CHANNEL;
use crate::listener::{ListenEvent, spawn_listener};
use async_trait::async_trait;
use domain::hooks::ports::DeliveryWakeups;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Wakes the local delivery engine on each `NOTIFY`, from one dedicated `LISTEN` connection that
/// is re-established when it drops (the engine's polling covers the gap).
pub struct PgDeliveryWakeups {
    signal: Arc<Notify>,
}

impl PgDeliveryWakeups {
    /// Starts listening in the background on the current tokio runtime.
    pub fn start(database_url: &str) -> Self {
        let signal = Arc::new(Notify::new());
        let listener = signal.clone();
        spawn_listener(database_url, CHANNEL, move |event| match event {
            // Anything queued before the LISTEN is found by the engine's first claim or poll.
            ListenEvent::Listening | ListenEvent::Notified => listener.notify_one(),
            ListenEvent::Lost => {}
        });
        Self { signal }
    }
}

#[async_trait]
impl DeliveryWakeups for PgDeliveryWakeups {
    async fn wait(&self, max: Duration) {
        let _ = tokio::time::timeout(max, self.signal.notified()).await;
    }
}
