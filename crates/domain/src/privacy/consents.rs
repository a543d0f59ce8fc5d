//! Consents, where the legal basis is the person's consent (LGPD art. 7, I and art. 8): what the
//! sale itself needs rests on other bases (`declarations`); what goes beyond it (offers by e-mail
//! or phone, the partner's own offers) only on a consent given for that purpose, revocable at any
//! time (art. 8, § 5) and proved by whoever processes (art. 8, § 2). Each consent given or revoked
//! is a new record: the history is never overwritten.

use crate::input::{Field, Reading};
use crate::validation::{Rejection, Violations, codes};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The legal basis of every purpose here.
pub const CONSENT_BASIS: &str = "LGPD art. 7º, I e art. 8º (consentimento do titular)";

/// A purpose the person may consent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConsentPurpose {
    /// Offers of the insurer's other products, by e-mail, SMS or WhatsApp.
    Offers,
    /// The person's contact passed to the partner that sold the proposal, for the partner's own
    /// offers (beyond the sale).
    PartnerOffers,
}

impl ConsentPurpose {
    pub const ALL: [ConsentPurpose; 2] = [ConsentPurpose::Offers, ConsentPurpose::PartnerOffers];

    pub fn code(self) -> &'static str {
        match self {
            ConsentPurpose::Offers => "ofertas",
            ConsentPurpose::PartnerOffers => "ofertas_parceiro",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            ConsentPurpose::Offers => "Receber ofertas de outros produtos da seguradora por e-mail, SMS ou WhatsApp",
            ConsentPurpose::PartnerOffers => {
                "Ter o contato compartilhado com o parceiro que fez a venda, para ofertas dele"
            }
        }
    }

    pub fn parse(text: &str) -> Result<Self, Rejection> {
        Self::ALL.into_iter().find(|p| p.code() == text).ok_or_else(|| {
            let known: Vec<&str> = Self::ALL.iter().map(|p| p.code()).collect();
            Rejection::new(
                codes::INVALID_VALUE,
                format!("purpose deve ser uma destas finalidades: {}", known.join(", ")),
            )
        })
    }
}

crate::wire_body! {
    /// The body of `POST /privacy/customers/{cpf}/consents`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Um consentimento dado ou revogado pelo titular para uma finalidade.")
    )]
    #[derive(Default)]
    pub struct ConsentBody => ConsentMembers {
        /// A finalidade: `ofertas` ou `ofertas_parceiro`.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "ofertas"))]
        #[serde(default)]
        purpose: Field<String>,
        /// `true` quando o titular consente; `false` quando revoga (LGPD art. 8º, § 5º).
        #[cfg_attr(feature = "openapi", schema(value_type = bool, example = true))]
        #[serde(default)]
        granted: Field<bool>,
    }
}

/// A consent to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewConsent {
    pub purpose: ConsentPurpose,
    pub granted: bool,
}

impl ConsentBody {
    pub fn read(self) -> Result<NewConsent, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let purpose = r.parse(m.purpose.0, m.purpose.1, ConsentPurpose::parse);
        let granted = r.boolean(m.granted.0, m.granted.1);
        match (purpose, granted) {
            (Some(purpose), Some(granted)) if v.is_empty() => Ok(NewConsent { purpose, granted }),
            _ => Err(v),
        }
    }
}

/// A consent as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsentRecord {
    pub purpose: ConsentPurpose,
    pub granted: bool,
    pub at: DateTime<Utc>,
    /// The back-office user who recorded it.
    pub by: String,
}

/// How recording a consent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentOutcome {
    Recorded(ConsentRecord),
    /// Nothing is held under the CPF: there is no one to consent.
    NothingHeld,
    /// The person's data is blocked (art. 18, IV): no new use of it, so only a revocation counts.
    Blocked,
}

/// One recorded consent as the export's rows carry it (its instant and author shown as stored).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StoredConsent {
    pub finalidade: String,
    pub concedido: bool,
    pub em: Value,
    pub por: Value,
}

#[derive(Debug, Serialize)]
struct ConsentChange {
    concedido: bool,
    em: Value,
    por: Value,
}

/// The export's `consentimentos`: per purpose the person ever answered, whether the consent
/// stands now (the latest record), its basis and every record in order. `rows` are the export's,
/// oldest first.
pub fn consent_notice(rows: &[StoredConsent]) -> Value {
    let mut notice = Vec::new();
    for purpose in ConsentPurpose::ALL {
        let changes: Vec<ConsentChange> = rows
            .iter()
            .filter(|r| r.finalidade == purpose.code())
            .map(|r| ConsentChange {
                concedido: r.concedido,
                em: r.em.clone(),
                por: r.por.clone(),
            })
            .collect();
        let Some(latest) = changes.last() else { continue };
        notice.push(json!({
            "finalidade": purpose.code(),
            "descricao": purpose.description(),
            "baseLegal": CONSENT_BASIS,
            "concedido": latest.concedido,
            "desde": latest.em,
            "historico": changes,
        }));
    }
    Value::Array(notice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(value: Value) -> ConsentBody {
        crate::input::body(value).unwrap_or_default()
    }

    #[test]
    fn a_body_names_its_purpose_and_whether_it_is_granted() {
        let read = body(json!({"purpose": "ofertas", "granted": false})).read().unwrap();
        assert_eq!(
            read,
            NewConsent {
                purpose: ConsentPurpose::Offers,
                granted: false
            }
        );
    }

    #[test]
    fn an_unknown_purpose_and_a_granted_that_is_not_a_boolean_are_named() {
        let refused = body(json!({"purpose": "marketing", "granted": "sim"}))
            .read()
            .unwrap_err();
        let fields: Vec<(&str, &str)> = refused.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            [("purpose", codes::INVALID_VALUE), ("granted", codes::WRONG_TYPE)]
        );
        assert!(refused.errors()[0].message.contains("ofertas_parceiro"));
        let missing = body(json!({})).read().unwrap_err();
        assert!(missing.errors().iter().all(|e| e.code == codes::REQUIRED));
        assert_eq!(missing.errors().len(), 2);
    }

    #[test]
    fn the_notice_says_what_stands_now_with_every_change_in_order() {
        let rows = json!([
            {"finalidade": "ofertas", "concedido": true, "em": "2026-11-01T10:00:00Z", "por": "a@x"},
            {"finalidade": "ofertas_parceiro", "concedido": true, "em": "2026-11-02T10:00:00Z", "por": "a@x"},
            {"finalidade": "ofertas", "concedido": false, "em": "2026-11-03T10:00:00Z", "por": "b@x"},
        ]);
        let rows: Vec<StoredConsent> = serde_json::from_value(rows).unwrap();
        let notice = consent_notice(&rows);
        assert_eq!(notice[0]["finalidade"], "ofertas");
        assert_eq!(notice[0]["concedido"], false);
        assert_eq!(notice[0]["desde"], "2026-11-03T10:00:00Z");
        assert_eq!(notice[0]["historico"].as_array().unwrap().len(), 2);
        assert_eq!(notice[0]["historico"][0]["concedido"], true);
        assert_eq!(notice[0]["baseLegal"], CONSENT_BASIS);
        assert_eq!(notice[1]["finalidade"], "ofertas_parceiro");
        assert_eq!(notice[1]["concedido"], true);
        assert_eq!(consent_notice(&[]), json!([]));
    }
}
