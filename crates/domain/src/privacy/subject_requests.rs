//! Data-subject requests (LGPD art. 18 and art. 19): what the person asked for, through which
//! channel, under a protocol and with the deadline of a full answer (15 days, art. 19, II); the
//! back office's queue by deadline and the answer recorded (what, when, by whom, and the file
//! sent, by its SHA-256). The person's own request by e-mail link is decision 196's: it files the
//! same request with the channel `email`.

use crate::access::{AccessError, Operation, authorize};
use crate::auth::model::Principal;
use crate::clock::Clock;
use crate::input::{Field, Reading};
use crate::mail::{MailKind, MailMessage, MailSender, PersonalDataNotice};
use crate::privacy::export::ExportRecord;
pub use crate::privacy::request_kinds::{RequestChannel, RequestKind};
use crate::privacy::{PrivacyError, PrivacyService};
use crate::proposals::requests::Protocol;
use crate::store::StoreError;
use crate::validation::{Violations, codes};
use crate::values::{Cpf, Email};
use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// A full answer is due within 15 days of the request (LGPD art. 19, II).
pub const ANSWER_DAYS: i64 = 15;
/// The longest note and answer (characters, trimmed).
pub const NOTE_MAX_CHARS: usize = 1000;
pub const ANSWER_MAX_CHARS: usize = 4000;
/// The shortest answer worth recording.
pub const ANSWER_MIN_CHARS: usize = 10;

crate::wire_body! {
    /// The body of `POST /privacy/requests`.
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(
        feature = "openapi",
        schema(description = "Um pedido do titular (LGPD art. 18), recebido pela retaguarda.")
    )]
    #[derive(Default)]
    pub struct SubjectRequestBody => SubjectRequestMembers {
        /// O CPF do titular, com ou sem máscara.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "529.982.247-25"))]
        #[serde(default)]
        cpf: Field<String>,
        /// `acesso`, `correcao`, `anonimizacao`, `portabilidade`, `eliminacao`, `compartilhamento` ou
        /// `revogacao_consentimento`.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "acesso"))]
        #[serde(default)]
        kind: Field<String>,
        /// Por onde chegou: `telefone`, `email`, `chat`, `carta` ou `presencial`.
        #[cfg_attr(feature = "openapi", schema(value_type = String, example = "telefone"))]
        #[serde(default)]
        channel: Field<String>,
        /// O que o titular disse, se for útil (até 1000 caracteres).
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, max_length = 1000, example = "Pediu cópia dos dados por e-mail"))]
        #[serde(default)]
        note: Field<String>,
    }
}

/// A request to file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSubjectRequest {
    pub cpf: Cpf,
    pub kind: RequestKind,
    pub channel: RequestChannel,
    pub note: Option<String>,
}

impl SubjectRequestBody {
    pub fn read(self) -> Result<NewSubjectRequest, Violations> {
        let m = self.named();
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let cpf = r.parse(m.cpf.0, m.cpf.1, Cpf::parse);
        let kind = r.parse(m.kind.0, m.kind.1, RequestKind::parse);
        let channel = r.parse(m.channel.0, m.channel.1, RequestChannel::parse);
        let note = r.optional_text_within(m.note.0, m.note.1, NOTE_MAX_CHARS);
        match (cpf, kind, channel) {
            (Some(cpf), Some(kind), Some(channel)) if v.is_empty() => Ok(NewSubjectRequest {
                cpf,
                kind,
                channel,
                note,
            }),
            _ => Err(v),
        }
    }
}

/// The file sent with an answer: named and identified by its SHA-256 (its content is not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFile {
    pub name: String,
    pub sha256: String,
    pub bytes: i64,
    /// The address it went to, masked.
    pub sent_to: String,
}

/// The answer recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestAnswer {
    pub text: String,
    pub at: DateTime<Utc>,
    pub by: String,
    pub file: Option<SentFile>,
}

/// A request as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectRequest {
    pub protocol: Protocol,
    /// The CPF as filed (a stand-in that is never a CPF once the person was anonymised).
    pub cpf: String,
    pub kind: RequestKind,
    pub channel: RequestChannel,
    pub note: Option<String>,
    pub received_at: DateTime<Utc>,
    pub received_by: String,
    pub deadline: DateTime<Utc>,
    pub answer: Option<RequestAnswer>,
}

