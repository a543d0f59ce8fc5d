//! The contract's shapes, one module per area: every answer body with the spec's field names,
//! built from the domain's records by one `From` each. Timestamps are ISO 8601 UTC with
//! milliseconds.

mod auth;
mod catalog;
mod customer_requests;
mod customers;
mod ecommerce;
mod history;
mod hooks;
mod privacy;
mod proposals;
mod recovery;
mod signing;

pub use auth::*;
pub use catalog::*;
pub use customer_requests::*;
pub use customers::*;
pub use ecommerce::*;
pub use history::*;
pub use hooks::*;
pub use privacy::*;
pub use proposals::*;
pub use recovery::*;
pub use signing::*;

use domain::values::{CellPhone, Landline};
use serde::Serialize;
use utoipa::ToSchema;

/// `2026-11-22T05:47:11.123Z`: UTC, milliseconds (the domain's one wire format).
pub use domain::wire::timestamp as iso;

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

// Every list pages alike from 2026-12-01: `limit`, and `cursor` from the page before.
/// Where the next page of a list starts.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListPageDto {
    /// Pass as `cursor` for the next page; `null` on the last page.
    #[serde(rename = "nextCursor")]
    #[schema(example = "MTc5NTAwMDAwMDEyMzQ1Njo5ODE")]
    pub next_cursor: Option<String>,
    /// Whether a page follows this one (`nextCursor` is not `null`).
    pub has_more: bool,
}

impl ListPageDto {
    /// The page whose next starts at `next_cursor` (none after the last).
    pub fn before(next_cursor: Option<String>) -> Self {
        Self {
            has_more: next_cursor.is_some(),
            next_cursor,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct IsValidDto {
    #[serde(rename = "isValid")]
    pub is_valid: bool,
}
