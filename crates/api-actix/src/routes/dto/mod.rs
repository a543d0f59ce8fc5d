//! The contract's shapes, one module per area: every answer body with the spec's field names,
//! built from the domain's records by one `From` each. Timestamps are ISO 8601 UTC with
//! milliseconds.

mod catalog;
mod customers;
mod history;
mod proposals;

pub use catalog::*;
pub use customers::*;
pub use history::*;
pub use proposals::*;

use chrono::{DateTime, Utc};
use domain::values::{CellPhone, Landline};
use serde::Serialize;
use utoipa::ToSchema;

/// `2026-11-22T05:47:11.123Z`: UTC, milliseconds.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Phones are stored as digits and shown as the spec writes them.
pub(super) fn cell_phone(digits: &Option<String>) -> Option<String> {
    digits.as_deref().map(|d| {
        CellPhone::parse(d)
            .map(|p| p.formatted())
            .unwrap_or_else(|_| d.to_owned())
    })
}

pub(super) fn landline(digits: &Option<String>) -> Option<String> {
    digits.as_deref().map(|d| {
        Landline::parse(d)
            .map(|p| p.formatted())
            .unwrap_or_else(|_| d.to_owned())
    })
}

/// Where the next page of a list starts.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListPageDto {
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(rename = "nextCursor")]
    #[schema(example = "MTc5NTAwMDAwMDEyMzQ1Njo5ODE")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct IsValidDto {
    #[serde(rename = "isValid")]
    pub is_valid: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn timestamps_are_utc_with_milliseconds() {
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap() + chrono::Duration::milliseconds(6);
        assert_eq!(iso(t), "2026-01-02T03:04:05.006Z");
        assert_eq!(
            iso(Utc.with_ymd_and_hms(2026, 11, 22, 0, 0, 0).unwrap()),
            "2026-11-22T00:00:00.000Z"
        );
    }
}
