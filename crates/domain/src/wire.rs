//! How the service's answers and event bodies write a value on the wire, where the contract
//! fixes one way for every route: an instant is ISO 8601 in UTC with milliseconds.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serializer;

/// `2026-11-22T05:47:11.123Z`.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// [`timestamp`], for `#[serde(serialize_with)]`.
pub fn serialize_timestamp<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&timestamp(*at))
}

#[cfg(test)]
mod tests {
    use super::timestamp;
    use chrono::{TimeZone, Utc};

    #[test]
    fn an_instant_is_utc_with_milliseconds() {
        let at = Utc
            .with_ymd_and_hms(2026, 11, 22, 5, 47, 11)
            .single()
            .map(|t| t + chrono::Duration::milliseconds(123));
        assert_eq!(at.map(timestamp).as_deref(), Some("2026-11-22T05:47:11.123Z"));
        let whole = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).single();
        assert_eq!(whole.map(timestamp).as_deref(), Some("2026-01-02T03:04:05.000Z"));
    }
}
