//! The documented shapes of the answers the routes share: the error and message envelopes and the
//! success envelopes over the answers of `dto`. Request bodies are the domain's own types
//! (`domain::*::bodies`), documented from their definitions. Route modules import this; it imports
//! no route module (the envelopes over a module's own answers are declared in that module with
//! `envelope_doc!`).

use serde::Serialize;
use utoipa::ToSchema;

/// Error answer: the spec's envelope with a stable `code` and, for validation failures, `errors`.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    #[schema(example = "error")]
    pub status: String,
    pub message: String,
    /// Stable error code; see docs/errors.md.
    pub code: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(max_items = 0)]
    pub rows_affected: Vec<i64>,
    /// Present on validation failures: every invalid field.
    #[schema(nullable = false)]
    pub errors: Option<Vec<FieldErrorDoc>>,
}

#[derive(Serialize, ToSchema)]
pub struct FieldErrorDoc {
    /// Path of the field, e.g. `customer.cpf`.
    pub field: String,
    /// Stable rule code, e.g. `cpf_digito`.
    pub code: String,
    pub message: String,
}

/// A success envelope with only a message.
#[derive(Serialize, ToSchema)]
pub struct MessageEnvelope {
    #[schema(example = "success")]
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
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
            pub rows_affected: Vec<i64>,
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
            pub rows_affected: Vec<i64>,
            pub data: $data,
        }
    };
}

envelope_doc!(
    ProposalCreatedEnvelope,
    document = crate::routes::dto::ProposalRecordDto
);
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
    /// Records restricted to the requested fields: every member is optional.
    BillingGroupListEnvelope, document = BillingGroupProjection
);
envelope_doc!(ProductListEnvelope, document = ProductProjection);
envelope_doc!(ProductWrittenEnvelope, document = crate::routes::dto::ProductDto);
envelope_doc!(
    BillingGroupWrittenEnvelope,
    document = crate::routes::dto::BillingGroupDto
);

/// A billing group with only the requested fields.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct BillingGroupProjection {
    pub id: Option<i64>,
    pub alterado_em: Option<String>,
    pub alterado_por: Option<String>,
    pub criado_em: Option<String>,
    pub codigo_faturamento: Option<i32>,
    pub descricao: Option<String>,
    pub codigo_integracao: Option<i32>,
    pub codigo_produto: Option<i32>,
}

/// A product with only the requested fields.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct ProductProjection {
    pub id: Option<i64>,
    pub codigo_produto: Option<i32>,
    pub nome: Option<String>,
    pub codigo_integracao: Option<i32>,
    pub ativo: Option<bool>,
    pub valor: Option<i64>,
    pub criado_em: Option<String>,
    pub alterado_em: Option<String>,
    pub alterado_por: Option<String>,
}

/// Route 2's errors: `{success: false, message}` as the spec shows, with the error envelope's members.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct ResetErrorBody {
    pub success: bool,
    #[schema(example = "error")]
    pub status: String,
    pub message: String,
    pub code: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(max_items = 0)]
    pub rows_affected: Vec<i64>,
    #[schema(nullable = false)]
    pub errors: Option<Vec<FieldErrorDoc>>,
}

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
