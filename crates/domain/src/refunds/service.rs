//! The finance team's side of refunds to pay (`sales-api refunds pending|paid`).

use crate::clock::Clock;
use crate::refunds::ports::{MarkedPaid, RefundStore, RefundToPay};
use crate::store::StoreError;
use std::sync::Arc;

/// The longest bank reference kept (characters, trimmed).
pub const REFERENCE_MAX_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefundsError {
    #[error("reembolso {0} não encontrado")]
    NotFound(String),
    #[error("o reembolso {0} foi feito pela plataforma de pagamento: não há o que pagar")]
    NotToPay(String),
    #[error("o reembolso {id} já foi pago (referência {reference})")]
    AlreadyPaid { id: String, reference: String },
    #[error("a referência do pagamento é obrigatória e tem até {REFERENCE_MAX_CHARS} caracteres")]
    Reference,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Clone)]
pub struct RefundsService {
    pub store: Arc<dyn RefundStore>,
    pub clock: Arc<dyn Clock>,
}

impl RefundsService {
    /// The refunds to pay not yet paid, oldest first.
    pub async fn pending(&self) -> Result<Vec<RefundToPay>, RefundsError> {
        Ok(self.store.to_pay().await?)
    }

    /// Marks a refund to pay as paid, with the bank's reference and who paid it.
    pub async fn mark_paid(&self, id: &str, reference: &str, by: &str) -> Result<(), RefundsError> {
        let reference = reference.trim();
        if reference.is_empty() || reference.chars().count() > REFERENCE_MAX_CHARS {
            return Err(RefundsError::Reference);
        }
        match self.store.mark_paid(id.trim(), reference, by, self.clock.now()).await? {
            MarkedPaid::Marked => {
                tracing::info!(refund = %id, "refund to pay marked paid");
                Ok(())
            }
            MarkedPaid::AlreadyPaid { reference } => Err(RefundsError::AlreadyPaid {
                id: id.to_owned(),
                reference,
            }),
            MarkedPaid::NotFound => Err(RefundsError::NotFound(id.to_owned())),
            MarkedPaid::NotToPay => Err(RefundsError::NotToPay(id.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refunds::ports::MockRefundStore;

    fn service(store: MockRefundStore) -> RefundsService {
        RefundsService {
            store: Arc::new(store),
            clock: Arc::new(crate::clock::SystemClock),
        }
    }

    #[tokio::test]
    async fn a_reference_is_required_before_anything_is_marked() {
        let mut store = MockRefundStore::new();
        store.expect_mark_paid().never();
        let service = service(store);
        for bad in ["", "   ", &"x".repeat(101)] {
            assert_eq!(
                service.mark_paid("ap_1", bad, "financeiro").await,
                Err(RefundsError::Reference)
            );
        }
    }

    #[tokio::test]
    async fn each_answer_of_the_store_is_told_apart() {
        let mut store = MockRefundStore::new();
        store.expect_mark_paid().returning(|id, _, _, _| {
            Ok(match id {
                "ap_1" => MarkedPaid::Marked,
                "ap_2" => MarkedPaid::AlreadyPaid {
                    reference: "TED 1".into(),
                },
                "re_1" => MarkedPaid::NotToPay,
                _ => MarkedPaid::NotFound,
            })
        });
        let service = service(store);
        assert_eq!(service.mark_paid(" ap_1 ", "TED 123", "financeiro").await, Ok(()));
        assert!(matches!(
            service.mark_paid("ap_2", "TED 2", "financeiro").await,
            Err(RefundsError::AlreadyPaid { reference, .. }) if reference == "TED 1"
        ));
        assert!(matches!(
            service.mark_paid("re_1", "TED", "financeiro").await,
            Err(RefundsError::NotToPay(_))
        ));
        assert!(matches!(
            service.mark_paid("ap_9", "TED", "financeiro").await,
            Err(RefundsError::NotFound(_))
        ));
    }
}
