//! The right of regret's rules (CDC art. 49): the 7 calendar days (Brasília) after the sale's
//! conclusion within which the customer may undo it. The withdrawal applies them; the
//! cancellation defers to them; the certificate and the terms name the last day.

use crate::contract::formats::brasilia;
use crate::proposals::model::Flow;
use crate::proposals::requests::SaleMoments;
use chrono::{DateTime, Days, NaiveDate, Utc};

/// The calendar days (Brasília) after the sale's conclusion within which the customer may regret.
pub const WITHDRAWAL_DAYS: u64 = 7;

/// The reason every withdrawal's status move carries.
pub const WITHDRAWAL_REASON: &str = "ARREPENDIMENTO";

/// The last Brasília day on which a sale concluded at `concluded_at` may be undone: the day of the
/// conclusion counts as day 0, so a sale signed on the 24th may be undone until the end of the 1st.
pub fn last_day(concluded_at: DateTime<Utc>) -> NaiveDate {
    let day = concluded_at.with_timezone(&brasilia()).date_naive();
    day.checked_add_days(Days::new(WITHDRAWAL_DAYS))
        .unwrap_or(NaiveDate::MAX)
}

/// Whether `now` is still within the right of regret of a sale concluded at `concluded_at`.
pub fn within_regret(concluded_at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    now.with_timezone(&brasilia()).date_naive() <= last_day(concluded_at)
}

/// When the sale was concluded: an online sale by its subscription's start, any other by its last
/// signature.
pub(crate) fn concluded_at(flow: Flow, moments: &SaleMoments) -> Option<DateTime<Utc>> {
    match flow {
        Flow::Ecommerce => moments.subscription.as_ref().map(|s| s.started_at),
        Flow::Partner => moments.last_signature,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn brt(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        brasilia()
            .with_ymd_and_hms(y, m, d, h, min, 0)
            .single()
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn seven_calendar_days_in_brasilia_count_from_the_day_after_the_conclusion() {
        // Signed at 23:30 in Brasília on the 24th (already the 25th in UTC): day 7 is the 1st.
        let signed = brt(2026, 11, 24, 23, 30);
        assert_eq!(last_day(signed), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert!(within_regret(signed, brt(2026, 12, 1, 23, 59)), "the whole 7th day");
        assert!(!within_regret(signed, brt(2026, 12, 2, 0, 0)), "the 8th day");
        assert!(within_regret(signed, signed));
    }

    #[test]
    fn an_online_sale_counts_from_its_subscription_and_any_other_from_its_last_signature() {
        let signed = brt(2026, 11, 20, 10, 0);
        let paid = brt(2026, 11, 22, 10, 0);
        let moments = SaleMoments {
            last_signature: Some(signed),
            subscription: Some(crate::proposals::requests::SubscriptionStart {
                platform_id: "sub_1".into(),
                started_at: paid,
                status: "active".into(),
            }),
        };
        assert_eq!(concluded_at(Flow::Ecommerce, &moments), Some(paid));
        assert_eq!(concluded_at(Flow::Partner, &moments), Some(signed));
        assert_eq!(concluded_at(Flow::Partner, &SaleMoments::default()), None);
    }
}
