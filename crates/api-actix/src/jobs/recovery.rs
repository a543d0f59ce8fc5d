//! The recovery of operations whose request died before it ended them.

use domain::proposals::operations::{OperationRecovery, RecoveryPass};

/// Finishes the operations pending past `OPERATION_RECOVERY_AFTER_MS`, looking every quarter of
/// it. Every instance runs it: each operation is taken by one (a lease, `FOR UPDATE SKIP LOCKED`).
pub(crate) fn spawn_recovery(recovery: OperationRecovery, after: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval((after / 4).max(std::time::Duration::from_millis(250)));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            match recovery.run_once().await {
                Ok(pass) if pass == RecoveryPass::default() => {}
                Ok(pass) => tracing::info!(
                    finished = pass.finished,
                    failed = pass.failed,
                    retried = pass.retried,
                    "pending operations taken by the worker"
                ),
                Err(error) => tracing::warn!(%error, "pending operations could not be read"),
            }
        }
    })
}