impl SubjectRequest {
    /// Unanswered past its deadline at `now`.
    pub fn overdue(&self, now: DateTime<Utc>) -> bool {
        self.answer.is_none() && self.deadline < now
    }
}

/// Which requests the queue shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueFilter {
    /// Unanswered, the overdue first, then by deadline.
    #[default]
    Open,
    /// Answered, the latest first.
    Answered,
}

impl QueueFilter {
    pub fn parse(text: &str) -> Result<Self, Violations> {
        match text {
            "" | "abertos" => Ok(QueueFilter::Open),
            "respondidos" => Ok(QueueFilter::Answered),
            _ => {
                let mut v = Violations::new();
                v.add(
                    "situacao",
                    codes::INVALID_VALUE,
                    "situacao deve ser abertos ou respondidos",
                );
                Err(v)
            }
        }
    }
}

/// How recording an answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerOutcome {
    Answered(SubjectRequest),
    NotFound,
    /// Answered before (the first answer stands).
    AlreadyAnswered(SubjectRequest),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait SubjectRequestStore: Send + Sync {
    /// Files the request under a new protocol (numbered with the customer's requests, so that
    /// no two requests of any kind share one), received at `received_at`, due at `deadline`.
    async fn file(
        &self,
        request: &NewSubjectRequest,
        by: &str,
        received_at: DateTime<Utc>,
        deadline: DateTime<Utc>,
    ) -> Result<SubjectRequest, StoreError>;

    async fn find(&self, protocol: &Protocol) -> Result<Option<SubjectRequest>, StoreError>;

    /// At most `limit` requests: the open ones by deadline (those due before `now` first, which
    /// is the deadline's order), or the answered ones, the latest answer first.
    async fn queue(&self, filter: QueueFilter, limit: i64) -> Result<Vec<SubjectRequest>, StoreError>;

    /// Records the answer on an unanswered request (locked while it is checked).
    async fn answer(&self, protocol: &Protocol, answer: &RequestAnswer) -> Result<AnswerOutcome, StoreError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectRequestError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("pedido não encontrado")]
    NotFound,
    #[error("pedido já respondido")]
    AlreadyAnswered(Box<SubjectRequest>),
    /// The data was asked to be sent, but no e-mail is held for the person.
    #[error("nenhum e-mail mantido para o titular")]
    NoEmail,
    /// The data was asked to be sent for a kind whose answer is not the data.
    #[error("este pedido não se responde com os dados")]
    NotAnsweredWithData(RequestKind),
    #[error("os dados não foram enviados: {0}")]
    NotSent(String),
    #[error(transparent)]
    Privacy(#[from] PrivacyError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The back office's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerForm {
    /// What was answered (10 to 4000 characters).
    pub text: String,
    /// Whether the person's data (the export) goes with it, by e-mail, as a JSON file.
    pub send_data: bool,
}

impl AnswerForm {
    /// The answer's text, trimmed, of 10 to 4000 characters.
    pub fn read(text: String, send_data: bool) -> Result<Self, Violations> {
        let mut v = Violations::new();
        let mut r = Reading::root(&mut v);
        let text = r.text_within("resposta", Field::Given(text), ANSWER_MAX_CHARS);
        if text.as_deref().is_some_and(|t| t.chars().count() < ANSWER_MIN_CHARS) {
            r.add(
                "resposta",
                codes::TOO_SHORT,
                format!("resposta deve ter ao menos {ANSWER_MIN_CHARS} caracteres"),
            );
        }
        match text {
            Some(text) if v.is_empty() => Ok(AnswerForm { text, send_data }),
            _ => Err(v),
        }
    }
}

#[derive(Clone)]
pub struct SubjectRequestService {
    pub store: Arc<dyn SubjectRequestStore>,
    /// The export, for the answers that are the person's data.
    pub privacy: PrivacyService,
    /// Sends the data and answers once the mail server took it (the answer records it).
    pub mail: Arc<dyn MailSender>,
    pub clock: Arc<dyn Clock>,
}

