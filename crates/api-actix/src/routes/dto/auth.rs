//! Sign-in and sessions: the answers of the sign-in, the renewal and the session list.

use domain::auth::sign_in::SignedIn;
use serde::Serialize;
use utoipa::ToSchema;

/// The answer of sign-in and renewal, the spec's exception to the envelope.
#[derive(Serialize, ToSchema)]
pub struct SignInResponse {
    #[schema(example = "success")]
    pub status: &'static str,
    pub message: String,
    /// E-mail of the authenticated user.
    pub user: String,
    /// Access token (JWT, EdDSA), valid for 1 hour.
    pub token: String,
    /// Refresh token (JWT, EdDSA), valid for 2 hours and usable once.
    #[serde(rename = "currentRefreshToken")]
    pub current_refresh_token: String,
}

impl SignInResponse {
    pub(crate) fn answer(signed: SignedIn, message: &str) -> Self {
        Self {
            status: "success",
            message: message.to_owned(),
            user: signed.email.as_str().to_owned(),
            token: signed.tokens.access_token,
            current_refresh_token: signed.tokens.refresh_token,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct Session {
    /// The user's id (the token's `sub`).
    #[serde(rename = "userId")]
    pub user_id: i64,
    pub aplicacao: String,
}
