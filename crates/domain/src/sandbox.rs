//! The development sandboxes' storage port (`SALES_ENV=development` only): the sandbox payment
//! platform and the sandbox Pix PSP keep their objects through it.

use crate::store::StoreError;
use async_trait::async_trait;

/// Storage of the sandbox platforms' objects (the payment platform's and the Pix PSP's), so that
/// they behave the same across restarts and instances (PostgreSQL's is
/// `adapters_postgres::PgSandboxLedger`). Only the sandboxes need it; it lives with the other
/// ports so that the adapter that stores and the adapters that use it depend on the domain alone.
#[async_trait]
pub trait SandboxLedger: Send + Sync {
    /// Stores `object` under `id` unless `(kind, idempotency_key)` was stored before, in which case
    /// answers the earlier object.
    async fn put_once(
        &self,
        kind: &str,
        idempotency_key: &str,
        id: &str,
        object: serde_json::Value,
    ) -> Result<serde_json::Value, StoreError>;
    async fn get(&self, id: &str) -> Result<Option<serde_json::Value>, StoreError>;
    /// The objects of this kind that contain `containing` (JSON containment), oldest first.
    async fn find(&self, kind: &str, containing: serde_json::Value) -> Result<Vec<serde_json::Value>, StoreError>;
    /// Replaces the stored object with this id (what an update through the platform's API does).
    async fn replace(&self, id: &str, object: serde_json::Value) -> Result<(), StoreError>;
    /// Replaces the stored object only while it is still `expected` (compare and set): a real
    /// provider moves an object atomically, so two moves at once (a payer's bank settling a
    /// charge while the payee cancels it) never both win. `false` when it had changed.
    async fn replace_if(
        &self,
        id: &str,
        expected: &serde_json::Value,
        object: serde_json::Value,
    ) -> Result<bool, StoreError>;
}
