//! Field-level validation failures, collected so that a request learns every bad field at once.

use serde::Serialize;
use std::fmt;

/// One invalid field: where it is (`customer.cpf`), a stable code (`cpf_digito`) and a message in
/// Brazilian Portuguese meant for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(description = "Um campo inválido: onde está, a regra que falhou e uma mensagem.")
)]
pub struct FieldError {
    #[cfg_attr(feature = "openapi", schema(example = "customer.cpf"))]
    pub field: String,
    /// Um dos códigos por campo de `docs/errors.md` (one of the per-field codes).
    #[cfg_attr(feature = "openapi", schema(example = "cpf_digito"))]
    pub code: &'static str,
    pub message: String,
}

/// Why a value type refused its input: a stable code and a message. The field path is added by
/// whoever knows where the value came from (see [`Violations::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub code: &'static str,
    pub message: String,
}

impl Rejection {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// Every field error of one request body, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct Violations(Vec<FieldError>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields: Vec<&str> = self.0.iter().map(|e| e.field.as_str()).collect();
        write!(f, "campos inválidos: {}", fields.join(", "))
    }
}

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a failure of `field` directly.
    pub fn add(&mut self, field: impl Into<String>, code: &'static str, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.into(),
            code,
            message: message.into(),
        });
    }

    /// Keeps the value of a successful parse, or records its rejection under `field`.
    pub fn check<T>(&mut self, field: &str, parsed: Result<T, Rejection>) -> Option<T> {
        match parsed {
            Ok(value) => Some(value),
            Err(rejection) => {
                self.0.push(FieldError {
                    field: field.to_owned(),
                    code: rejection.code,
                    message: rejection.message,
                });
                None
            }
        }
    }

    /// Appends another list's failures after these.
    pub fn merge(&mut self, other: Violations) {
        self.0.extend(other.0);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a failure of `field` is already recorded.
    pub fn names(&self, field: &str) -> bool {
        self.0.iter().any(|e| e.field == field)
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }

    /// The fields named, in the order their failures were recorded.
    pub fn fields(&self) -> Vec<&str> {
        self.0.iter().map(|e| e.field.as_str()).collect()
    }

    /// `Ok(())` when nothing was recorded, else the whole list.
    pub fn into_result(self) -> Result<(), Violations> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

/// Codes shared by the request readers of every route: a missing field, or one of the wrong JSON type.
pub mod codes {
    pub const REQUIRED: &str = "campo_obrigatorio";
    pub const WRONG_TYPE: &str = "tipo_invalido";
    pub const INVALID_VALUE: &str = "valor_invalido";
    pub const UNKNOWN_REFERENCE: &str = "referencia_inexistente";
    pub const UNKNOWN_FIELD: &str = "campo_nao_permitido";
    pub const DUPLICATE: &str = "valor_duplicado";
    pub const TOO_LONG: &str = "texto_longo";
    pub const TOO_SHORT: &str = "texto_curto";
    pub const TOO_MANY: &str = "parametros_demais";
    /// A reason's category on a move that keeps its reason in one layer (decision 283).
    pub const CATEGORY_NOT_APPLICABLE: &str = "categoria_motivo_indevida";
}

/// Trims the ASCII white space around an input, as every field rule starts by doing.
pub(crate) fn trim_ascii(input: &str) -> &str {
    input.trim_matches(|c: char| c.is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_failure_with_its_field() {
        let mut v = Violations::new();
        let kept = v.check::<u8>("customer.cpf", Err(Rejection::new("cpf_digito", "CPF inválido")));
        assert!(kept.is_none());
        assert_eq!(v.check("customer.name", Ok(7u8)), Some(7));
        v.add("address.state", "uf_invalida", "UF inválida");
        let fields: Vec<_> = v.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            vec![("customer.cpf", "cpf_digito"), ("address.state", "uf_invalida")]
        );
        assert!(v.into_result().is_err());
    }

    #[test]
    fn empty_violations_are_ok() {
        assert_eq!(Violations::new().into_result(), Ok(()));
    }
}
