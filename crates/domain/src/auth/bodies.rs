//! The bodies of sign-in (`POST /signin`) and renewal (`POST /refreshToken`) as they arrive.

use super::password::Password;
use super::sign_in::SignInRequest;
use crate::input::{Field, Reading};
use crate::validation::Violations;
use crate::values::{Application, Email};

crate::wire_body! {
    /// The sign-in body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "Corpo da entrada (rota 1)."))]
    pub struct SignInBody => SignInMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "parceiro@demo.com.br"))]
        email: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Password, max_length = 72, example = "Parceiro#2026"))]
        password: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Application))]
        aplicacao: Field<String>,
    }
}

crate::wire_body! {
    /// The renewal body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "Corpo da renovação dos tokens."))]
    pub struct RefreshBody => RefreshMembers {
        /// O `currentRefreshToken` da última entrada ou renovação.
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        refresh_token as "refreshToken": Field<String>,
    }
}

impl SignInBody {
    /// The request, with the caller's address as the trusted edge saw it.
    pub fn read(self, client_address: Option<String>) -> Result<SignInRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let email = r.parse(m.email.0, m.email.1, Email::parse);
        let password = r.parse(m.password.0, m.password.1, Password::parse);
        let application = r.parse(m.aplicacao.0, m.aplicacao.1, Application::parse);
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
        let m = self.named();
        let mut v = Violations::new();
        Reading::root(&mut v)
            .text(m.refresh_token.0, m.refresh_token.1)
            .ok_or(v)
    }
}
