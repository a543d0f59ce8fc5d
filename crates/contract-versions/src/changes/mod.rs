//! Every breaking change between two versions, one module each. A change knows where it applies
//! (the schemas of answers, the members of events) and how the newest value looks in the version
//! before it; answers, events and the OpenAPI document of an older version are the newest passed
//! through every change introduced after it, newest first.

mod address_number_text;
mod birthday_iso_date;
mod cursor_pages;
mod expired_status;
mod newer_error_codes;
mod newer_event_kinds;
mod notice_and_term_events;
mod pix_automatic_payment;
mod screening;
mod timestamp_format;

use crate::ApiVersion;
use serde_json::Value;

pub use address_number_text::AddressNumberText;
pub use birthday_iso_date::BirthdayIsoDate;
pub use cursor_pages::CursorPages;
pub use expired_status::ExpiredStatus;
pub use newer_error_codes::{AS_RELEASE_0_1_0, NewerErrorCodes};
pub use newer_event_kinds::NewerEventKinds;
pub use notice_and_term_events::NoticeAndTermEvents;
pub use pix_automatic_payment::PixAutomaticPayment;
pub use screening::{DiligenceMember, ScreeningErrorCode};
pub use timestamp_format::TimestampFormat;

/// Where in an answer a change applies: every value of the component schema `schema`, or, with
/// `member`, that member of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerTarget {
    pub schema: &'static str,
    pub member: Option<&'static str>,
}

/// Where in a delivered event a change applies: the member at `path` of events of `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTarget {
    pub kind: &'static str,
    pub path: &'static [&'static str],
}

/// One breaking change: what the newest version shows, turned into what the version before it
/// showed.
pub trait Change: Sync {
    /// A short name (the module's), for logs and the CHANGELOG.
    fn name(&self) -> &'static str;
    /// The first version that shows the change; every older version sees `downgrade`'s shape.
    fn introduced_in(&self) -> ApiVersion;
    /// The answers' values it applies to.
    fn answer_targets(&self) -> &'static [AnswerTarget];
    /// The events' values it applies to.
    fn event_targets(&self) -> &'static [EventTarget] {
        &[]
    }
    /// Whether the change added the members at its targets: the previous version's answer goes
    /// without them (`downgrade` is not asked), and is otherwise copied as written.
    fn adds_members(&self) -> bool {
        false
    }
    /// One value (at a target) as the previous version shows it.
    fn downgrade(&self, value: &mut Value);
    /// The newest document as the previous version declares it.
    fn document(&self, doc: &mut Value);
}

/// Every change, oldest first (as they were introduced).
pub static CHANGES: &[&dyn Change] = &[
    &ExpiredStatus,
    &NewerErrorCodes,
    &PixAutomaticPayment,
    &NewerEventKinds,
    &BirthdayIsoDate,
    &AddressNumberText,
    &TimestampFormat,
    &CursorPages,
    &NoticeAndTermEvents,
    &ScreeningErrorCode,
    &DiligenceMember,
];

/// The changes a caller of `version` must not see, newest first: the order they are undone in.
pub fn undone_for(version: ApiVersion) -> impl Iterator<Item = &'static dyn Change> {
    CHANGES
        .iter()
        .rev()
        .copied()
        .filter(move |change| change.introduced_in() > version)
}

/// The member `name` of schema `schema` in `doc`, if the document has it.
pub(crate) fn property<'d>(doc: &'d mut Value, schema: &str, name: &str) -> Option<&'d mut Value> {
    doc.pointer_mut(&format!("/components/schemas/{schema}/properties/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_listed_in_the_order_of_their_versions_and_none_is_in_the_oldest() {
        let versions: Vec<ApiVersion> = CHANGES.iter().map(|c| c.introduced_in()).collect();
        let mut sorted = versions.clone();
        sorted.sort();
        assert_eq!(versions, sorted);
        assert!(versions.iter().all(|v| *v > ApiVersion::ALL[0]));
        assert_eq!(undone_for(ApiVersion::NEWEST).count(), 0);
        assert_eq!(undone_for(ApiVersion::ALL[0]).count(), CHANGES.len());
    }

    #[test]
    fn every_version_but_the_first_introduces_a_change() {
        for version in &ApiVersion::ALL[1..] {
            assert!(
                CHANGES.iter().any(|c| c.introduced_in() == *version),
                "{version} changes nothing"
            );
        }
    }
}
