//! What a proposal's end returns, computed before any money moves: which payments, how much of
//! each (all of it, or the unused days of the period it paid), corrected by the IPCA, and how
//! much of it the platform can return.

use crate::ecommerce::PaidInvoice;
use crate::refunds::correction::{Correction, MonthlyRate};
use chrono::{DateTime, Months, NaiveDate, Utc};

/// A payment the customer made, as it happened: a platform invoice paid, or a charge of the
/// service's own billing paid (a payroll discount reported, an account debit returned paid, a Pix
/// settled), at the amount received. Nothing is assumed collected: what was never received is
/// never returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    /// The platform's invoice; `None` for a charge of the service's own billing.
    pub invoice: Option<PaidInvoice>,
    /// The Pix that paid a `PIX AUTOMÁTICO` charge, given back by a `devolucao`.
    pub pix: Option<PaidPix>,
    /// In cents.
    pub amount: i64,
    pub paid_on: NaiveDate,
    /// The period of cover it paid: `[start, end)`.
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
}

/// A `PIX AUTOMÁTICO` charge paid, and the Pix that paid it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidPix {
    pub charge_id: i64,
    pub txid: String,
    pub end_to_end_id: String,
}

/// A charge of the service's own billing that was paid, as its rail reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidCharge {
    pub charge_id: i64,
    /// What was received, in cents (the amount the rail reported, not the amount due).
    pub received: i64,
    pub due: NaiveDate,
    pub paid_at: DateTime<Utc>,
    /// The Pix that paid it (a `PIX AUTOMÁTICO` charge), with its txid and end-to-end id.
    pub pix: Option<PaidPix>,
}

impl PaidCharge {
    /// The charge as a payment for the month from its due date. `pix_refunds` says whether a PSP
    /// can give a Pix back: without one, what a Pix paid is to pay like any other charge.
    pub fn payment(&self, pix_refunds: bool) -> Payment {
        Payment {
            invoice: None,
            pix: self.pix.clone().filter(|_| pix_refunds),
            amount: self.received,
            paid_on: crate::billing::brasilia_day(self.paid_at),
            period_start: self.due,
            period_end: self.due.checked_add_months(Months::new(1)).unwrap_or(NaiveDate::MAX),
        }
    }
}

/// One amount to return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRefund {
    pub payment: Payment,
    /// What of the payment is returned, before correction.
    pub nominal: i64,
    pub correction: Correction,
    /// What the platform returns to the card (or the PSP to the Pix's payer): the corrected
    /// amount, up to what it charged.
    pub by_platform: i64,
    /// What the finance team pays: the rest.
    pub to_pay: i64,
}

impl PlannedRefund {
    fn of(payment: &Payment, nominal: i64, today: NaiveDate, rates: &[MonthlyRate]) -> Self {
        let correction = Correction::compute(payment.paid_on, today.max(payment.paid_on), rates);
        let corrected = correction.apply(nominal);
        let by_platform = if payment.invoice.is_some() || payment.pix.is_some() {
            corrected.min(payment.amount)
        } else {
            0
        };
        PlannedRefund {
            payment: payment.clone(),
            nominal,
            correction,
            by_platform,
            to_pay: corrected - by_platform,
        }
    }

    /// The nominal part of what the platform returns (the rest of the nominal is to pay).
    pub fn platform_nominal(&self) -> i64 {
        self.nominal.min(self.by_platform)
    }
}

/// A refusal returns every payment in full, corrected.
pub fn refusal(payments: &[Payment], today: NaiveDate, rates: &[MonthlyRate]) -> Vec<PlannedRefund> {
    payments
        .iter()
        .filter(|p| p.amount > 0)
        .map(|p| PlannedRefund::of(p, p.amount, today, rates))
        .collect()
}

/// A cancellation returns the unused days of every period actually paid (pro rata die: the days
/// from `today`, or from the period's start when it has not begun, to the period's end, over the
/// period's days, rounded down to the cent), each corrected from its payment; a period already
/// over returns nothing.
pub fn cancellation(payments: &[Payment], today: NaiveDate, rates: &[MonthlyRate]) -> Vec<PlannedRefund> {
    payments
        .iter()
        .filter(|p| p.amount > 0 && today < p.period_end)
        .filter_map(|p| {
            let period_days = (p.period_end - p.period_start).num_days().max(1);
            let unused = (p.period_end - today.max(p.period_start))
                .num_days()
                .clamp(0, period_days);
            let nominal = (i128::from(p.amount) * i128::from(unused) / i128::from(period_days)) as i64;
            (nominal > 0).then(|| PlannedRefund::of(p, nominal, today, rates))
        })
        .collect()
}

