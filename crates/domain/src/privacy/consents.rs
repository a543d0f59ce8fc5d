//! Consents, where the legal basis is the person's consent (LGPD art. 7, I and art. 8): what the
//! sale itself needs rests on other bases (`declarations`); what goes beyond it (offers by e-mail
//! or phone, the partner's own offers) only on a consent given for that purpose, revocable at any
//! time (art. 8, § 5) and proved by whoever processes (art. 8, § 2). Each consent given or revoked
//! is a new record: the history is never overwritten.

use crate::input::{Field, Reading};
use crate::privacy::request_kinds::RequestChannel;
use crate::validation::{Rejection, Violations, codes};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The legal basis of every purpose here.
pub const CONSENT_BASIS: &str = "LGPD art. 7º, I e art. 8º (consentimento do titular)";

/// The version of the purposes' texts the person reads before consenting; a change to
/// [`ConsentPurpose::text`] is a new version (the record keeps which one was read, and its digest).
pub const CONSENT_TEXT_VERSION: &str = "2026-12-14";

/// The reference that finds the proof of an act the back office reports (characters, trimmed).
pub const REFERENCE_MIN_CHARS: usize = 3;
pub const REFERENCE_MAX_CHARS: usize = 200;

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

    /// What the person reads and agrees to: the purpose and its basis.
    pub fn text(self) -> String {
        format!(
            "{}. Base legal: {CONSENT_BASIS}. Pode ser revogado a qualquer tempo, sem custo.",
            self.description()
        )
    }

    /// The SHA-256 of [`Self::text`], hex: which words a consent was given to.
    pub fn text_sha256(self) -> String {
        hex::encode(Sha256::digest(self.text().as_bytes()))
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
        /// A prova do ato do titular fora do serviço: obrigatória para registrar um consentimento;
        /// opcional para uma revogação (que vale como quer que chegue).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<ConsentEvidenceBody>))]
        #[serde(default)]
        evidence: Field<ConsentEvidenceBody>,
    }
}

crate::wire_body! {
    /// `evidence`: how the person consented elsewhere and what finds the proof.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Por onde o titular manifestou a vontade e a referência que encontra a prova.")
    )]
    #[derive(Default)]
    pub struct ConsentEvidenceBody => ConsentEvidenceMembers {
        /// `telefone`, `email`, `chat`, `carta` ou `presencial`.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "telefone"))]
        #[serde(default)]
        channel: Field<String>,
        /// O que encontra a prova: o número da gravação, do formulário assinado, da conversa (3 a 200 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = String, min_length = 3, max_length = 200, example = "Gravação SAC 2026-000123"))]
        #[serde(default)]
        reference: Field<String>,
    }
}

/// The proof of the person's own act (art. 8, § 2: the burden is the controller's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentEvidence {
    /// The person acted elsewhere (a call, a signed form, a chat); the back office records it with
    /// the reference that finds the proof.
    Reported { channel: RequestChannel, reference: String },
    /// The person acted on the page the link mailed to them opened.
    OwnLink(LinkAct),
}

/// What is kept of an act on the person's own page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkAct {
    /// The link's row: which mailing, to which masked address, proved the person.
    pub link_id: i64,
    /// The address the link went to, masked.
    pub sent_to: String,
    /// The client's address and browser, as the request carried them.
    pub client_address: Option<String>,
    pub user_agent: Option<String>,
    /// The text read: its version and SHA-256.
    pub text_version: String,
    pub text_sha256: String,
}

impl ConsentEvidence {
    /// The record's `canal`.
    pub fn channel(&self) -> &'static str {
        match self {
            ConsentEvidence::Reported { channel, .. } => channel.code(),
            ConsentEvidence::OwnLink(_) => "link",
        }
    }

    /// The record's `evidencia`.
    pub fn document(&self) -> Value {
        match self {
            ConsentEvidence::Reported { channel, reference } => json!({
                "canal": channel.code(),
                "referencia": reference,
            }),
            ConsentEvidence::OwnLink(act) => json!({
                "link": act.link_id,
                "enviadoPara": act.sent_to,
                "enderecoIp": act.client_address,
                "navegador": act.user_agent,
                "textoVersao": act.text_version,
                "textoSha256": act.text_sha256,
            }),
        }
    }
}

/// A consent to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewConsent {
    pub purpose: ConsentPurpose,
    pub granted: bool,
    /// Required to grant; a revocation without one is recorded as the back office's.
    pub evidence: Option<ConsentEvidence>,
}

