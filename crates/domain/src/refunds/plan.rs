//! What a proposal's end returns, computed before any money moves: which payments, how much of
//! each (all of it, or the unused days of the period it paid), corrected by the IPCA, and how
//! much of it the platform can return.

use crate::ecommerce::PaidInvoice;
use crate::refunds::correction::{Correction, MonthlyRate};
use chrono::{Months, NaiveDate};

/// A payment the customer made: a platform invoice, or a premium collected outside the platform
/// (payroll discount or account debit, which this service does not see: each monthly premium due
/// since the sale's conclusion is taken as collected, and the finance team checks it against the
/// collection's return files before paying).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    /// The platform's invoice; `None` for a premium collected outside the platform.
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

/// The monthly premiums due from the sale's conclusion to `today`, the first on the conclusion's
/// day and one each month after.
pub fn premiums(concluded_on: NaiveDate, premium: i64, today: NaiveDate) -> Vec<Payment> {
    let mut payments = Vec::new();
    if premium <= 0 {
        return payments;
    }
    for k in 0.. {
        let Some(due) = concluded_on.checked_add_months(Months::new(k)) else {
            break;
        };
        if due > today {
            break;
        }
        let period_end = concluded_on
            .checked_add_months(Months::new(k + 1))
            .unwrap_or(NaiveDate::MAX);
        payments.push(Payment {
            invoice: None,
            pix: None,
            amount: premium,
            paid_on: due,
            period_start: due,
            period_end,
        });
    }
    payments
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

/// A cancellation returns the unused days of the period being paid for when it takes effect
/// (pro rata die: the days from `today` to the period's end over the period's days, rounded down
/// to the cent), corrected; a period already over or not yet begun returns nothing.
pub fn cancellation(payments: &[Payment], today: NaiveDate, rates: &[MonthlyRate]) -> Vec<PlannedRefund> {
    payments
        .iter()
        .filter(|p| p.amount > 0 && p.period_start <= today && today < p.period_end)
        .max_by_key(|p| p.period_start)
        .map(|p| {
            let period_days = (p.period_end - p.period_start).num_days().max(1);
            let unused = (p.period_end - today).num_days().clamp(0, period_days);
            let nominal = (i128::from(p.amount) * i128::from(unused) / i128::from(period_days)) as i64;
            PlannedRefund::of(p, nominal, today, rates)
        })
        .filter(|planned| planned.nominal > 0)
        .into_iter()
        .collect()
}

/// The first day a correction needs rates for.
pub fn earliest_payment(payments: &[Payment]) -> Option<NaiveDate> {
    payments.iter().map(|p| p.paid_on).min()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn premiums_fall_due_on_the_conclusions_day_each_month() {
        let due = premiums(day(2026, 9, 30), 2500, day(2026, 11, 29));
        let days: Vec<_> = due.iter().map(|p| p.paid_on).collect();
        assert_eq!(days, [day(2026, 9, 30), day(2026, 10, 30)]);
        assert_eq!(due[1].period_end, day(2026, 11, 30));
        assert!(premiums(day(2026, 9, 30), 0, day(2026, 11, 29)).is_empty());
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

    #[test]
    fn a_premium_collected_outside_the_platform_is_all_to_pay() {
        let due = premiums(day(2026, 11, 1), 2500, day(2026, 11, 1));
        let planned = refusal(&due, day(2026, 11, 1), &rates());
        assert_eq!((planned[0].by_platform, planned[0].to_pay), (0, 2500));
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
    fn a_cancellation_takes_the_latest_period_only() {
        let payments = premiums(day(2026, 9, 10), 3000, day(2026, 11, 20));
        let planned = cancellation(&payments, day(2026, 11, 20), &rates());
        assert_eq!(planned.len(), 1);
        assert_eq!(planned[0].payment.period_start, day(2026, 11, 10));
        // 20 of the 30 days from 10 November to 10 December unused.
        assert_eq!(planned[0].nominal, 2000);
    }
}
