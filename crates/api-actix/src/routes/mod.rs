//! The routes, one module per area. A handler parses, calls one use case and maps the result.

pub mod acceptance;
pub mod assets;
pub mod auth;
pub mod catalog;
pub mod customer_requests;
pub mod docs;
pub mod dto;
pub mod ecommerce;
pub mod health;
pub mod hooks;
pub mod pix;
pub mod privacy;
pub mod proposals;
pub mod recovery;
pub mod sandbox;
pub mod sandbox_kyc;
pub mod sandbox_payments;
pub mod schemas;
pub mod signing;
pub mod users;

use crate::http::error::{ApiError, ErrorCode};

/// Every path no route matches.
pub async fn not_found() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::new(ErrorCode::NotFound))
}