impl SubjectRequestService {
    /// `POST /privacy/requests`.
    #[tracing::instrument(skip_all, fields(cpf = %request.cpf.masked(), kind = request.kind.code(), channel = request.channel.code()))]
    pub async fn file(
        &self,
        principal: &Principal,
        request: NewSubjectRequest,
    ) -> Result<SubjectRequest, SubjectRequestError> {
        authorize(principal, Operation::ManagePersonalData)?;
        let received_at = self.clock.now();
        let deadline = received_at + Duration::days(ANSWER_DAYS);
        let filed = self
            .store
            .file(&request, &principal.email, received_at, deadline)
            .await?;
        tracing::info!(protocol = %filed.protocol, "data subject request filed");
        Ok(filed)
    }

    /// The console's queue, with the rules clock's now (to mark the overdue).
    pub async fn queue(
        &self,
        principal: &Principal,
        filter: QueueFilter,
    ) -> Result<(Vec<SubjectRequest>, DateTime<Utc>), SubjectRequestError> {
        authorize(principal, Operation::ManagePersonalData)?;
        Ok((self.store.queue(filter, 200).await?, self.clock.now()))
    }

    pub async fn find(&self, principal: &Principal, protocol: &str) -> Result<SubjectRequest, SubjectRequestError> {
        authorize(principal, Operation::ManagePersonalData)?;
        let protocol = Protocol::parse(protocol).ok_or(SubjectRequestError::NotFound)?;
        self.store.find(&protocol).await?.ok_or(SubjectRequestError::NotFound)
    }

    /// Records the answer; with `send_data`, first e-mails the person's data (the export, which
    /// the proposals' histories record) to the latest e-mail held for them, and records the
    /// file by its SHA-256. A send that fails records nothing.
    #[tracing::instrument(skip_all, fields(protocol = %protocol))]
    pub async fn answer(
        &self,
        principal: &Principal,
        protocol: &str,
        form: AnswerForm,
    ) -> Result<SubjectRequest, SubjectRequestError> {
        let request = self.find(principal, protocol).await?;
        if request.answer.is_some() {
            return Err(SubjectRequestError::AlreadyAnswered(Box::new(request)));
        }
        let file = if form.send_data {
            Some(self.send_data(principal, &request).await?)
        } else {
            None
        };
        let answer = RequestAnswer {
            text: form.text,
            at: self.clock.now(),
            by: principal.email.clone(),
            file,
        };
        match self.store.answer(&request.protocol, &answer).await? {
            AnswerOutcome::Answered(answered) => {
                tracing::info!(late = answered.deadline < answer.at, "data subject request answered");
                Ok(answered)
            }
            AnswerOutcome::NotFound => Err(SubjectRequestError::NotFound),
            AnswerOutcome::AlreadyAnswered(first) => Err(SubjectRequestError::AlreadyAnswered(Box::new(first))),
        }
    }

    async fn send_data(
        &self,
        principal: &Principal,
        request: &SubjectRequest,
    ) -> Result<SentFile, SubjectRequestError> {
        if !request.kind.answered_with_the_data() {
            return Err(SubjectRequestError::NotAnsweredWithData(request.kind));
        }
        let cpf = Cpf::parse(&request.cpf).map_err(|_| PrivacyError::NothingHeld)?;
        let export = self.privacy.export(principal, &cpf).await?;
        let to = latest_email(&export.record).ok_or(SubjectRequestError::NoEmail)?;
        let json =
            serde_json::to_vec_pretty(&export.document).map_err(|e| SubjectRequestError::NotSent(e.to_string()))?;
        let sha256 = hex::encode(Sha256::digest(&json));
        let name = format!("dados-pessoais-{}.json", request.protocol);
        let bytes = i64::try_from(json.len()).unwrap_or(i64::MAX);
        self.mail
            .send(MailMessage {
                to: to.clone(),
                kind: MailKind::PersonalData(PersonalDataNotice {
                    protocol: request.protocol.to_string(),
                    kind: request.kind.label().to_owned(),
                    file_name: name.clone(),
                    sha256: sha256.clone(),
                    json,
                }),
            })
            .await
            .map_err(|e| SubjectRequestError::NotSent(e.to_string()))?;
        Ok(SentFile {
            name,
            sha256,
            bytes,
            sent_to: to.masked(),
        })
    }
}

