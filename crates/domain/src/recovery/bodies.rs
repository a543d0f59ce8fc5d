//! The bodies of password recovery (route 1) and reset (route 2) as they arrive.

use crate::input::{Field, Reading};
use crate::validation::Violations;
use crate::values::Email;

crate::wire_body! {
    /// The body of `POST /sendRecovery`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "Corpo de `POST /sendRecovery`."))]
    pub struct RecoveryBody => RecoveryMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Email, example = "parceiro@demo.com.br"))]
        email: Field<String>,
    }
}

crate::wire_body! {
    /// Route 2's body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "Corpo da rota 2."))]
    pub struct ResetBody => ResetMembers {
        /// O token do e-mail de recuperação.
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        token: Field<String>,
        /// A nova senha, sujeita à política de senhas.
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = Password, example = "Nova#Senha2026"))]
        password: Field<String>,
    }
}

impl RecoveryBody {
    pub fn read(self) -> Result<Email, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        Reading::root(&mut v).parse(m.email.0, m.email.1, Email::parse).ok_or(v)
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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let token = r.text(m.token.0, m.token.1);
        let password = r.string(m.password.0, m.password.1);
        match (token, password) {
            (Some(token), Some(password)) => Ok(Reset { token, password }),
            _ => Err(v),
        }
    }
}
