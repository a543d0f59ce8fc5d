//! The PostgreSQL pool every store of the service shares, built with what the stores are handed
//! from the edge: the contract's versions of the event bodies (the outbox queues each
//! subscription's own). Every pool of `serve`, `worker` and the commands is built here.

use adapters_postgres::pool::PoolBuildError;
use adapters_postgres::{PgPool, PoolSettings, build_pool, use_event_versions};
use contract_versions::event_bodies_of_older_versions;
use domain::hooks::ports::EventVersions;
use domain::values::EventKind;

/// The contract's versions of an event body (`contract_versions`), for the outbox.
struct ContractEventVersions;

impl EventVersions for ContractEventVersions {
    fn older_bodies(&self, kind: EventKind, body: &str) -> Vec<(String, String)> {
        event_bodies_of_older_versions(kind.as_str(), body)
            .into_iter()
            .map(|(version, text)| (version.as_str().to_owned(), text))
            .collect()
    }
}

/// A pool for the stores, the contract's event versions handed to them first.
pub fn store_pool(settings: &PoolSettings) -> Result<PgPool, PoolBuildError> {
    use_event_versions(Box::new(ContractEventVersions));
    build_pool(settings)
}
