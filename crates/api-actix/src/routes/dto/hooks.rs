//! Webhooks: subscriptions, their deliveries and attempts, and replays.

use crate::routes::dto::iso;
use domain::hooks::{Attempt, Delivery, Subscription};
use domain::values::{EventKind, HookStatus};
use serde::Serialize;
use utoipa::ToSchema;

/// An event subscription as routes 17 and the management routes answer it.
#[derive(Serialize, ToSchema)]
pub struct HookDto {
    pub uuid: String,
    /// `whsec_` and base64 of 32 bytes: the Standard Webhooks signing key.
    pub secret: String,
    pub endpoint: String,
    #[schema(value_type = Vec<String>, example = json!(["ALTERAÇÃO_STATUS"]))]
    pub events: Vec<EventKind>,
    /// `ATIVO` or `INATIVO`.
    #[schema(value_type = String)]
    pub status: HookStatus,
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "updatedAt")]
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Why the service turned it `INATIVO` (410, or failing for days); absent otherwise.
    #[serde(rename = "inactiveReason", skip_serializing_if = "Option::is_none")]
    pub inactive_reason: Option<String>,
}

impl From<Subscription> for HookDto {
    fn from(s: Subscription) -> Self {
        Self {
            uuid: s.uuid.to_string(),
            secret: s.secret.expose().to_owned(),
            endpoint: s.endpoint,
            events: s.events,
            status: s.status,
            created_at: iso(s.created_at),
            updated_at: iso(s.updated_at),
            inactive_reason: s.inactive_reason,
        }
    }
}

/// An event subscription as route 18 lists it (the spec's members).
#[derive(Serialize, ToSchema)]
pub struct HookListItemDto {
    pub uuid: String,
    pub secret: String,
    pub endpoint: String,
    #[schema(value_type = String)]
    pub status: HookStatus,
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(value_type = Vec<String>)]
    pub events: Vec<EventKind>,
}

impl From<Subscription> for HookListItemDto {
    fn from(s: Subscription) -> Self {
        Self {
            uuid: s.uuid.to_string(),
            secret: s.secret.expose().to_owned(),
            endpoint: s.endpoint,
            status: s.status,
            created_at: iso(s.created_at),
            events: s.events,
        }
    }
}

// One page of the subscriptions, oldest first, and where the next starts.
#[derive(Serialize, ToSchema)]
pub struct HookListDto {
    pub subscriptions: Vec<HookListItemDto>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(rename = "nextCursor")]
    #[schema(example = "42")]
    pub next_cursor: Option<String>,
    /// Whether a page follows this one (`nextCursor` is not `null`).
    pub has_more: bool,
}

#[derive(Serialize, ToSchema)]
pub struct AttemptDto {
    pub number: i32,
    #[serde(rename = "attemptedAt")]
    #[schema(format = DateTime)]
    pub attempted_at: String,
    /// The receiver's HTTP status; absent when no answer came.
    #[serde(rename = "responseStatus")]
    pub response_status: Option<i32>,
    #[serde(rename = "durationMs")]
    pub duration_ms: i64,
    pub error: Option<String>,
    #[serde(rename = "nextAttemptAt")]
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct DeliveryDto {
    pub id: i64,
    /// The `webhook-id` header, the same on every attempt.
    #[serde(rename = "webhookId")]
    pub webhook_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// `PENDENTE`, `ENTREGUE`, `ESGOTADA` or `CANCELADA`.
    pub status: String,
    #[serde(rename = "createdAt")]
    #[schema(format = DateTime)]
    pub created_at: String,
    #[serde(rename = "deliveredAt")]
    #[schema(format = DateTime)]
    pub delivered_at: Option<String>,
    #[serde(rename = "nextAttemptAt")]
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    pub attempts: Vec<AttemptDto>,
}

impl From<Attempt> for AttemptDto {
    fn from(a: Attempt) -> Self {
        Self {
            number: a.number,
            attempted_at: iso(a.at),
            response_status: a.response_status,
            duration_ms: a.duration_ms,
            error: a.error,
            next_attempt_at: a.next_attempt_at.map(iso),
        }
    }
}

impl From<Delivery> for DeliveryDto {
    fn from(d: Delivery) -> Self {
        Self {
            id: d.id,
            webhook_id: d.message_id,
            event_type: d.event_type,
            status: d.state.as_str().to_owned(),
            created_at: iso(d.created_at),
            delivered_at: d.delivered_at.map(iso),
            next_attempt_at: d.next_attempt_at.map(iso),
            attempts: d.attempts.into_iter().map(Into::into).collect(),
        }
    }
}

/// What a replay queued again.
#[derive(Serialize, ToSchema)]
pub struct ReplayDto {
    #[schema(format = DateTime, example = "2026-11-25T08:00:00.000Z")]
    pub since: String,
    #[schema(format = DateTime, example = "2026-11-25T18:00:00.000Z")]
    pub until: String,
    /// Quantas entregas voltaram a ser devidas.
    pub deliveries: i64,
}