/// The first day a correction needs rates for.
pub fn earliest_payment(payments: &[Payment]) -> Option<NaiveDate> {
    payments.iter().map(|p| p.paid_on).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn card(amount: i64, paid_on: NaiveDate) -> Payment {
        Payment {
            invoice: Some(PaidInvoice {
                invoice_id: "in_1".into(),
                amount,
                payment_intent: "pi_1".into(),
                paid_at: None,
                period: None,
            }),
            pix: None,
            amount,
            paid_on,
            period_start: paid_on,
            period_end: paid_on.checked_add_months(Months::new(1)).unwrap(),
        }
    }

    fn rates() -> Vec<MonthlyRate> {
        vec![MonthlyRate {
            month: day(2026, 11, 1),
            hundredths: 60,
        }]
    }

    #[test]
    fn a_refusal_returns_each_payment_corrected_the_card_up_to_its_charge() {
        let planned = refusal(&[card(3990, day(2026, 11, 1))], day(2026, 11, 16), &rates());
        assert_eq!(planned.len(), 1);
        let refund = &planned[0];
        assert_eq!(refund.nominal, 3990);
        // 15 of 30 days at 0,60 %: 1,00299551...; R$ 39,90 becomes R$ 40,02.
        assert_eq!(refund.correction.apply(3990), 4002);
        assert_eq!((refund.by_platform, refund.to_pay), (3990, 12));
        assert_eq!(refund.platform_nominal(), 3990);
    }

    fn payroll(charge_id: i64, received: i64, due: NaiveDate) -> PaidCharge {
        PaidCharge {
            charge_id,
            received,
            due,
            paid_at: crate::contract::formats::brasilia()
                .from_local_datetime(&due.and_hms_opt(0, 0, 0).unwrap())
                .single()
                .unwrap()
                .with_timezone(&Utc),
            pix: None,
        }
    }

    #[test]
    fn a_charge_paid_outside_the_platform_is_all_to_pay_at_the_amount_received() {
        let paid = payroll(7, 2400, day(2026, 11, 1)).payment(true);
        assert_eq!((paid.paid_on, paid.period_end), (day(2026, 11, 1), day(2026, 12, 1)));
        let planned = refusal(&[paid], day(2026, 11, 1), &rates());
        assert_eq!((planned[0].by_platform, planned[0].to_pay), (0, 2400));
    }

    #[test]
    fn nothing_received_nothing_returned() {
        assert!(refusal(&[], day(2026, 11, 1), &rates()).is_empty());
        assert!(cancellation(&[], day(2026, 11, 1), &rates()).is_empty());
    }

    #[test]
    fn a_pix_without_a_psp_to_give_it_back_is_to_pay() {
        let mut charge = payroll(9, 4990, day(2026, 11, 1));
        charge.pix = Some(PaidPix {
            charge_id: 9,
            txid: "t".into(),
            end_to_end_id: "e".into(),
        });
        assert!(charge.payment(true).pix.is_some());
        let planned = refusal(&[charge.payment(false)], day(2026, 11, 1), &rates());
        assert_eq!((planned[0].by_platform, planned[0].to_pay), (0, 4990));
    }

    #[test]
    fn a_cancellation_returns_the_unused_days_of_the_current_period() {
        // A period of 30 days (1 to 31 November... the 1st of December), cancelled on the 21st: 10 days unused.
        let planned = cancellation(&[card(3000, day(2026, 11, 1))], day(2026, 11, 21), &rates());
        assert_eq!(planned.len(), 1);
        assert_eq!(planned[0].nominal, 1000);
        let corrected = planned[0].correction.apply(1000);
        assert!(corrected > 1000 && corrected < 1010, "{corrected}");
        assert_eq!(
            (planned[0].by_platform, planned[0].to_pay),
            (corrected, 0),
            "within the charge"
        );
    }

    #[test]
    fn a_cancellation_outside_any_paid_period_returns_nothing() {
        let payments = [card(3000, day(2026, 9, 1))];
        assert!(cancellation(&payments, day(2026, 11, 21), &rates()).is_empty());
    }

    #[test]
    fn a_cancellation_returns_the_unused_days_of_every_period_paid_and_nothing_of_those_over() {
        // Paid: September (over), November (being used) and December (paid ahead); October unpaid.
        let payments = [
            payroll(1, 3000, day(2026, 9, 10)).payment(false),
            payroll(3, 3000, day(2026, 11, 10)).payment(false),
            payroll(4, 3000, day(2026, 12, 10)).payment(false),
        ];
        let planned = cancellation(&payments, day(2026, 11, 20), &rates());
        let periods: Vec<_> = planned.iter().map(|p| (p.payment.period_start, p.nominal)).collect();
        // 20 of the 30 days from 10 November unused; all of December's 31.
        assert_eq!(periods, [(day(2026, 11, 10), 2000), (day(2026, 12, 10), 3000)]);
        assert!(planned.iter().all(|p| p.to_pay >= p.nominal && p.by_platform == 0));
    }
}
