//! The money of a partner's sale after its acceptance (issue 46): one charge per period of every
//! accepted contract, and the contract's billing status as its unpaid charges make it.
//!
//! A contract paid by `DÉBITO EM CONTA` or `DESCONTO EM FOLHA` starts its billing when it enters
//! `APROVADO` (written in the move's transaction, with its product's [`DunningPolicy`] as it was
//! then). Its first charge falls due [`DunningPolicy::first_due_days`] calendar days after the
//! Brasília day of the acceptance (never more than 30), each later one a month after the one
//! before ([`due_date`]). A daily run on every instance and on the worker creates each charge
//! [`CREATION_LEAD_DAYS`] before it falls due, once per contract and period, and judges the
//! contracts with unpaid charges ([`judge`]): late past the grace days (`em_atraso`), suspended
//! from the product's unpaid days (`suspenso`), up to date again when paid. Only a charge the
//! insurer presented counts ([`Charge::presented_at`]: the debit in a remessa, the Pix charge
//! sent to the PSP, the payroll discount asked): nobody is late for money nobody asked for
//! (Código Civil art. 396; decision 265). A late contract is suspended only once a notice's days
//! have run from its receipt, and ended later still ([`arrears`], Lei 15.040/2024 arts. 20–21).
//! A failed attempt is
//! tried again on the policy's retry days after the due date ([`next_attempt`]); after the last
//! one the charge has failed. The online shop's card contracts are billed by the payment
//! platform's subscription (`data.subscription`), not here.

pub mod arrears;
pub mod averbacao;
pub mod cnab150;
pub mod debits;
pub mod notice_kind;
pub mod payroll;
pub mod pix;
pub mod pix_collection;
pub mod ports;
pub mod revocation;
pub mod service;
pub mod term;

use crate::validation::{Violations, codes};
pub use crate::values::{BillingStatus, ChargeStatus};
use chrono::{DateTime, Days, Months, NaiveDate, Utc};

/// How many days before its due date a charge is created: the upper end of the window in which
/// the Central Bank's Pix Automático lets a charge be sent (2 to 10 days before it falls due), so
/// every method's charge exists by the time any needs it.
pub const CREATION_LEAD_DAYS: u64 = 10;

/// The latest a first charge may fall due after the acceptance.
pub const MAX_FIRST_DUE_DAYS: u32 = 30;
/// The most retries a product may ask for.
pub const MAX_RETRIES: usize = 5;
/// The longest a contract may stay unpaid before it is suspended.
pub const MAX_SUSPENSION_DAYS: u32 = 180;

/// Who changes a billing by the daily run, in its history and events.
pub const RUN_ACTOR: &str = "sistema:cobranca";

/// A product's dunning policy: when the first charge falls due and what happens when one is not
/// paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DunningPolicy {
    /// Calendar days from the acceptance to the first due date (1 to 30).
    pub first_due_days: u32,
    /// Days after the due date on which a failed charge is tried again, ascending (at most 5).
    pub retry_days: Vec<u32>,
    /// Days after the due date an unpaid charge is tolerated before the contract is late.
    pub grace_days: u32,
    /// Days after the due date an unpaid charge suspends the contract (more than the grace days).
    pub suspension_days: u32,
}

impl Default for DunningPolicy {
    /// Due 10 days after the acceptance; retried 1, 3 and 5 days after the due date; late after 5
    /// days; suspended after 30.
    fn default() -> Self {
        Self {
            first_due_days: 10,
            retry_days: vec![1, 3, 5],
            grace_days: 5,
            suspension_days: 30,
        }
    }
}

impl DunningPolicy {
    /// A policy within the service's bounds, each bad value named.
    pub fn new(
        first_due_days: i64,
        retry_days: &[i64],
        grace_days: i64,
        suspension_days: i64,
    ) -> Result<Self, Violations> {
        let mut v = Violations::new();
        if !(1..=i64::from(MAX_FIRST_DUE_DAYS)).contains(&first_due_days) {
            v.add(
                "firstDueDays",
                codes::INVALID_VALUE,
                format!("firstDueDays deve estar entre 1 e {MAX_FIRST_DUE_DAYS}"),
            );
        }
        let ascending = retry_days.windows(2).all(|w| w[0] < w[1]);
        if retry_days.len() > MAX_RETRIES || !ascending || retry_days.iter().any(|d| !(1..=60).contains(d)) {
            v.add(
                "retryDays",
                codes::INVALID_VALUE,
                format!("retryDays deve ter até {MAX_RETRIES} dias crescentes entre 1 e 60"),
            );
        }
        if !(0..=60).contains(&grace_days) {
            v.add("graceDays", codes::INVALID_VALUE, "graceDays deve estar entre 0 e 60");
        }
        if suspension_days <= grace_days || suspension_days > i64::from(MAX_SUSPENSION_DAYS) {
            v.add(
                "suspensionDays",
                codes::INVALID_VALUE,
                format!("suspensionDays deve ser maior que graceDays e no máximo {MAX_SUSPENSION_DAYS}"),
            );
        }
        v.into_result()?;
        Ok(Self {
            first_due_days: first_due_days as u32,
            retry_days: retry_days.iter().map(|d| *d as u32).collect(),
            grace_days: grace_days as u32,
            suspension_days: suspension_days as u32,
        })
    }
}