/// The e-mail held for the person that was given last: the latest registration's, else the
/// latest proposal's copy.
fn latest_email(export: &ExportRecord) -> Option<Email> {
    let registrations = export.registrations.iter().rev().map(|r| r.email.as_deref());
    let copies = export
        .proposals
        .iter()
        .rev()
        .map(|p| p.copy.as_ref().and_then(|c| c.email.as_deref()));
    registrations.chain(copies).flatten().find_map(|e| Email::parse(e).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::export::PersonalDataExport;
    use serde_json::json;

    fn body(value: serde_json::Value) -> SubjectRequestBody {
        crate::input::body(value).unwrap_or_default()
    }

    #[test]
    fn a_request_names_the_person_what_they_asked_and_how() {
        let read = body(json!({"cpf": "529.982.247-25", "kind": "portabilidade", "channel": "telefone", "note": "  "}))
            .read()
            .unwrap();
        assert_eq!(read.cpf.as_str(), "52998224725");
        assert_eq!(read.kind, RequestKind::Portability);
        assert_eq!(read.channel, RequestChannel::Phone);
        assert_eq!(read.note, None, "blank is not given");
    }

    #[test]
    fn every_bad_member_is_named_at_once() {
        let refused = body(json!({"cpf": "123", "kind": "apagar", "channel": 3, "note": "x".repeat(1001)}))
            .read()
            .unwrap_err();
        let fields: Vec<&str> = refused.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["cpf", "kind", "channel", "note"]);
        assert!(refused.errors()[1].message.contains("revogacao_consentimento"));
    }

    #[test]
    fn an_answer_says_something() {
        assert!(AnswerForm::read("Dados enviados por e-mail.".into(), true).is_ok());
        let short = AnswerForm::read(" ok ".into(), false).unwrap_err();
        assert_eq!(short.errors()[0].code, codes::TOO_SHORT);
        let blank = AnswerForm::read("   ".into(), false).unwrap_err();
        assert_eq!(blank.errors()[0].code, codes::REQUIRED);
    }

    #[test]
    fn the_data_goes_to_the_latest_registrations_email_or_else_a_proposals() {
        let record = |document: serde_json::Value| PersonalDataExport::of(document).unwrap().record;
        let seller = json!({"aplicacao": "ECOMMERCE", "cpf_cnpj_parceiro": null, "nome_parceiro": null});
        let copy = json!({
            "proposta": {"identificador": "p", "status": "NOVO", "alterado_em": "2026-01-01T00:00:00Z"},
            "cliente": {"email": "proposta@exemplo.com.br"}
        });
        let export = record(json!({
            "cadastros": [
                {"email": "antigo@exemplo.com.br", "ecommerce_customer_id": null, "vendedor": seller},
                {"email": "novo@exemplo.com.br", "ecommerce_customer_id": null, "vendedor": seller}
            ],
            "propostas": [copy]
        }));
        assert_eq!(latest_email(&export).unwrap().as_str(), "novo@exemplo.com.br");
        let only_copy = record(json!({
            "cadastros": [{"email": null, "ecommerce_customer_id": null, "vendedor": seller}],
            "propostas": [copy]
        }));
        assert_eq!(latest_email(&only_copy).unwrap().as_str(), "proposta@exemplo.com.br");
        assert_eq!(latest_email(&ExportRecord::default()), None);
    }

    #[test]
    fn overdue_is_unanswered_past_the_deadline() {
        let now = Utc::now();
        let request = SubjectRequest {
            protocol: Protocol::new(now.date_naive(), 1),
            cpf: "52998224725".into(),
            kind: RequestKind::Access,
            channel: RequestChannel::Email,
            note: None,
            received_at: now - Duration::days(16),
            received_by: "bo@x".into(),
            deadline: now - Duration::days(1),
            answer: None,
        };
        assert!(request.overdue(now));
        assert!(!request.overdue(now - Duration::days(2)));
        let answered = SubjectRequest {
            answer: Some(RequestAnswer {
                text: "respondido".into(),
                at: now,
                by: "bo@x".into(),
                file: None,
            }),
            ..request
        };
        assert!(!answered.overdue(now));
    }

    #[test]
    fn only_the_kinds_answered_with_the_data_send_it() {
        let with: Vec<&str> = RequestKind::ALL
            .iter()
            .filter(|k| k.answered_with_the_data())
            .map(|k| k.code())
            .collect();
        assert_eq!(with, ["acesso", "portabilidade", "compartilhamento"]);
    }
}
