//! Event subscriptions (webhooks) and their delivery, held to the Standard Webhooks specification:
//! subscriptions owned by a partner, the shop or the back office; a transactional outbox of
//! deliveries; workers that claim, sign, send and retry them.

pub mod bodies;
pub mod endpoint;
pub mod engine;
pub mod model;
pub mod payload;
pub mod policy;
pub mod ports;
pub mod service;
pub mod signing;
#[cfg(test)]
mod tests;

pub use endpoint::Endpoint;
pub use engine::DeliveryEngine;
pub use model::*;
pub use policy::{DeliveryPolicy, NextStep, SendOutcome};
pub use service::HookService;
pub use signing::SigningSecret;

use crate::access::{AccessError, ScopeError};
use crate::store::StoreError;
use crate::validation::Violations;

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(Violations),
    #[error("assinatura de eventos não encontrada")]
    NotFound,
    #[error("entrega não encontrada")]
    DeliveryNotFound,
    #[error("assinatura de eventos inativa")]
    Inactive,
    /// The owner already keeps as many subscriptions as it may.
    #[error("limite de {max} assinaturas de eventos atingido")]
    AtLimit { max: usize },
    /// A test event of the subscription is being sent; one at a time.
    #[error("evento de teste em andamento")]
    TestInFlight,
    /// A replay of the subscription still has deliveries waiting; one at a time.
    #[error("reenvio em andamento")]
    ReplayRunning,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<ScopeError> for HookError {
    fn from(e: ScopeError) -> Self {
        match e {
            ScopeError::Access(e) => HookError::Access(e),
            ScopeError::Store(e) => HookError::Store(e),
        }
    }
}
