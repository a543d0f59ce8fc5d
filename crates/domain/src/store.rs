//! The failure every store port shares: the store could not answer. Business outcomes (a duplicate,
//! a missing row) are each port's own variants, never this.

/// Returned by a store port when the store itself failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The store cannot be reached now (connection refused, pool exhausted, shutting down); a
    /// later retry may work. Callers answer "service unavailable".
    #[error("armazenamento indisponível: {0}")]
    Unavailable(String),
    /// Anything else: a bug or a broken invariant. Callers answer an internal error.
    #[error("falha inesperada no armazenamento: {0}")]
    Unexpected(String),
}