impl NewConsent {
    /// The record's `canal`: the evidence's, or `retaguarda` without one.
    pub fn channel(&self) -> &'static str {
        self.evidence.as_ref().map_or("retaguarda", ConsentEvidence::channel)
    }
}

impl ConsentBody {
    pub fn read(self) -> Result<NewConsent, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let purpose = r.parse(m.purpose.0, m.purpose.1, ConsentPurpose::parse);
        let granted = r.boolean(m.granted.0, m.granted.1);
        let (evidence_name, evidence_field) = m.evidence;
        let evidence = match evidence_field {
            Field::Missing => {
                if granted == Some(true) {
                    r.add(
                        evidence_name,
                        codes::REQUIRED,
                        "evidence é obrigatório para registrar um consentimento: por onde o titular consentiu (channel) e a referência da prova (reference)",
                    );
                }
                None
            }
            given => r.object(evidence_name, given, |e, r| {
                let e = e.named();
                let channel = r.parse(e.channel.0, e.channel.1, RequestChannel::parse);
                let reference = r.text_within(e.reference.0, e.reference.1, REFERENCE_MAX_CHARS);
                if reference
                    .as_deref()
                    .is_some_and(|t| t.chars().count() < REFERENCE_MIN_CHARS)
                {
                    r.add(
                        e.reference.0,
                        codes::TOO_SHORT,
                        format!("reference deve ter ao menos {REFERENCE_MIN_CHARS} caracteres"),
                    );
                }
                Some(ConsentEvidence::Reported {
                    channel: channel?,
                    reference: reference?,
                })
            }),
        };
        match (purpose, granted) {
            (Some(purpose), Some(granted)) if v.is_empty() => Ok(NewConsent {
                purpose,
                granted,
                evidence,
            }),
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
    /// The back-office user who recorded it, or `titular` for the person's own act.
    pub by: String,
    /// `link`, the channel the back office reported, or `retaguarda` (a revocation without proof).
    pub channel: String,
    /// The proof kept, as recorded.
    pub evidence: Option<Value>,
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
    #[serde(default)]
    pub canal: Value,
    #[serde(default)]
    pub evidencia: Value,
}

#[derive(Debug, Serialize)]
struct ConsentChange {
    concedido: bool,
    em: Value,
    por: Value,
    canal: Value,
    evidencia: Value,
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
                canal: r.canal.clone(),
                evidencia: r.evidencia.clone(),
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
                granted: false,
                evidence: None,
            }
        );
    }

    #[test]
    fn a_grant_needs_the_proof_of_the_persons_act_a_revocation_does_not() {
        let missing = body(json!({"purpose": "ofertas", "granted": true})).read().unwrap_err();
        assert_eq!(missing.errors()[0].field, "evidence");
        assert_eq!(missing.errors()[0].code, codes::REQUIRED);
        let read = body(json!({
            "purpose": "ofertas",
            "granted": true,
            "evidence": {"channel": "telefone", "reference": " Gravação SAC 2026-000123 "}
        }))
        .read()
        .unwrap();
        assert_eq!(read.channel(), "telefone");
        assert_eq!(
            read.evidence.unwrap().document(),
            json!({"canal": "telefone", "referencia": "Gravação SAC 2026-000123"})
        );
        let bad =
            body(json!({"purpose": "ofertas", "granted": true, "evidence": {"channel": "pombo", "reference": "x"}}))
                .read()
                .unwrap_err();
        let fields: Vec<(&str, &str)> = bad.errors().iter().map(|e| (e.field.as_str(), e.code)).collect();
        assert_eq!(
            fields,
            [
                ("evidence.channel", codes::INVALID_VALUE),
                ("evidence.reference", codes::TOO_SHORT)
            ]
        );
        let revoked = body(json!({"purpose": "ofertas", "granted": false})).read().unwrap();
        assert_eq!(revoked.channel(), "retaguarda");
    }

    #[test]
    fn the_text_agreed_to_is_named_by_its_digest() {
        let offers = ConsentPurpose::Offers;
        assert!(offers.text().contains(offers.description()));
        assert!(offers.text().contains(CONSENT_BASIS));
        assert_eq!(offers.text_sha256().len(), 64);
        assert_ne!(offers.text_sha256(), ConsentPurpose::PartnerOffers.text_sha256());
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
