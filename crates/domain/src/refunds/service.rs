//! The finance team's side of refunds to pay (`sales-api refunds pending|paid`).

use crate::billing::brasilia_day;
use crate::clock::FreshClock;
use crate::refunds::correction::{Correction, months_between};
use crate::refunds::ports::{IndexError, MarkedPaid, PriceIndex, RefundStore, RefundToPay};
use crate::refunds::{PAID, RefundChannel, RefundRecord, TO_PAY};
use crate::store::StoreError;
use chrono::{DateTime, NaiveDate, Utc};
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
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What marking a refund paid recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidRefund {
    /// The refund's amount.
    pub amount: i64,
    /// The correction for the delay, recorded as a refund paid with it, when paid after its due
    /// date.
    pub late: Option<RefundRecord>,
}

impl PaidRefund {
    /// Everything the transfer carried.
    pub fn total(&self) -> i64 {
        self.amount + self.late.as_ref().map_or(0, |l| l.amount)
    }
}

#[derive(Clone)]
pub struct RefundsService {
    pub store: Arc<dyn RefundStore>,
    /// The IPCA, for the correction of a refund paid late.
    pub index: Arc<dyn PriceIndex>,
    pub clock: FreshClock,
}

impl RefundsService {
    /// The refunds to pay not yet paid, oldest first; each one past its due date with the
    /// correction that paying it today adds.
    pub async fn pending(&self) -> Result<Vec<RefundToPay>, RefundsError> {
        let mut pending = self.store.to_pay().await?;
        let today = brasilia_day(self.clock.now().await?);
        let Some(first) = pending
            .iter()
            .filter(|p| is_late(&p.refund, today))
            .map(|p| corrected_since(&p.refund))
            .min()
        else {
            return Ok(pending);
        };
        let (from, to) = months_between(first, today);
        let rates = self.index.monthly(from, to).await?;
        for item in pending.iter_mut().filter(|p| is_late(&p.refund, today)) {
            item.late_correction = Some(Correction::compute(corrected_since(&item.refund), today, &rates));
        }
        Ok(pending)
    }

    /// Marks a refund to pay as paid, with the bank's reference and who paid it. Paid after its
    /// due date, the delay is corrected by the IPCA from the refund's day to today's and that
    /// correction is recorded paid with it (the finance team transfers `refunds pending`'s
    /// amount of the day).
    pub async fn mark_paid(&self, id: &str, reference: &str, by: &str) -> Result<PaidRefund, RefundsError> {
        let (id, reference) = (id.trim(), reference.trim());
        if reference.is_empty() || reference.chars().count() > REFERENCE_MAX_CHARS {
            return Err(RefundsError::Reference);
        }
        let now = self.clock.now().await?;
        let refund = self
            .store
            .find(id)
            .await?
            .ok_or_else(|| RefundsError::NotFound(id.to_owned()))?;
        let late = match refund.channel {
            RefundChannel::ToPay if refund.status == TO_PAY && is_late(&refund, brasilia_day(now)) => {
                self.late_correction(&refund, reference, now).await?
            }
            _ => None,
        };
        match self.store.mark_paid(id, reference, by, now, late.clone()).await? {
            MarkedPaid::Marked => {
                tracing::info!(refund = %id, late = late.is_some(), "refund to pay marked paid");
                Ok(PaidRefund {
                    amount: refund.amount,
                    late,
                })
            }
            MarkedPaid::AlreadyPaid { reference } => Err(RefundsError::AlreadyPaid {
                id: id.to_owned(),
                reference,
            }),
            MarkedPaid::NotFound => Err(RefundsError::NotFound(id.to_owned())),
            MarkedPaid::NotToPay => Err(RefundsError::NotToPay(id.to_owned())),
        }
    }

