//! What `serve` and `worker` share to run and to stop: the metrics listener on a port of its own
//! and the signal that stops them.

use crate::config::Config;
use crate::scrape::{self, Sampled};
use crate::services::StartupError;

/// The metrics listener running beside the service (or the worker).
pub(crate) struct MetricsListener {
    handle: actix_web::dev::ServerHandle,
    pub(crate) port: u16,
}

impl MetricsListener {
    /// Binds `METRICS_ADDR` and starts serving; nothing when it is `off`. A set address that
    /// cannot be opened stops the start; the default one, taken by another process on the host (a
    /// `worker` beside a `serve`), only turns the metrics off for this one, with a warning.
    pub(crate) fn start(config: &Config, sampled: Sampled) -> Result<Option<Self>, StartupError> {
        let Some(addr) = config.server.metrics_addr else {
            return Ok(None);
        };
        let bound = match scrape::listener(addr, sampled) {
            Ok(bound) => bound,
            Err(error) if !config.server.metrics_addr_given => {
                tracing::warn!(%addr, %error, "metrics off for this process: the default address is taken; set METRICS_ADDR");
                return Ok(None);
            }
            Err(error) => {
                return Err(StartupError::Config(format!(
                    "METRICS_ADDR: não foi possível abrir {addr}: {error}"
                )));
            }
        };
        Ok(bound.map(|bound| {
            tokio::spawn(bound.serving);
            tracing::info!(%addr, "metrics at /metrics");
            Self {
                handle: bound.handle,
                port: bound.port,
            }
        }))
    }

    pub(crate) async fn stop(self) {
        self.handle.stop(true).await;
    }
}

pub(crate) async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
