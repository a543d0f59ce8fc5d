//! The documented shapes of the answers the routes share: the error and message envelopes and the
//! success envelopes over the answers of `dto`. Request bodies are the domain's own types
//! (`domain::*::bodies`), documented from their definitions. Route modules import this; it imports
//! no route module (the envelopes over a module's own answers are declared in that module with
//! `envelope_doc!`).

use serde::Serialize;
use utoipa::ToSchema;

pub use crate::http::error::ErrorEnvelope;

// The export's envelope (`GET /privacy/customers/{cpf}`).
/// `data` is everything held about the CPF.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct PersonalDataEnvelope {
    #[schema(example = "success")]
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(example = json!([]))]
    pub rows_affected: Vec<i64>,
    #[schema(value_type = Object, example = json!({"cpf": "52998224725", "cadastros": [], "propostas": []}))]
    pub data: serde_json::Value,
}

/// A success envelope with only a message.
#[derive(Serialize, ToSchema)]
pub struct MessageEnvelope {
    #[schema(example = "success")]
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(example = json!([]))]
    pub rows_affected: Vec<i64>,
}

/// Declares a documented success envelope whose `document` holds `$doc` items (and `data`, `$data`).
macro_rules! envelope_doc {
    ($(#[$meta:meta])* $name:ident, document = $doc:ty) => {
        $(#[$meta])*
        #[derive(Serialize, ToSchema)]
        #[allow(dead_code)]
        pub struct $name {
            #[schema(example = "success")]
            pub status: String,
            pub message: String,
            pub document: Vec<$doc>,
            #[serde(rename = "rowsAffected")]
            #[schema(example = json!([1]))]
            pub rows_affected: Vec<i64>,
        }
    };
    ($(#[$meta:meta])* $name:ident, document = $doc:ty, data = $data:ty) => {
        $(#[$meta])*
        #[derive(Serialize, ToSchema)]
        #[allow(dead_code)]
        pub struct $name {
            #[schema(example = "success")]
            pub status: String,
            pub message: String,
            pub document: Vec<$doc>,
            #[serde(rename = "rowsAffected")]
            #[schema(example = json!([1]))]
            pub rows_affected: Vec<i64>,
            pub data: $data,
        }
    };
    ($(#[$meta:meta])* $name:ident, data = $data:ty) => {
        $(#[$meta])*
        #[derive(Serialize, ToSchema)]
        #[allow(dead_code)]
        pub struct $name {
            #[schema(example = "success")]
            pub status: String,
            pub message: String,
            #[schema(value_type = Vec<Object>, max_items = 0)]
            pub document: Vec<serde_json::Value>,
            #[serde(rename = "rowsAffected")]
            #[schema(example = json!([]))]
            pub rows_affected: Vec<i64>,
            pub data: $data,
        }
    };
}

envelope_doc!(
    ProposalCreatedEnvelope,
    document = crate::routes::dto::ProposalRecordDto
);
envelope_doc!(
    /// One page of the list: `document` newest first, `data.nextCursor` the next page's cursor.
    ProposalListEnvelope,
    document = crate::routes::dto::ProposalRecordDto,
    data = crate::routes::dto::ListPageDto
);
envelope_doc!(HistoryEnvelope, data = crate::routes::dto::HistoryDto);
envelope_doc!(OwnershipEnvelope, document = crate::routes::dto::OwnershipItemDto);
envelope_doc!(RegistrationsEnvelope, document = crate::routes::dto::RegistrationDto);
envelope_doc!(ProposalDetailEnvelope, data = crate::routes::dto::ProposalDetailDto);
envelope_doc!(
    /// `document[0]` is the platform's subscription object, passed through.
    SubscriptionEnvelope, document = SubscriptionObject
);
envelope_doc!(IsValidEnvelope, data = crate::routes::dto::IsValidDto);
envelope_doc!(ProductBanksEnvelope, data = crate::routes::dto::ProductBanksDto);
envelope_doc!(
    /// Records restricted to the requested fields: the document makes every member optional
    /// (`routes::docs`, the `Projection` schemas derived from the DTOs').
    BillingGroupListEnvelope,
    document = crate::routes::dto::BillingGroupDto,
    data = crate::routes::dto::ListPageDto
);
envelope_doc!(
    ProductListEnvelope,
    document = crate::routes::dto::ProductDto,
    data = crate::routes::dto::ListPageDto
);
envelope_doc!(ProductWrittenEnvelope, document = crate::routes::dto::ProductDto);
envelope_doc!(
    BillingGroupWrittenEnvelope,
    document = crate::routes::dto::BillingGroupDto
);

/// The payment platform's subscription object (Stripe's shape): Unix-second timestamps, lower-case
/// currency; members not modelled here are passed through.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct SubscriptionObject {
    pub id: String,
    #[schema(example = "subscription")]
    pub object: String,
    #[schema(example = "active")]
    pub status: String,
    pub customer: String,
    #[schema(example = "brl")]
    pub currency: String,
    pub created: i64,
    pub start_date: i64,
    pub billing_cycle_anchor: i64,
    pub cancel_at_period_end: bool,
    pub livemode: bool,
    pub quantity: i64,
    #[schema(value_type = Object)]
    pub items: serde_json::Value,
    #[schema(value_type = Object)]
    pub plan: serde_json::Value,
}

pub(crate) use envelope_doc;