/// What a product's contracts are billed by (`sales-api catalog billing`): its dunning policy and
/// what the law's steps take from the product (issue 67): an unpaid first instalment's rule and
/// the days from the suspension to the end. A contract keeps those of its acceptance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductBilling {
    pub policy: DunningPolicy,
    pub first_instalment: arrears::FirstInstalment,
    pub end_days: u32,
}

impl ProductBilling {
    /// Rules within the service's and the law's bounds, each bad value named by its option.
    pub fn new(policy: (i64, &[i64], i64, i64), first_instalment: &str, end_days: i64) -> Result<Self, Violations> {
        let (first_due_days, retry_days, grace_days, suspension_days) = policy;
        let mut v = match DunningPolicy::new(first_due_days, retry_days, grace_days, suspension_days) {
            Ok(_) => Violations::new(),
            Err(violations) => violations,
        };
        let first = arrears::FirstInstalment::parse(first_instalment);
        if first.is_none() {
            v.add(
                "firstInstalment",
                codes::INVALID_VALUE,
                "firstInstalment deve ser resolve (a lei: a primeira parcela não paga encerra o contrato) ou suspende",
            );
        }
        let bounds = i64::from(arrears::END_MIN_DAYS)..=i64::from(arrears::END_MAX_DAYS);
        if !bounds.contains(&end_days) {
            v.add(
                "endDays",
                codes::INVALID_VALUE,
                format!(
                    "endDays deve estar entre {} (Lei 15.040/2024, art. 21) e {}",
                    arrears::END_MIN_DAYS,
                    arrears::END_MAX_DAYS
                ),
            );
        }
        v.into_result()?;
        Ok(Self {
            policy: DunningPolicy::new(first_due_days, retry_days, grace_days, suspension_days)?,
            first_instalment: first.unwrap_or(arrears::FirstInstalment::Ends),
            end_days: end_days as u32,
        })
    }
}

/// The Brasília calendar day of an instant: the day contracts, due dates and bank files speak of.
pub fn brasilia_day(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&crate::contract::formats::brasilia()).date_naive()
}

/// When the first charge of a contract accepted on `accepted_on` falls due.
pub fn first_due_date(accepted_on: NaiveDate, policy: &DunningPolicy) -> NaiveDate {
    accepted_on + Days::new(u64::from(policy.first_due_days.min(MAX_FIRST_DUE_DAYS)))
}

/// When period `period` (1 for the first) falls due: a calendar month after the one before, on
/// the first's day, or the month's last day when it has no such day (31 January, then 28 or 29
/// February, then 31 March).
pub fn due_date(first_due: NaiveDate, period: u32) -> NaiveDate {
    first_due
        .checked_add_months(Months::new(period.saturating_sub(1)))
        .unwrap_or(NaiveDate::MAX)
}

/// When a charge whose `attempts_failed`-th attempt just failed is tried again, if it is: on the
/// policy's next retry day after the due date, never before `today + 1`. `None`: the charge has
/// failed.
pub fn next_attempt(
    policy: &DunningPolicy,
    due: NaiveDate,
    attempts_failed: u32,
    today: NaiveDate,
) -> Option<NaiveDate> {
    let retry = policy.retry_days.get(attempts_failed.checked_sub(1)? as usize)?;
    let scheduled = due + Days::new(u64::from(*retry));
    Some(scheduled.max(today + Days::new(1)))
}

/// A contract's billing status on `today`, from the due date of its oldest unpaid charge (open
/// or failed) that was presented: up to date while none is more than the grace days late,
/// suspended once one is the suspension days late, late between.
pub fn judge(
    oldest_unpaid_due: Option<NaiveDate>,
    today: NaiveDate,
    grace_days: u32,
    suspension_days: u32,
) -> BillingStatus {
    let Some(due) = oldest_unpaid_due else {
        return BillingStatus::UpToDate;
    };
    let late = (today - due).num_days();
    if late >= i64::from(suspension_days) {
        BillingStatus::Suspended
    } else if late > i64::from(grace_days) {
        BillingStatus::Late
    } else {
        BillingStatus::UpToDate
    }
}

