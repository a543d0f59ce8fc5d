//! The bodies of sign-in (`POST /signin`) and renewal (`POST /refreshToken`) as they arrive.

use super::password::Password;
use super::sign_in::SignInRequest;
use crate::input::{Field, Reading};
use crate::json_object;
use crate::validation::Violations;
use crate::values::{Application, Email};
use serde::Deserialize;

/// The sign-in body.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Corpo da entrada (rota 1)."))]
pub struct SignInBody {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "parceiro@demo.com.br"))]
    pub email: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Password, max_length = 72, example = "Parceiro#2026"))]
    pub password: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Application))]
    pub aplicacao: Field<String>,
}

/// The renewal body.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Corpo da renovação dos tokens."))]
pub struct RefreshBody {
    /// O `currentRefreshToken` da última entrada ou renovação.
    #[serde(rename = "refreshToken")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub refresh_token: Field<String>,
}

json_object!(SignInBody, RefreshBody);

impl SignInBody {
    /// The request, with the caller's address as the trusted edge saw it.
    pub fn read(self, client_address: Option<String>) -> Result<SignInRequest, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let email = r.parse("email", self.email, Email::parse);
        let password = r.parse("password", self.password, Password::parse);
        let application = r.parse("aplicacao", self.aplicacao, Application::parse);
        match (email, password, application) {
            (Some(email), Some(password), Some(application)) => Ok(SignInRequest {
                email,
                password,
                application,
                client_address,
            }),
            _ => Err(v),
        }
    }
}

impl RefreshBody {
    /// The refresh token, not blank.
    pub fn read(self) -> Result<String, Violations> {
        let mut v = Violations::new();
        Reading::root(&mut v).text("refreshToken", self.refresh_token).ok_or(v)
    }
}
