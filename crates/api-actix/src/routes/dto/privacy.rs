//! Privacy operations: the export, the anonymisation and the consents.

use chrono::{DateTime, Utc};
use domain::privacy::Anonymized;
use domain::privacy::consents::ConsentRecord;
use domain::privacy::subject_requests::SubjectRequest;
use serde::Serialize;
use utoipa::ToSchema;

/// A document kept as contract evidence.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeptDocumentDto {
    pub identificador: String,
    /// selado, assinado ou provedor.
    #[schema(example = "assinado")]
    pub versao: String,
    pub sha256: String,
}

/// One payment platform customer's redaction.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlatformRedactionDto {
    /// The platform's customer id (`cus_…`).
    pub cliente: String,
    pub redigido: bool,
    /// The platform's refusal, when it refused.
    pub erro: Option<String>,
}

/// What anonymisation changed and what it kept.
#[derive(Debug, Serialize, ToSchema)]
pub struct AnonymizedDto {
    /// Registrations (one per seller) anonymised.
    pub cadastros: i64,
    /// Identifiers of the proposals whose customer data was anonymised.
    pub propostas: Vec<String>,
    /// Kept answers of creating requests (`Idempotency-Key`) about the person, erased: their
    /// retries answer 409 `idempotencia_esquecida`.
    #[serde(rename = "respostasIdempotentesApagadas")]
    pub respostas_idempotentes_apagadas: i64,
    /// The payment platform's customers of the person: whether the platform erased the person
    /// from each (name, e-mail, phone, metadata); a refusal is recorded and named here.
    #[serde(rename = "plataformaPagamento")]
    pub plataforma_pagamento: Vec<PlatformRedactionDto>,
    /// Kept as contract evidence (LGPD, art. 16, I).
    #[serde(rename = "documentosMantidos")]
    pub documentos_mantidos: Vec<KeptDocumentDto>,
}

impl From<Anonymized> for AnonymizedDto {
    fn from(a: Anonymized) -> Self {
        Self {
            cadastros: a.registrations,
            propostas: a.proposals,
            respostas_idempotentes_apagadas: a.forgotten_answers,
            plataforma_pagamento: a
                .platform_customers
                .into_iter()
                .map(|r| PlatformRedactionDto {
                    cliente: r.platform_customer,
                    redigido: matches!(r.outcome, Some(Ok(()))),
                    erro: r.outcome.and_then(Result::err),
                })
                .collect(),
            documentos_mantidos: a
                .kept_documents
                .into_iter()
                .map(|d| KeptDocumentDto {
                    identificador: d.identifier,
                    versao: d.version,
                    sha256: d.sha256,
                })
                .collect(),
        }
    }
}

/// A consent as recorded.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsentDto {
    /// `ofertas` ou `ofertas_parceiro`.
    #[schema(example = "ofertas")]
    pub purpose: String,
    pub granted: bool,
    #[serde(rename = "registradoEm")]
    pub registrado_em: DateTime<Utc>,
    /// O usuário da retaguarda que o registrou.
    #[serde(rename = "registradoPor")]
    pub registrado_por: String,
    /// A base legal da finalidade.
    #[serde(rename = "baseLegal")]
    pub base_legal: &'static str,
    /// Por onde o titular manifestou a vontade: o canal informado (`telefone`, `email`, `chat`,
    /// `carta`, `presencial`), `link` (o próprio titular, pelo link enviado ao seu e-mail) ou
    /// `retaguarda` (revogação registrada sem prova).
    #[schema(example = "telefone")]
    pub canal: String,
    /// A prova guardada: `canal` e `referencia` quando informada pela retaguarda.
    #[schema(value_type = Option<Object>)]
    pub evidencia: Option<serde_json::Value>,
}

impl From<ConsentRecord> for ConsentDto {
    fn from(c: ConsentRecord) -> Self {
        Self {
            purpose: c.purpose.code().to_owned(),
            granted: c.granted,
            registrado_em: c.at,
            registrado_por: c.by,
            base_legal: domain::privacy::consents::CONSENT_BASIS,
            canal: c.channel,
            evidencia: c.evidence,
        }
    }
}

