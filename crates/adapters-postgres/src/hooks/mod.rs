//! Event subscriptions and their deliveries in PostgreSQL, one room per concern:
//! `subscriptions` (the domain's `HookStore`), `delivery_queue` (its `DeliveryQueue`: claims,
//! attempts, purge and the backlog the metrics sample), `wakeups` (the `LISTEN`/`NOTIFY` that
//! wakes the workers) and `reseal` (moving sealed secrets under a new key). The fan-out that
//! queues a proposal's events is the outbox's (`crate::event_outbox`).

mod delivery_queue;
mod reseal;
mod subscriptions;
mod wakeups;

pub use delivery_queue::{WebhookBacklog, webhook_backlog};
pub use reseal::ResealReport;
pub use wakeups::PgDeliveryWakeups;

use crate::pool::PgPool;
use crate::sealing::SecretSealer;
use crate::statement::statement;
use diesel::QueryableByName;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use std::sync::Arc;

/// The channel queued deliveries are announced on, and the message ids: the outbox's.
pub(crate) use crate::event_outbox::CHANNEL;

#[derive(Clone)]
pub struct PgHooks {
    pool: PgPool,
    sealer: Arc<SecretSealer>,
}

/// The keys of signing secrets at rest: `current` seals, `previous` still open what they sealed.
#[derive(Clone)]
pub struct SealingKeys {
    pub current: [u8; 32],
    pub previous: Vec<[u8; 32]>,
}

impl SealingKeys {
    /// The sealer of these keys, shared by every store that keeps sealed values.
    pub fn sealer(&self) -> Arc<SecretSealer> {
        Arc::new(SecretSealer::new(self.current, &self.previous))
    }
}

impl PgHooks {
    pub fn new(pool: PgPool, keys: &SealingKeys) -> Self {
        Self {
            pool,
            sealer: keys.sealer(),
        }
    }
}

statement! {
    /// Announces queued deliveries on the workers' channel (sent by PostgreSQL at commit).
    NOTIFY_DELIVERIES = concat!("NOTIFY ", crate::event_outbox::channel!());
}

/// Announces queued deliveries on `CHANNEL` (sent by PostgreSQL at commit).
pub(super) async fn notify(conn: &mut AsyncPgConnection) -> QueryResult<()> {
    NOTIFY_DELIVERIES.query().execute(conn).await.map(|_| ())
}

#[derive(QueryableByName)]
pub(super) struct IdRow {
    #[diesel(sql_type = BigInt)]
    pub(super) id: i64,
}

pub(super) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
