//! Monetary correction of a refund by the IPCA, pro rata die (issue 45): an amount paid on one
//! day and returned on another is returned as it would be worth then. Each month the period
//! touches contributes its published monthly variation raised to the share of the month the
//! period spent in it: `factor = Π (1 + vₘ)^(dₘ / Dₘ)`, `dₘ` the period's days in month `m` and
//! `Dₘ` the month's days. A month whose IPCA is not published yet (IBGE publishes around the 10th
//! of the next month) takes the last one published, and is recorded as projected. The factor is
//! truncated to eight decimals, as the market's calculators print it, and never goes below one: a
//! deflation does not return less than was paid.

use chrono::{Datelike, Months, NaiveDate};

/// The index every correction uses.
pub const INDEX: &str = "IPCA";

/// The factor's scale: eight decimals.
const FACTOR_SCALE: i64 = 100_000_000;

/// A month's published variation of the index, in hundredths of a percent (`16` is 0,16 %),
/// which is how IBGE publishes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthlyRate {
    /// The month's first day.
    pub month: NaiveDate,
    pub hundredths: i32,
}

/// One month of a correction, as recorded with the refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CorrectionMonth {
    /// The month's first day.
    pub month: NaiveDate,
    /// The variation used, in hundredths of a percent.
    pub hundredths: i32,
    /// The period's days in the month.
    pub days: u32,
    /// Not published when the refund was made: the last published month's variation stood in.
    pub projected: bool,
}

/// The correction of one amount from the day it was paid to the day it is returned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Correction {
    pub index: String,
    /// The day the amount was paid (Brasília).
    pub from: NaiveDate,
    /// The day it is returned (Brasília).
    pub to: NaiveDate,
    /// The factor in hundred-millionths (`100_123_456` is 1,00123456).
    pub factor: i64,
    pub months: Vec<CorrectionMonth>,
}

impl Correction {
    /// The correction of an amount paid on `from` and returned on `to` with the rates known
    /// (published months, any order; months outside the period are ignored).
    pub fn compute(from: NaiveDate, to: NaiveDate, rates: &[MonthlyRate]) -> Correction {
        let mut months = Vec::new();
        let mut product = 1.0_f64;
        let mut day = from;
        while day < to {
            let month = first_of_month(day);
            let next = month.checked_add_months(Months::new(1)).unwrap_or(NaiveDate::MAX);
            let end = next.min(to);
            let days = (end - day).num_days().max(0) as u32;
            let (hundredths, projected) = rate_for(month, rates);
            let month_days = (next - month).num_days().max(1) as f64;
            product *= (1.0 + f64::from(hundredths) / 10_000.0).powf(f64::from(days) / month_days);
            months.push(CorrectionMonth {
                month,
                hundredths,
                days,
                projected,
            });
            day = end;
        }
        // Truncated to eight decimals (after rounding away the binary float's noise in the tenth:
        // 1,0048 is 1,00479999999... in binary), never below one.
        let factor = (((product * 1e10).round() as i64) / 100).max(FACTOR_SCALE);
        Correction {
            index: INDEX.to_owned(),
            from,
            to,
            factor,
            months,
        }
    }

    /// `cents` corrected by the factor, rounded to the nearest cent (half up).
    pub fn apply(&self, cents: i64) -> i64 {
        let scaled = i128::from(cents) * i128::from(self.factor);
        let scale = i128::from(FACTOR_SCALE);
        ((scaled + scale / 2) / scale) as i64
    }

    /// The factor as people read it: `1,00123456`.
    pub fn factor_text(&self) -> String {
        format!("{}.{:08}", self.factor / FACTOR_SCALE, self.factor % FACTOR_SCALE)
    }
}