    /// The refund that pays the delay's correction of `refund`, paid now under `reference`;
    /// `None` when the index adds not a cent.
    async fn late_correction(
        &self,
        refund: &RefundRecord,
        reference: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<RefundRecord>, RefundsError> {
        let (since, today) = (corrected_since(refund), brasilia_day(now));
        let (from, to) = months_between(since, today);
        let correction = Correction::compute(since, today, &self.index.monthly(from, to).await?);
        let amount = correction.apply(refund.amount) - refund.amount;
        Ok((amount > 0).then(|| RefundRecord {
            id: format!("{}_atraso", refund.id),
            invoice_id: refund.invoice_id.clone(),
            reason: refund.reason,
            channel: RefundChannel::ToPay,
            amount,
            nominal: 0,
            status: PAID.to_owned(),
            correction: Some(correction),
            reference: Some(reference.to_owned()),
            created_at: now,
            due_on: refund.due_on,
        }))
    }
}

/// Due before `today` and not paid.
fn is_late(refund: &RefundRecord, today: NaiveDate) -> bool {
    refund.status == TO_PAY && refund.due_on.is_some_and(|due| due < today)
}

/// The day the refund's amount was corrected to (its correction's last day, else its own day):
/// a late payment's correction runs from there.
fn corrected_since(refund: &RefundRecord) -> NaiveDate {
    refund
        .correction
        .as_ref()
        .map_or_else(|| brasilia_day(refund.created_at), |c| c.to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refunds::RefundReason;
    use crate::refunds::correction::MonthlyRate;
    use crate::refunds::ports::{MockPriceIndex, MockRefundStore};
    use crate::testing::At;
    use chrono::TimeZone;

    /// 20/12/2026 15:00 in Brasília.
    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 20, 18, 0, 0).unwrap()
    }

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, d).unwrap()
    }

    fn to_pay(id: &str, due: NaiveDate) -> RefundRecord {
        RefundRecord {
            id: id.to_owned(),
            invoice_id: None,
            reason: RefundReason::Cancellation,
            channel: RefundChannel::ToPay,
            amount: 10_000,
            nominal: 9_990,
            status: TO_PAY.to_owned(),
            correction: Some(Correction::compute(day(1), day(1), &[])),
            reference: None,
            created_at: Utc.with_ymd_and_hms(2026, 12, 1, 15, 0, 0).unwrap(),
            due_on: Some(due),
        }
    }

    /// 0,62 % in December 2026: 19 of its 31 days cost 0,37877 %.
    fn index() -> MockPriceIndex {
        let mut index = MockPriceIndex::new();
        index.expect_monthly().returning(|_, _| {
            Ok(vec![MonthlyRate {
                month: day(1),
                hundredths: 62,
            }])
        });
        index
    }

    fn service(store: MockRefundStore, index: MockPriceIndex) -> RefundsService {
        RefundsService {
            store: Arc::new(store),
            index: Arc::new(index),
            clock: FreshClock::fixed(Arc::new(At(now()))),
        }
    }

    #[tokio::test]
    async fn a_reference_is_required_before_anything_is_marked() {
        let mut store = MockRefundStore::new();
        store.expect_mark_paid().never();
        store.expect_find().never();
        let service = service(store, MockPriceIndex::new());
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
        store.expect_find().returning(|id| {
            Ok((id != "ap_9").then(|| RefundRecord {
                status: PAID.to_owned(),
                ..to_pay(id, day(30))
            }))
        });
        store.expect_mark_paid().returning(|id, _, _, _, _| {
            Ok(match id {
                "ap_1" => MarkedPaid::Marked,
                "ap_2" => MarkedPaid::AlreadyPaid {
                    reference: "TED 1".into(),
                },
                _ => MarkedPaid::NotToPay,
            })
        });
        let service = service(store, MockPriceIndex::new());
        assert_eq!(
            service.mark_paid(" ap_1 ", "TED 123", "financeiro").await,
            Ok(PaidRefund {
                amount: 10_000,
                late: None
            })
        );
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

    #[tokio::test]
    async fn paid_by_its_due_date_nothing_is_added() {
        let mut store = MockRefundStore::new();
        store.expect_find().returning(|id| Ok(Some(to_pay(id, day(20)))));
        store
            .expect_mark_paid()
            .withf(|_, _, _, _, late| late.is_none())
            .returning(|_, _, _, _, _| Ok(MarkedPaid::Marked));
        let paid = service(store, MockPriceIndex::new())
            .mark_paid("ap_1", "TED", "financeiro")
            .await
            .unwrap();
        assert_eq!(paid.total(), 10_000);
    }

    #[tokio::test]
    async fn paid_late_the_delay_is_corrected_from_the_refunds_day_and_recorded_paid_with_it() {
        let mut store = MockRefundStore::new();
        store.expect_find().returning(|id| Ok(Some(to_pay(id, day(11)))));
        store
            .expect_mark_paid()
            .withf(|id, reference, _, _, late| {
                late.as_ref().is_some_and(|l| {
                    l.id == format!("{id}_atraso") && l.status == PAID && l.reference.as_deref() == Some(reference)
                })
            })
            .returning(|_, _, _, _, _| Ok(MarkedPaid::Marked));
        let paid = service(store, index())
            .mark_paid("ap_1", "TED 9", "financeiro")
            .await
            .unwrap();
        let late = paid.late.clone().unwrap();
        let correction = late.correction.clone().unwrap();
        assert_eq!((correction.from, correction.to), (day(1), day(20)));
        // 10.000 × 1,0062^(19/31) = 10.037,9: 38 cents for the delay.
        assert_eq!((late.amount, late.nominal, paid.total()), (38, 0, 10_038));
    }

    #[tokio::test]
    async fn the_pending_list_says_what_paying_today_transfers() {
        let mut store = MockRefundStore::new();
        store.expect_to_pay().returning(|| {
            Ok(["ap_1", "ap_2"]
                .iter()
                .zip([day(11), day(25)])
                .map(|(id, due)| RefundToPay {
                    refund: to_pay(id, due),
                    identifier: "P1".into(),
                    destination: None,
                    late_correction: None,
                })
                .collect())
        });
        let pending = service(store, index()).pending().await.unwrap();
        let owed: Vec<i64> = pending.iter().map(RefundToPay::owed_today).collect();
        assert_eq!(owed, [10_038, 10_000]);
    }
}
