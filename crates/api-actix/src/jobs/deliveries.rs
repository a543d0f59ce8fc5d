//! The webhook delivery engine: its own pool, and the task that runs it beside the HTTP server.

use crate::config::Config;
use crate::security::hook_keys::hook_keys;
use crate::services::StartupError;
use crate::services::pool_settings;
use crate::services::webhook_sender;
use crate::stores::store_pool;
use adapters_postgres::{PgDeliveryWakeups, PgExpiredRecords, PgHooks};
use adapters_postgres::{PgPool, PoolSettings};
use domain::clock::SystemClock;
use domain::hooks::DeliveryEngine;
use std::sync::Arc;

/// Connections of the delivery engine's own pool: HTTP traffic and deliveries never wait for
/// each other's connections.
pub(crate) const ENGINE_POOL_MAX: usize = 8;

/// The delivery engine over the shared queue, with a pool of its own (returned too, for the
/// metrics); run it with [`DeliveryEngine::run`]. Must be called inside the tokio runtime (it starts the `LISTEN`
/// connection).
pub fn delivery_engine(config: &Config) -> Result<(DeliveryEngine, PgPool), StartupError> {
    let pool = store_pool(&PoolSettings {
        max_size: config.database.pool.max_size.min(ENGINE_POOL_MAX),
        // Leases and attempts lost in a database crash only make a delivery go out again.
        relaxed_commit: true,
        ..pool_settings(config)
    })?;
    let engine = DeliveryEngine {
        queue: Arc::new(PgHooks::new(pool.clone(), &hook_keys(config)?)),
        sender: Arc::new(webhook_sender(config)?),
        wakeups: Arc::new(PgDeliveryWakeups::start(config.session_url())),
        expired: Arc::new(PgExpiredRecords::new(pool.clone())),
        retention: config.retention(),
        clock: Arc::new(SystemClock),
        policy: config.hooks.delivery.clone(),
    };
    Ok((engine, pool))
}

/// The delivery engine running beside the HTTP server, and the switch that stops it.
pub(crate) struct EngineTask {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl EngineTask {
    pub(crate) fn start(engine: DeliveryEngine) -> Self {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            engine
                .run(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Self { stop, task }
    }

    /// Stops claiming and waits (up to `timeout`) for the requests in flight.
    pub(crate) async fn stop(self, timeout: std::time::Duration) {
        let _ = self.stop.send(());
        if tokio::time::timeout(timeout, self.task).await.is_err() {
            tracing::warn!("webhook deliveries still in flight at shutdown; their leases will expire");
        }
    }
}
