//! Readiness: whether the service's stores answer now.

use crate::store::StoreError;
use async_trait::async_trait;

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait Readiness: Send + Sync {
    async fn check(&self) -> Result<(), StoreError>;
}