/// One charge of a contract, as route 7 and the events show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    /// 1 for the first period.
    pub period: i32,
    pub due_date: NaiveDate,
    /// Cents.
    pub amount: i64,
    /// `DÉBITO EM CONTA`, `DESCONTO EM FOLHA`.
    pub method: String,
    pub status: ChargeStatus,
    /// Attempts made to collect it (a payroll charge has none: the employer reports it).
    pub attempts: i32,
    /// When the insurer first presented it to be paid (the debit's remessa, the Pix charge's
    /// sending, the payroll discount's request): until then it makes nobody late (decision 265).
    pub presented_at: Option<DateTime<Utc>>,
    /// When it is tried again, after a failed attempt.
    pub next_attempt: Option<NaiveDate>,
    /// The outside service's id of it (a bank file's debit, a Pix charge's txid).
    pub external_id: Option<String>,
    /// Why it failed or was cancelled.
    pub reason: Option<String>,
    pub paid_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A contract's billing status and since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Billing {
    pub status: BillingStatus,
    pub since: DateTime<Utc>,
}

/// How many charges route 7 shows: the last year's.
pub const CHARGES_SHOWN: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn the_first_charge_falls_due_the_policys_days_after_the_acceptance_and_never_past_thirty() {
        let policy = DunningPolicy::default();
        assert_eq!(first_due_date(day("2026-11-28"), &policy), day("2026-12-08"));
        let late = DunningPolicy {
            first_due_days: 45,
            ..DunningPolicy::default()
        };
        assert_eq!(first_due_date(day("2026-11-28"), &late), day("2026-12-28"));
    }

    #[test]
    fn each_period_falls_due_a_month_later_on_the_same_day_or_the_months_last() {
        let first = day("2027-01-31");
        assert_eq!(due_date(first, 1), first);
        assert_eq!(due_date(first, 2), day("2027-02-28"));
        assert_eq!(due_date(first, 3), day("2027-03-31"));
        assert_eq!(due_date(day("2027-12-08"), 13), day("2028-12-08"));
        assert_eq!(due_date(day("2027-01-31"), 14), day("2028-02-29"));
    }

    #[test]
    fn a_failed_attempt_is_retried_on_the_policys_days_then_the_charge_fails() {
        let policy = DunningPolicy::default();
        let due = day("2026-12-08");
        assert_eq!(next_attempt(&policy, due, 1, due), Some(day("2026-12-09")));
        assert_eq!(next_attempt(&policy, due, 2, due), Some(day("2026-12-11")));
        assert_eq!(next_attempt(&policy, due, 3, due), Some(day("2026-12-13")));
        assert_eq!(next_attempt(&policy, due, 4, due), None);
        // A return read late never schedules a retry in the past.
        assert_eq!(
            next_attempt(&policy, due, 1, day("2026-12-20")),
            Some(day("2026-12-21"))
        );
        let none = DunningPolicy {
            retry_days: vec![],
            ..DunningPolicy::default()
        };
        assert_eq!(next_attempt(&none, due, 1, due), None);
    }

    #[test]
    fn a_contract_is_late_past_its_grace_days_and_suspended_from_its_unpaid_days() {
        let due = day("2026-12-08");
        assert_eq!(judge(None, day("2027-06-01"), 5, 30), BillingStatus::UpToDate);
        assert_eq!(judge(Some(due), day("2026-12-13"), 5, 30), BillingStatus::UpToDate);
        assert_eq!(judge(Some(due), day("2026-12-14"), 5, 30), BillingStatus::Late);
        assert_eq!(judge(Some(due), day("2027-01-06"), 5, 30), BillingStatus::Late);
        assert_eq!(judge(Some(due), day("2027-01-07"), 5, 30), BillingStatus::Suspended);
        // Before its due date a charge is not late at all.
        assert_eq!(judge(Some(due), day("2026-12-01"), 0, 30), BillingStatus::UpToDate);
    }

    #[test]
    fn a_policy_out_of_bounds_names_each_bad_value() {
        let refused = DunningPolicy::new(0, &[3, 1], 10, 10).unwrap_err();
        let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["firstDueDays", "retryDays", "suspensionDays"]);
        assert_eq!(
            DunningPolicy::new(10, &[1, 3, 5], 5, 30).unwrap(),
            DunningPolicy::default()
        );
    }

    #[test]
    fn a_products_billing_rules_name_each_value_out_of_the_laws_bounds() {
        let refused = ProductBilling::new((10, &[1, 3, 5], 5, 30), "encerra", 29).unwrap_err();
        let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["firstInstalment", "endDays"]);
        let refused = ProductBilling::new((0, &[1], 5, 30), "resolve", 181).unwrap_err();
        let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["firstDueDays", "endDays"]);
        let kept = ProductBilling::new((10, &[1, 3, 5], 5, 30), "suspende", 45).unwrap();
        assert_eq!(kept.policy, DunningPolicy::default());
        assert_eq!(
            (kept.first_instalment, kept.end_days),
            (arrears::FirstInstalment::Suspends, 45)
        );
    }

    #[test]
    fn the_brasilia_day_turns_at_three_in_the_morning_utc() {
        let before = "2026-11-29T02:59:59Z".parse::<DateTime<Utc>>().unwrap();
        let after = "2026-11-29T03:00:00Z".parse::<DateTime<Utc>>().unwrap();
        assert_eq!(brasilia_day(before), day("2026-11-28"));
        assert_eq!(brasilia_day(after), day("2026-11-29"));
    }
}
