//! bcrypt, the implementation of the domain's `PasswordHasher` port. Hashing runs on tokio's
//! blocking pool and at most `max_concurrent` at once, so that a burst of sign-ins never stalls the
//! async threads serving other routes.

use async_trait::async_trait;
use domain::auth::password::{Password, PasswordHash};
use domain::auth::ports::{HashError, PasswordHasher};
use observability::metric::{self, GaugeGuard};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// How long a hash may wait for its turn before the request is answered "unavailable".
const QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

pub struct BcryptHasher {
    cost: u32,
    permits: Arc<Semaphore>,
    /// Checked when the user is unknown, so that the answer takes as long as for a known one.
    dummy_hash: String,
}

impl BcryptHasher {
    pub fn new(cost: u32, max_concurrent: usize) -> Result<Self, HashError> {
        let dummy_hash =
            bcrypt::hash("dummy-password-for-timing", cost).map_err(|e| HashError::Failed(e.to_string()))?;
        Ok(Self {
            cost,
            permits: Arc::new(Semaphore::new(max_concurrent.max(1))),
            dummy_hash,
        })
    }

    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, HashError> {
        let waiting = GaugeGuard::enter(metric::BCRYPT_WAITING);
        let _permit = tokio::time::timeout(QUEUE_TIMEOUT, self.permits.acquire())
            .await
            .map_err(|_| HashError::Busy)?
            .map_err(|_| HashError::Busy)?;
        drop(waiting);
        let _running = GaugeGuard::enter(metric::BCRYPT_RUNNING);
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| HashError::Failed(e.to_string()))
    }
}

#[async_trait]
impl PasswordHasher for BcryptHasher {
    async fn hash(&self, password: &Password) -> Result<PasswordHash, HashError> {
        let clear = password.expose().to_owned();
        let cost = self.cost;
        let hashed = self.run(move || bcrypt::hash(clear, cost)).await?;
        hashed.map(PasswordHash).map_err(|e| HashError::Failed(e.to_string()))
    }

    async fn verify(&self, password: &Password, hash: Option<PasswordHash>) -> Result<bool, HashError> {
        let clear = password.expose().to_owned();
        let known = hash.is_some();
        let target = hash.map_or_else(|| self.dummy_hash.clone(), |h| h.0);
        let matched = self.run(move || bcrypt::verify(clear, &target)).await?;
        // A stored hash bcrypt cannot read is a broken row, not a wrong password.
        let matched = matched.map_err(|e| HashError::Failed(e.to_string()))?;
        Ok(known && matched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn hashes_and_verifies_and_never_matches_an_unknown_user() {
        let hasher = BcryptHasher::new(4, 2).unwrap();
        let password = Password::parse("Vendas#2026").unwrap();
        let hash = hasher.hash(&password).await.unwrap();
        assert!(hash.0.starts_with("$2b$04$"));
        assert!(hasher.verify(&password, Some(hash.clone())).await.unwrap());
        assert!(
            !hasher
                .verify(&Password::parse("Outra#2026").unwrap(), Some(hash))
                .await
                .unwrap()
        );
        assert!(
            !hasher
                .verify(&Password::parse("dummy-password-for-timing").unwrap(), None)
                .await
                .unwrap()
        );
    }
}
