//! The bodies of password recovery (route 1) and reset (route 2) as they arrive.

use crate::input::{Field, Reading};
use crate::json_object;
use crate::validation::Violations;
use crate::values::Email;
use serde::Deserialize;

/// The body of `POST /sendRecovery`.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Corpo de `POST /sendRecovery`."))]
pub struct RecoveryBody {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "parceiro@demo.com.br"))]
    pub email: Field<String>,
}

/// Route 2's body.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Corpo da rota 2."))]
pub struct ResetBody {
    /// O token do e-mail de recuperação.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub token: Field<String>,
    /// A nova senha, sujeita à política de senhas.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Password, example = "Nova#Senha2026"))]
    pub password: Field<String>,
}

json_object!(RecoveryBody, ResetBody);

impl RecoveryBody {
    pub fn read(self) -> Result<Email, Violations> {
        let mut v = Violations::new();
        Reading::root(&mut v).parse("email", self.email, Email::parse).ok_or(v)
    }
}

/// A reset's token (trimmed) and new password (as typed: the policy judges it).
#[derive(Debug)]
pub struct Reset {
    pub token: String,
    pub password: String,
}

impl ResetBody {
    pub fn read(self) -> Result<Reset, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let token = r.text("token", self.token);
        let password = r.string("password", self.password);
        match (token, password) {
            (Some(token), Some(password)) => Ok(Reset { token, password }),
            _ => Err(v),
        }
    }
}
