//! Signature: the signing link and the proposal's status events.

use crate::routes::dto::iso;
use domain::proposals::lifecycle::StatusEvent;
use domain::values::{EventKind, ProposalStatus, ReasonCategory};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct SignUrl {
    /// The client's signing link (absolute URL).
    #[serde(rename = "signUrl")]
    pub sign_url: String,
}

/// A status-change event as answered here (and later delivered to subscribers).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusEventDto {
    pub id: i64,
    pub kind: EventKind,
    pub previous_status: ProposalStatus,
    pub status: ProposalStatus,
    pub changed_by: String,
    #[schema(format = DateTime)]
    pub changed_at: String,
    pub sequence: i32,
    /// The reason's words: null for a seller when the move is the back office's refusal or
    /// cancellation (decision 283), whose category it reads in `reasonCategory`.
    pub reason: Option<String>,
    /// The category of a back-office refusal's or cancellation's reason; null on other moves.
    pub reason_category: Option<ReasonCategory>,
}

impl From<StatusEvent> for StatusEventDto {
    fn from(e: StatusEvent) -> Self {
        Self {
            id: e.id,
            kind: e.kind,
            previous_status: e.from,
            status: e.to,
            changed_by: e.changed_by,
            changed_at: iso(e.changed_at),
            sequence: e.sequence,
            reason: e.reason,
            reason_category: e.reason_category,
        }
    }
}
