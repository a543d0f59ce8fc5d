//! The billing's use cases: the run every instance and the worker make, and the employer's report
//! applied by the back office.

use super::payroll::{LineError, read_report};
use super::ports::{BillingCheck, BillingStore, DiscountOutcome};
use super::{BillingStatus, CREATION_LEAD_DAYS, RUN_ACTOR, brasilia_day, judge};
use crate::clock::Clock;
use crate::store::StoreError;
use chrono::{DateTime, Days, NaiveDate, Utc};
use std::sync::Arc;

/// A contract's billing moved by a run or a payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingMove {
    pub identifier: String,
    pub from: BillingStatus,
    pub to: BillingStatus,
}

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BillingRun {
    /// Charges created.
    pub created: u64,
    pub moved: Vec<BillingMove>,
    /// The notices sent and the contracts ended by the arrears pass that follows the run.
    pub arrears: super::arrears::ArrearsPass,
    /// The payroll discounts' averbações asked, read back and cancelled before the run.
    pub averbacao: super::averbacao::AverbacaoPass,
    /// The term's notices, renewals and ends by the pass after the arrears'.
    pub term: super::term::TermPass,
}

/// What an employer's report did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscountSummary {
    pub paid: usize,
    /// Lines of charges paid before (the report read again).
    pub already_paid: usize,
    pub refused: Vec<LineError>,
    /// Contracts late or suspended that the payments put back.
    pub moved: Vec<BillingMove>,
}

