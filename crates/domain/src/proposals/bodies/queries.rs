//! What the paths and queries of the availability checks (routes 8 and 9), the signing link and
//! the proposal's document say, read.

use crate::input::{Field, Reading};
use crate::validation::{Violations, codes};
use crate::values::*;

/// Whose open proposals routes 8 and 9 look for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    Cpf(Cpf),
    CellPhone(CellPhone),
}

impl Holder {
    /// How answers name it.
    pub fn noun(&self) -> &'static str {
        match self {
            Holder::Cpf(_) => "CPF",
            Holder::CellPhone(_) => "celular",
        }
    }
}

/// The path of routes 8 and 9, read: a CPF (or cell phone) and a product's integration code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvailabilityQuery {
    pub holder: Holder,
    pub integration_code: i32,
}

impl AvailabilityQuery {
    /// Route 8's `cpf` and `integrationCode`.
    pub fn by_cpf(cpf: &str, integration_code: &str) -> Result<Self, Violations> {
        Self::read(integration_code, |r| r.check("cpf", Cpf::parse(cpf)).map(Holder::Cpf))
    }

    /// Route 9's `celular` and `integrationCode`.
    pub fn by_cell_phone(phone: &str, integration_code: &str) -> Result<Self, Violations> {
        Self::read(integration_code, |r| {
            r.check("celular", CellPhone::parse(phone)).map(Holder::CellPhone)
        })
    }

    fn read(
        integration_code: &str,
        holder: impl FnOnce(&mut Reading<'_>) -> Option<Holder>,
    ) -> Result<Self, Violations> {
        let mut v = Violations::new();
        let holder = holder(&mut Reading::root(&mut v));
        let code = crate::input::positive_code("integrationCode", integration_code)
            .map_err(|refused| v.merge(refused))
            .ok();
        match (holder, code) {
            (Some(holder), Some(integration_code)) => Ok(Self {
                holder,
                integration_code,
            }),
            _ => Err(v),
        }
    }
}

crate::wire_body! {
    /// Route 13's query: the proposal whose signing link is asked for.
    pub struct SignLinkQuery => SignLinkQueryMembers {
        identifier: Field<String>,
    }
}

impl SignLinkQuery {
    /// The identifier, trimmed; absent and blank are the same refusal.
    pub fn read(self) -> Result<String, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        match r.optional_text(m.identifier.0, m.identifier.1) {
            Some(identifier) => Ok(identifier),
            None => {
                r.add(
                    m.identifier.0,
                    codes::REQUIRED,
                    format!("{} é obrigatório", m.identifier.0),
                );
                Err(v)
            }
        }
    }
}

crate::wire_body! {
    /// The query of `GET /proposal/:identifier/document`: `version=sealed` asks for the bytes sent for
    /// signature even once the signed version exists; `version=provider` for the provider's own
    /// signed copy.
    pub struct DocumentQuery => DocumentQueryMembers {
        version: Field<String>,
    }
}

impl DocumentQuery {
    pub fn read(self) -> Result<crate::proposals::signing::DocumentRequest, Violations> {
        use crate::proposals::signing::DocumentRequest;
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        match r.optional_text(m.version.0, m.version.1).as_deref() {
            None => Ok(DocumentRequest::Latest),
            Some("sealed") => Ok(DocumentRequest::Sealed),
            Some("provider") => Ok(DocumentRequest::Provider),
            Some(_) => {
                r.add(
                    m.version.0,
                    codes::INVALID_VALUE,
                    format!("{} aceita sealed ou provider", m.version.0),
                );
                Err(v)
            }
        }
    }
}
