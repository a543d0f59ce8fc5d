//! `SESSION_CHECK=off`: every session holds. Development only (production refuses to start with
//! it), to measure in the benchmark what the check costs on each request.

use async_trait::async_trait;
use domain::auth::model::SessionId;
use domain::auth::ports::{SessionHolding, SessionRegistry};
use domain::store::StoreError;

pub struct NoSessionCheck;

#[async_trait]
impl SessionRegistry for NoSessionCheck {
    async fn holding(&self, _session: SessionId) -> Result<Option<SessionHolding>, StoreError> {
        Ok(Some(SessionHolding::default()))
    }
}
