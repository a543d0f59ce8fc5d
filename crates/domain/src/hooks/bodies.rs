//! The bodies of `POST /hooks` (route 17), `PATCH /hooks/:uuid` and `POST /hooks/:uuid/replay` as
//! they arrive, and their reading into [`HookRequest`], [`HookPatch`] and [`ReplayRequest`].

use super::{DeliveryPage, Endpoint, HookPatch, HookRequest, ReplayRequest, SubscriptionPage};
use crate::input::{Field, Reading};
use crate::validation::{Rejection, Violations, codes};
use crate::values::{EventKind, HookStatus};
use chrono::{DateTime, Utc};

crate::wire_body! {
    /// Route 17's body.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "openapi", schema(description = "Corpo da rota 17."))]
    pub struct HookBody => HookMembers {
        /// Os tipos de evento a receber; ao menos um.
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<EventKind>, min_items = 1))]
        events: Field<Vec<Field<String>>>,
        /// Para onde as entregas são enviadas: `https://` (ou `http://` em desenvolvimento), um host público.
        #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = "^https?://", example = "https://parceiro.example.com/webhooks"))]
        endpoint: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = HookStatus))]
        status: Field<String>,
    }
}

crate::wire_body! {
    /// The body of `PATCH /hooks/:uuid`: absent members stay as they are; at least one is needed.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Corpo de `PATCH /hooks/{uuid}`: membros ausentes ficam como estão; ao menos um é necessário."
        )
    )]
    pub struct HookPatchBody => HookPatchMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<EventKind>>, min_items = 1))]
        events: Field<Vec<Field<String>>>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^https?://"))]
        endpoint: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<HookStatus>))]
        status: Field<String>,
    }
}

crate::wire_body! {
    /// The body of `POST /hooks/:uuid/replay`: the window of deliveries to send again.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(
            description = "Corpo de `POST /hooks/{uuid}/replay`: a janela (ISO 8601 com fuso) das entregas a reenviar; `until` ausente vale agora. No máximo 7 dias."
        )
    )]
    pub struct ReplayBody => ReplayMembers {
        #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime, example = "2026-11-25T08:00:00Z"))]
        since: Field<String>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime, example = "2026-11-25T18:00:00Z"))]
        until: Field<String>,
    }
}

/// A timestamp with its offset (RFC 3339), as UTC.
fn timestamp(input: &str) -> Result<DateTime<Utc>, Rejection> {
    DateTime::parse_from_rfc3339(input.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            Rejection::new(
                TIMESTAMP_INVALID,
                "deve ser uma data e hora ISO 8601 com fuso (2026-11-25T08:00:00Z)",
            )
        })
}

/// The code of a timestamp that is not one.
pub const TIMESTAMP_INVALID: &str = "data_hora_invalida";