/// The first day of `day`'s month.
pub fn first_of_month(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

/// How many months before a period's first an index source is asked from: IBGE publishes a
/// month's variation around the 10th of the next, so on any day the last variation published is
/// at most two months back, and a period inside months not yet published still finds it.
const PUBLISHED_LAG_MONTHS: u32 = 2;

/// The months an index source is asked for: from the last that may be published before `from`'s
/// month (the variation a month not yet published takes) to `to`'s, both included.
pub fn months_between(from: NaiveDate, to: NaiveDate) -> (NaiveDate, NaiveDate) {
    let first = first_of_month(from);
    let reach_back = first
        .checked_sub_months(chrono::Months::new(PUBLISHED_LAG_MONTHS))
        .unwrap_or(first);
    (reach_back, first_of_month(to.max(from)))
}

/// The month's variation, or the last published before it (projected), or none at all (zero,
/// projected) when nothing before it is known.
fn rate_for(month: NaiveDate, rates: &[MonthlyRate]) -> (i32, bool) {
    if let Some(rate) = rates.iter().find(|r| r.month == month) {
        return (rate.hundredths, false);
    }
    let last = rates.iter().filter(|r| r.month < month).max_by_key(|r| r.month);
    (last.map_or(0, |r| r.hundredths), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn rate(y: i32, m: u32, hundredths: i32) -> MonthlyRate {
        MonthlyRate {
            month: day(y, m, 1),
            hundredths,
        }
    }

    #[test]
    fn a_refund_on_the_day_of_the_payment_is_not_corrected() {
        let correction = Correction::compute(day(2026, 11, 10), day(2026, 11, 10), &[rate(2026, 11, 50)]);
        assert_eq!(correction.factor, 100_000_000);
        assert!(correction.months.is_empty());
        assert_eq!(correction.apply(3990), 3990);
    }

    #[test]
    fn a_whole_month_takes_its_whole_variation() {
        let correction = Correction::compute(day(2026, 9, 1), day(2026, 10, 1), &[rate(2026, 9, 48)]);
        assert_eq!(correction.factor_text(), "1.00480000");
        assert_eq!(correction.apply(100_000), 100_480);
        assert_eq!(
            correction.months,
            [CorrectionMonth {
                month: day(2026, 9, 1),
                hundredths: 48,
                days: 30,
                projected: false
            }]
        );
    }

    #[test]
    fn each_month_contributes_its_days_share_and_the_factor_is_truncated() {
        // 15 of October's 31 days at 0,56 %, then 10 of November's 30 at 0,39 %.
        let rates = [rate(2026, 10, 56), rate(2026, 11, 39)];
        let correction = Correction::compute(day(2026, 10, 17), day(2026, 11, 11), &rates);
        let expected = 1.0056_f64.powf(15.0 / 31.0) * 1.0039_f64.powf(10.0 / 30.0);
        assert_eq!(correction.factor, (expected * 1e10).round() as i64 / 100);
        assert_eq!(correction.months.len(), 2);
        assert_eq!((correction.months[0].days, correction.months[1].days), (15, 10));
        // R$ 39,90 becomes R$ 40,06 (factor 1,0040...).
        assert_eq!(correction.apply(3990), 4006);
    }

    #[test]
    fn a_month_not_published_yet_takes_the_last_published_and_says_so() {
        let correction = Correction::compute(day(2026, 10, 20), day(2026, 11, 20), &[rate(2026, 10, 30)]);
        assert!(!correction.months[0].projected);
        assert!(correction.months[1].projected);
        assert_eq!(correction.months[1].hundredths, 30);
        let nothing_known = Correction::compute(day(2026, 10, 20), day(2026, 11, 20), &[]);
        assert_eq!(nothing_known.factor, 100_000_000);
        assert!(nothing_known.months.iter().all(|m| m.projected && m.hundredths == 0));
    }

    #[test]
    fn a_deflation_never_returns_less_than_was_paid() {
        let correction = Correction::compute(day(2026, 7, 1), day(2026, 8, 1), &[rate(2026, 7, -11)]);
        assert_eq!(correction.factor, 100_000_000);
        assert_eq!(correction.apply(3990), 3990);
    }

    #[test]
    fn the_months_asked_for_span_the_period_and_reach_back_to_the_last_published() {
        assert_eq!(
            months_between(day(2026, 10, 17), day(2026, 11, 11)),
            (day(2026, 8, 1), day(2026, 11, 1))
        );
        assert_eq!(
            months_between(day(2026, 12, 1), day(2026, 12, 17)),
            (day(2026, 10, 1), day(2026, 12, 1))
        );
    }

    #[test]
    fn a_period_inside_a_month_not_yet_published_takes_the_last_published_variation() {
        // Paid and returned in December, before November's variation is out: October's stands in.
        let correction = Correction::compute(day(2026, 12, 1), day(2026, 12, 17), &[rate(2026, 10, 40)]);
        assert_eq!(correction.months.len(), 1);
        assert!(correction.months[0].projected);
        assert_eq!(correction.months[0].hundredths, 40);
        assert!(correction.factor > 100_000_000, "{correction:?}");
    }
}
