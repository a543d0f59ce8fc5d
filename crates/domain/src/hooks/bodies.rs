//! The bodies of `POST /hooks` (route 17) and `PATCH /hooks/:uuid` as they arrive, and their
//! reading into [`HookRequest`] and [`HookPatch`].

use super::{Endpoint, HookPatch, HookRequest};
use crate::input::{Field, Reading};
use crate::json_object;
use crate::validation::Violations;
use crate::values::{EventKind, HookStatus};
use serde::Deserialize;

/// Route 17's body.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(description = "Corpo da rota 17."))]
pub struct HookBody {
    /// Os tipos de evento a receber; ao menos um.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<EventKind>, min_items = 1))]
    pub events: Field<Vec<Field<String>>>,
    /// Para onde as entregas são enviadas: `https://` (ou `http://` em desenvolvimento), um host público.
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^https?://", example = "https://parceiro.example.com/webhooks"))]
    pub endpoint: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = HookStatus))]
    pub status: Field<String>,
}

/// The body of `PATCH /hooks/:uuid`: absent members stay as they are; at least one is needed.
#[derive(Debug, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(
    feature = "openapi",
    schema(
        description = "Corpo de `PATCH /hooks/{uuid}`: membros ausentes ficam como estão; ao menos um é necessário."
    )
)]
pub struct HookPatchBody {
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<EventKind>>, min_items = 1))]
    pub events: Field<Vec<Field<String>>>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^https?://"))]
    pub endpoint: Field<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<HookStatus>))]
    pub status: Field<String>,
}

json_object!(HookBody, HookPatchBody);

/// Why a change of a subscription was refused before it was tried.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookPatchRefusal {
    #[error("{0}")]
    Invalid(Violations),
    #[error("Informe ao menos um de: events, endpoint, status.")]
    Empty,
}

impl HookBody {
    pub fn read(self) -> Result<HookRequest, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let events = r.parse_list("events", self.events, true, EventKind::parse);
        let endpoint = r.parse("endpoint", self.endpoint, Endpoint::parse);
        let status = r.parse("status", self.status, HookStatus::parse);
        match (events, endpoint, status) {
            (Some(events), Some(endpoint), Some(status)) if v.is_empty() => Ok(HookRequest {
                events,
                endpoint,
                status,
            }),
            _ => Err(v),
        }
    }
}

impl HookPatchBody {
    pub fn read(self) -> Result<HookPatch, HookPatchRefusal> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let patch = HookPatch {
            events: r.parse_list("events", self.events, false, EventKind::parse),
            endpoint: r.parse_optional("endpoint", self.endpoint, Endpoint::parse),
            status: r.parse_optional("status", self.status, HookStatus::parse),
        };
        if !v.is_empty() {
            return Err(HookPatchRefusal::Invalid(v));
        }
        if patch == HookPatch::default() {
            return Err(HookPatchRefusal::Empty);
        }
        Ok(patch)
    }
}