/// A data-subject request as filed.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubjectRequestDto {
    /// O protocolo do pedido.
    #[schema(example = "2026112800000042")]
    pub protocolo: String,
    /// O CPF, mascarado.
    #[schema(example = "***.***.*47-25")]
    pub cpf: String,
    #[schema(example = "acesso")]
    pub kind: String,
    #[schema(example = "telefone")]
    pub channel: String,
    pub note: Option<String>,
    #[serde(rename = "recebidoEm")]
    pub recebido_em: DateTime<Utc>,
    /// Até quando a resposta completa é devida (15 dias, LGPD art. 19, II).
    pub prazo: DateTime<Utc>,
}

impl From<SubjectRequest> for SubjectRequestDto {
    fn from(r: SubjectRequest) -> Self {
        Self {
            protocolo: r.protocol.to_string(),
            cpf: domain::values::Cpf::parse(&r.cpf).map_or_else(|_| r.cpf.clone(), |c| c.masked()),
            kind: r.kind.code().to_owned(),
            channel: r.channel.code().to_owned(),
            note: r.note,
            recebido_em: r.received_at,
            prazo: r.deadline,
        }
    }
}

/// One published version of the privacy notice.
#[derive(Debug, Serialize, ToSchema)]
pub struct NoticeVersionDto {
    #[schema(example = "2026-11-28")]
    pub versao: &'static str,
    pub sha256: &'static str,
}

/// The privacy notice in force.
#[derive(Debug, Serialize, ToSchema)]
pub struct PrivacyNoticeDto {
    /// A versão em vigor: o dia em que foi publicada.
    #[schema(example = "2026-11-28")]
    pub versao: &'static str,
    /// O SHA-256 do texto, o mesmo que o documento de cada proposta imprime e que fica registrado com o seu selo.
    pub sha256: String,
    /// O texto, um parágrafo por linha.
    pub texto: &'static str,
    /// Cada versão já publicada, da mais antiga para a atual.
    pub publicadas: Vec<NoticeVersionDto>,
    /// Quem responde pelos dados (LGPD art. 9º, III): o controlador.
    pub controlador: ControllerDto,
    /// O encarregado pelo tratamento de dados pessoais (LGPD art. 41, § 1º) e o canal do titular.
    pub encarregado: DataProtectionOfficerDto,
    /// A transferência internacional (LGPD art. 33): a quem e com que base.
    #[serde(rename = "transferenciaInternacional")]
    pub transferencia_internacional: InternationalTransferDto,
}

/// The controller the notice names.
#[derive(Debug, Serialize, ToSchema)]
pub struct ControllerDto {
    #[schema(example = "Seguradora Exemplo S.A.")]
    pub nome: String,
    /// Só os 14 caracteres, sem máscara.
    #[schema(example = "11444777000161")]
    pub cnpj: String,
    pub endereco: String,
}

/// The encarregado the notice names.
#[derive(Debug, Serialize, ToSchema)]
pub struct DataProtectionOfficerDto {
    pub nome: String,
    pub email: String,
    /// Onde o titular pede: uma página, um telefone, um endereço.
    pub canal: String,
}

/// The transfer abroad the notice declares.
#[derive(Debug, Serialize, ToSchema)]
pub struct InternationalTransferDto {
    #[schema(
        example = "Plataforma de pagamento (Stripe, Inc., Estados Unidos: transferência internacional, LGPD art. 33, IX)"
    )]
    pub destinatario: &'static str,
    pub base: &'static str,
}

impl PrivacyNoticeDto {
    pub fn current(contacts: &domain::privacy::notice::PrivacyContacts) -> Self {
        use domain::privacy::declarations::{INTERNATIONAL_TRANSFER_BASIS, Recipient};
        use domain::privacy::notice::{NOTICE_TEXT, NOTICE_VERSION, PUBLISHED, notice_sha256};
        Self {
            controlador: ControllerDto {
                nome: contacts.controller_name.clone(),
                cnpj: contacts.controller_cnpj.as_str().to_owned(),
                endereco: contacts.controller_address.clone(),
            },
            encarregado: DataProtectionOfficerDto {
                nome: contacts.dpo_name.clone(),
                email: contacts.dpo_email.as_str().to_owned(),
                canal: contacts.dpo_channel.clone(),
            },
            transferencia_internacional: InternationalTransferDto {
                destinatario: Recipient::PaymentPlatform.label(),
                base: INTERNATIONAL_TRANSFER_BASIS,
            },
            versao: NOTICE_VERSION,
            sha256: notice_sha256(),
            texto: NOTICE_TEXT,
            publicadas: PUBLISHED
                .iter()
                .map(|(versao, sha256)| NoticeVersionDto { versao, sha256 })
                .collect(),
        }
    }
}
