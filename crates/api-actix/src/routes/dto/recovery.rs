//! Password recovery: the reset's answer.

use serde::Serialize;
use utoipa::ToSchema;

/// Route 2's answer.
#[derive(Serialize, ToSchema)]
pub struct ResetAnswer {
    pub success: bool,
    pub message: String,
}