impl ReplayBody {
    /// The window as asked; its bounds are the use case's to check (`HookService::replay`).
    pub fn read(self) -> Result<ReplayRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let since = r.parse(m.since.0, m.since.1, timestamp);
        let until = r.parse_optional(m.until.0, m.until.1, timestamp);
        match since {
            Some(since) if v.is_empty() => Ok(ReplayRequest { since, until }),
            _ => Err(v),
        }
    }
}

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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let events = r.parse_list(m.events.0, m.events.1, true, EventKind::parse);
        let endpoint = r.parse(m.endpoint.0, m.endpoint.1, Endpoint::parse);
        let status = r.parse(m.status.0, m.status.1, HookStatus::parse);
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
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let patch = HookPatch {
            events: r.parse_list(m.events.0, m.events.1, false, EventKind::parse),
            endpoint: r.parse_optional(m.endpoint.0, m.endpoint.1, Endpoint::parse),
            status: r.parse_optional(m.status.0, m.status.1, HookStatus::parse),
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

/// A page of the delivery log holds this many deliveries unless `limit` says fewer.
pub const DELIVERIES_PER_PAGE: i64 = 100;

/// A page of the subscription list holds this many subscriptions unless `limit` says fewer.
pub const SUBSCRIPTIONS_PER_PAGE: i64 = 100;

impl DeliveryPage {
    /// `GET /hooks/:uuid/deliveries`' query: `limit` (1 to 100) and `cursor` (the previous page's
    /// `data.nextCursor`); anything else, or a parameter given twice, is refused naming itself.
    pub fn parse(params: &[(String, String)]) -> Result<Self, Violations> {
        let (limit, before) = limit_and_cursor(params, DELIVERIES_PER_PAGE)?;
        Ok(DeliveryPage { limit, before })
    }
}

impl SubscriptionPage {
    /// `GET /hooks`' query: `limit` (1 to 100) and `cursor` (the previous page's
    /// `data.nextCursor`); anything else, or a parameter given twice, is refused naming itself.
    pub fn parse(params: &[(String, String)]) -> Result<Self, Violations> {
        let (limit, after) = limit_and_cursor(params, SUBSCRIPTIONS_PER_PAGE)?;
        Ok(SubscriptionPage { limit, after })
    }
}

/// A cursor-paged query: `limit` (1 to `per_page`, `per_page` when absent) and `cursor` (an id
/// the previous page gave).
fn limit_and_cursor(params: &[(String, String)], per_page: i64) -> Result<(i64, Option<i64>), Violations> {
    crate::input::bounded_query(params)?;
    let mut v = Violations::new();
    let (mut limit, mut cursor) = (per_page, None);
    let mut seen: Vec<&str> = Vec::new();
    for (name, raw) in params {
        if raw.trim().is_empty() {
            continue;
        }
        if seen.contains(&name.as_str()) {
            v.add(
                name.clone(),
                codes::DUPLICATE,
                format!("{name} informado mais de uma vez"),
            );
            continue;
        }
        seen.push(name);
        match name.as_str() {
            "limit" => match raw.trim().parse::<i64>() {
                Ok(n) if (1..=per_page).contains(&n) => limit = n,
                _ => v.add(
                    "limit",
                    codes::INVALID_VALUE,
                    format!("limit deve ser um inteiro de 1 a {per_page}"),
                ),
            },
            "cursor" => match raw.trim().parse::<i64>() {
                Ok(id) if id > 0 => cursor = Some(id),
                _ => v.add(
                    "cursor",
                    codes::INVALID_VALUE,
                    "cursor inválido: use o data.nextCursor de uma página anterior",
                ),
            },
            _ => v.add(
                name.clone(),
                codes::UNKNOWN_FIELD,
                "parâmetro desconhecido; use limit, cursor",
            ),
        }
    }
    if v.is_empty() { Ok((limit, cursor)) } else { Err(v) }
}

/// `POST /hooks/:uuid/test`'s query: whether to answer with the outcome (`wait=true`) or at once.
pub fn wait_for_outcome(params: &[(String, String)]) -> Result<bool, Violations> {
    crate::input::bounded_query(params)?;
    let mut v = Violations::new();
    let mut wait = None;
    for (name, raw) in params {
        match (name.as_str(), raw.trim()) {
            ("wait", _) if wait.is_some() => {
                v.add("wait", codes::DUPLICATE, "wait informado mais de uma vez");
            }
            ("wait", "true") => wait = Some(true),
            ("wait", "false" | "") => wait = Some(false),
            ("wait", _) => v.add("wait", codes::INVALID_VALUE, "wait deve ser true ou false"),
            _ => v.add(name.clone(), codes::UNKNOWN_FIELD, "parâmetro desconhecido; use wait"),
        }
    }
    if v.is_empty() {
        Ok(wait.unwrap_or(false))
    } else {
        Err(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn refused(pairs: &[(&str, &str)]) -> Vec<String> {
        DeliveryPage::parse(&params(pairs))
            .unwrap_err()
            .errors()
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn a_delivery_page_reads_its_limit_and_cursor_and_names_what_it_refuses() {
        assert_eq!(
            DeliveryPage::parse(&[]).unwrap(),
            DeliveryPage {
                limit: DELIVERIES_PER_PAGE,
                before: None
            }
        );
        assert_eq!(
            DeliveryPage::parse(&params(&[("limit", "2"), ("cursor", "41")])).unwrap(),
            DeliveryPage {
                limit: 2,
                before: Some(41)
            }
        );
        assert_eq!(refused(&[("limit", "0")]), ["limit"]);
        assert_eq!(refused(&[("limit", "101")]), ["limit"]);
        assert_eq!(refused(&[("cursor", "abc")]), ["cursor"]);
        assert_eq!(refused(&[("cursor", "-3")]), ["cursor"]);
        assert_eq!(refused(&[("limit", "1"), ("limit", "2")]), ["limit"]);
        assert_eq!(refused(&[("pagina", "2")]), ["pagina"]);
    }

    #[test]
    fn a_test_waits_for_its_outcome_only_when_asked() {
        assert!(!wait_for_outcome(&[]).unwrap());
        assert!(wait_for_outcome(&params(&[("wait", "true")])).unwrap());
        assert!(!wait_for_outcome(&params(&[("wait", "false")])).unwrap());
        let fields = |pairs: &[(&str, &str)]| -> Vec<String> {
            wait_for_outcome(&params(pairs))
                .unwrap_err()
                .errors()
                .iter()
                .map(|e| e.field.clone())
                .collect()
        };
        assert_eq!(fields(&[("wait", "sim")]), ["wait"]);
        assert_eq!(fields(&[("wait", "true"), ("wait", "true")]), ["wait"]);
        assert_eq!(fields(&[("esperar", "true")]), ["esperar"]);
    }

    #[test]
    fn a_replay_needs_since_as_a_timestamp_with_its_offset_and_until_is_optional() {
        let body = |json: &str| serde_json::from_str::<ReplayBody>(json).unwrap().read();
        assert_eq!(
            body(r#"{"since": "2026-11-25T05:00:00-03:00"}"#).unwrap(),
            ReplayRequest {
                since: Utc.with_ymd_and_hms(2026, 11, 25, 8, 0, 0).unwrap(),
                until: None
            }
        );
        assert_eq!(
            body(r#"{"since": "2026-11-25T08:00:00Z", "until": "2026-11-25T09:00:00Z"}"#)
                .unwrap()
                .until,
            Some(Utc.with_ymd_and_hms(2026, 11, 25, 9, 0, 0).unwrap())
        );
        let fields = |json: &str| -> Vec<String> {
            body(json)
                .unwrap_err()
                .errors()
                .iter()
                .map(|e| e.field.clone())
                .collect()
        };
        assert_eq!(fields("{}"), ["since"]);
        assert_eq!(fields(r#"{"since": "2026-11-25"}"#), ["since"]);
        assert_eq!(
            fields(r#"{"since": "2026-11-25T08:00:00Z", "until": "amanhã"}"#),
            ["until"]
        );
        assert_eq!(fields(r#"{"since": 1764057600}"#), ["since"]);
    }
}