#[derive(Debug, thiserror::Error)]
pub enum BillingError {
    #[error(transparent)]
    Report(#[from] LineError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Clone)]
pub struct BillingService {
    pub store: Arc<dyn BillingStore>,
    pub clock: Arc<dyn Clock>,
}

impl BillingService {
    /// One pass: the charges falling due within [`CREATION_LEAD_DAYS`] created, then every
    /// contract with unpaid charges judged on the Brasília day.
    pub async fn run(&self) -> Result<BillingRun, StoreError> {
        let now = self.clock.now();
        let today = brasilia_day(now);
        let created = self
            .store
            .create_due(today + Days::new(CREATION_LEAD_DAYS), now)
            .await?;
        let mut moved = Vec::new();
        for check in self.store.to_judge(today).await? {
            moved.extend(self.settle(check, today, now).await?);
        }
        Ok(BillingRun {
            created,
            moved,
            ..BillingRun::default()
        })
    }

    /// Judges the contracts of `proposal_ids` now (after payments outside the run: a bank's
    /// return), each moved at most once.
    pub async fn judge_now(&self, proposal_ids: &[i64]) -> Result<Vec<BillingMove>, StoreError> {
        let now = self.clock.now();
        let today = brasilia_day(now);
        let mut moved = Vec::new();
        for id in proposal_ids {
            if let Some(check) = self.store.check_of(*id).await? {
                moved.extend(self.settle(check, today, now).await?);
            }
        }
        Ok(moved)
    }

    /// Applies an employer's report of payroll discounts, each line once, and judges each contract
    /// a payment reached again (a suspended one resumes when nothing is left unpaid).
    pub async fn record_discounts(&self, report: &str, by: &str) -> Result<DiscountSummary, BillingError> {
        let lines = read_report(report)?;
        let now = self.clock.now();
        let today = brasilia_day(now);
        let mut summary = DiscountSummary::default();
        for (line, read) in lines {
            let discount = match read {
                Ok(discount) => discount,
                Err(refused) => {
                    summary.refused.push(refused);
                    continue;
                }
            };
            let reason = match self.store.record_discount(&discount, by, now).await? {
                DiscountOutcome::Paid { proposal_id } => {
                    summary.paid += 1;
                    if let Some(check) = self.store.check_of(proposal_id).await? {
                        summary.moved.extend(self.settle(check, today, now).await?);
                    }
                    continue;
                }
                DiscountOutcome::AlreadyPaid => {
                    summary.already_paid += 1;
                    continue;
                }
                DiscountOutcome::NotFound => format!(
                    "nenhuma cobrança da proposta {} com vencimento em {}",
                    discount.identifier,
                    discount.month.format("%m/%Y")
                ),
                DiscountOutcome::NotPayroll { method } => {
                    format!("a proposta é paga por {method}, não por desconto em folha")
                }
                DiscountOutcome::AmountDiffers { expected } => format!(
                    "valor informado {} difere do cobrado {}",
                    crate::contract::formats::reais(discount.amount),
                    crate::contract::formats::reais(expected)
                ),
                DiscountOutcome::NotOpen { status } => format!("a cobrança está {status}"),
            };
            summary.refused.push(LineError { line, reason });
        }
        Ok(summary)
    }

    async fn settle(
        &self,
        check: BillingCheck,
        today: NaiveDate,
        now: DateTime<Utc>,
    ) -> Result<Option<BillingMove>, StoreError> {
        let mut to = judge(check.oldest_unpaid_due, today, check.grace_days, check.suspension_days);
        // Not suspended before the notice's days ran from its receipt: late until then.
        if to == BillingStatus::Suspended
            && check.status != BillingStatus::Suspended
            && !super::arrears::may_suspend(check.notice_from, today)
        {
            to = BillingStatus::Late;
        }
        if to == check.status {
            return Ok(None);
        }
        let moved = self
            .store
            .move_status(check.proposal_id, check.status, to, RUN_ACTOR, now)
            .await?;
        Ok(moved.then_some(BillingMove {
            identifier: check.identifier,
            from: check.status,
            to,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::ports::MockBillingStore;
    use crate::testing::At;
    use mockall::predicate::eq;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    fn billing(store: MockBillingStore, now: DateTime<Utc>) -> BillingService {
        BillingService {
            store: Arc::new(store),
            clock: Arc::new(At(now)),
        }
    }

    fn check(status: BillingStatus, oldest: Option<&str>) -> BillingCheck {
        BillingCheck {
            proposal_id: 7,
            identifier: "p-7".into(),
            status,
            oldest_unpaid_due: oldest.map(day),
            grace_days: 5,
            suspension_days: 30,
            notice_from: Some(day("2026-12-14")),
        }
    }

    #[tokio::test]
    async fn a_run_creates_the_charges_due_within_ten_days_and_suspends_the_contract_thirty_days_unpaid() {
        let now = "2027-01-07T12:00:00Z".parse().unwrap();
        let mut store = MockBillingStore::new();
        store
            .expect_create_due()
            .with(eq(day("2027-01-17")), eq(now))
            .times(1)
            .returning(|_, _| Ok(3));
        store.expect_to_judge().with(eq(day("2027-01-07"))).returning(|_| {
            Ok(vec![
                check(BillingStatus::Late, Some("2026-12-08")),
                check(BillingStatus::Late, Some("2026-12-20")),
            ])
        });
        store
            .expect_move_status()
            .with(
                eq(7),
                eq(BillingStatus::Late),
                eq(BillingStatus::Suspended),
                eq(RUN_ACTOR),
                eq(now),
            )
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        let service = billing(store, now);
        let run = service.run().await.unwrap();
        assert_eq!(run.created, 3);
        assert_eq!(
            run.moved,
            [BillingMove {
                identifier: "p-7".into(),
                from: BillingStatus::Late,
                to: BillingStatus::Suspended
            }]
        );
    }

    #[tokio::test]
    async fn a_late_contract_is_not_suspended_before_fifteen_days_from_its_notices_receipt() {
        let now = "2027-01-07T12:00:00Z".parse().unwrap();
        let mut store = MockBillingStore::new();
        store.expect_create_due().returning(|_, _| Ok(0));
        store.expect_to_judge().returning(|_| {
            let received_late = BillingCheck {
                notice_from: Some(day("2026-12-24")),
                ..check(BillingStatus::Late, Some("2026-12-08"))
            };
            let never_noticed = BillingCheck {
                proposal_id: 8,
                notice_from: None,
                ..check(BillingStatus::UpToDate, Some("2026-12-08"))
            };
            Ok(vec![received_late, never_noticed])
        });
        // Thirty days unpaid: the first stays late (14 days since the receipt), the second only
        // becomes late (no notice yet).
        store
            .expect_move_status()
            .with(
                eq(8),
                eq(BillingStatus::UpToDate),
                eq(BillingStatus::Late),
                eq(RUN_ACTOR),
                eq(now),
            )
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        let service = billing(store, now);
        let run = service.run().await.unwrap();
        assert_eq!(run.moved.len(), 1);
        assert_eq!(run.moved[0].to, BillingStatus::Late);
    }

    #[tokio::test]
    async fn a_move_another_instance_made_first_is_not_reported_twice() {
        let now = "2027-01-07T12:00:00Z".parse().unwrap();
        let mut store = MockBillingStore::new();
        store.expect_create_due().returning(|_, _| Ok(0));
        store
            .expect_to_judge()
            .returning(|_| Ok(vec![check(BillingStatus::UpToDate, Some("2026-12-20"))]));
        store.expect_move_status().times(1).returning(|_, _, _, _, _| Ok(false));
        let service = billing(store, now);
        assert_eq!(service.run().await.unwrap().moved, []);
    }

    #[tokio::test]
    async fn a_report_pays_once_refuses_what_does_not_match_and_resumes_the_contract() {
        let now = "2027-01-10T12:00:00Z".parse().unwrap();
        let mut store = MockBillingStore::new();
        let mut outcomes = vec![
            DiscountOutcome::Paid { proposal_id: 7 },
            DiscountOutcome::AlreadyPaid,
            DiscountOutcome::AmountDiffers { expected: 3990 },
        ]
        .into_iter();
        store
            .expect_record_discount()
            .times(3)
            .returning(move |_, _, _| Ok(outcomes.next().unwrap()));
        store
            .expect_check_of()
            .with(eq(7))
            .returning(|_| Ok(Some(check(BillingStatus::Suspended, None))));
        store
            .expect_move_status()
            .with(
                eq(7),
                eq(BillingStatus::Suspended),
                eq(BillingStatus::UpToDate),
                eq(RUN_ACTOR),
                eq(now),
            )
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        let service = billing(store, now);
        let report = format!(
            "{}\np-7;12/2026;39,90;05/12/2026\np-7;12/2026;39,90;05/12/2026\np-8;12/2026;19,90;05/12/2026\np-9;x;1,00;05/12/2026\n",
            crate::billing::payroll::HEADER
        );
        let summary = service.record_discounts(&report, "bo@demo.com.br").await.unwrap();
        assert_eq!(summary.paid, 1);
        assert_eq!(summary.already_paid, 1);
        let refused: Vec<usize> = summary.refused.iter().map(|r| r.line).collect();
        assert_eq!(refused, [4, 5]);
        assert!(summary.refused[0].reason.contains("R$ 19,90"), "{:?}", summary.refused);
        assert!(summary.refused[0].reason.contains("R$ 39,90"), "{:?}", summary.refused);
        assert_eq!(summary.moved[0].to, BillingStatus::UpToDate);
    }
}
