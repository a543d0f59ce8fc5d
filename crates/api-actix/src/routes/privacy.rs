//! A data subject's rights (LGPD, art. 18), for the back office: the export of what is held about
//! a CPF and its anonymisation.

use crate::http::auth::AuthenticatedUser;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::routes::schemas::{ErrorEnvelope, envelope_doc};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use domain::input::parameter;
use domain::privacy::Anonymized;
use domain::values::Cpf;
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

envelope_doc!(AnonymizedEnvelope, data = AnonymizedDto);

/// `data` is everything held about the CPF.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct PersonalDataEnvelope {
    #[schema(example = "success")]
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(example = json!([]))]
    pub rows_affected: Vec<i64>,
    #[schema(value_type = Object, example = json!({"cpf": "52998224725", "cadastros": [], "propostas": []}))]
    pub data: serde_json::Value,
}

/// Everything held about a person, in one JSON document.
#[utoipa::path(get, path = "/privacy/customers/{cpf}", operation_id = "privacy.export", summary = "Dados do titular (LGPD)", description = "Tudo o que é mantido sobre o CPF, em um documento: `cadastros` (cada cadastro de cada vendedor, com endereço e vendedor) e `propostas` (cada proposta com sua cópia do cliente, pagamento, assinatura e signatários, documentos por SHA-256, assinaturas de pagamento, eventos, `protocolos` dos pedidos do cliente e histórico). Cada proposta ganha no histórico uma entrada `exportacao`. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "`data` com `cpf`, `cadastros` e `propostas` (listas vazias quando nada é mantido)", body = PersonalDataEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn export(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let document = state.privacy.export(&user.0, &cpf).await?;
    Ok(HttpResponse::Ok().json(Envelope::data("Dados pessoais mantidos para este CPF.", document)))
}

/// Removes or replaces the person's data where no legal obligation requires keeping it.
#[utoipa::path(post, path = "/privacy/customers/{cpf}/anonymize", operation_id = "privacy.anonymize", summary = "Anonimizar titular (LGPD)", description = "Substitui os dados pessoais do CPF em cada cadastro, endereço, cópia do cliente nas propostas, pagamento e registro de assinatura (o próprio CPF por um valor que nunca é um CPF), em uma transação, com uma entrada `anonimizacao` no histórico de cada proposta. Os documentos assinados são mantidos como prova do contrato e listados. Depois, a rota 4 responde \"não cadastrado\" para todo vendedor e a exportação não traz nada pessoal. Somente BACKOFFICE.", tag = "privacidade", security(("bearer" = [])),
    params(("cpf" = String, Path, description = "CPF, com ou sem máscara")),
    responses(
        (status = 200, description = "`data`: `cadastros`, `propostas`, `documentosMantidos`", body = AnonymizedEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 403, description = "Somente BACKOFFICE", body = ErrorEnvelope),
        (status = 404, description = "Nada mantido para este CPF (`titular_sem_dados`)", body = ErrorEnvelope),
        (status = 409, description = "Propostas em andamento, nomeadas na mensagem (`anonimizacao_bloqueada`); nada mudou", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn anonymize(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let cpf = parameter("cpf", Cpf::parse(&path))?;
    let done = state.privacy.anonymize(&user.0, &cpf).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Dados pessoais anonimizados; os documentos assinados foram mantidos como prova do contrato.",
        AnonymizedDto::from(done),
    )))
}

/// Under `/privacy`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/customers/{cpf}").route(web::get().to(export)))
        .service(web::resource("/customers/{cpf}/anonymize").route(web::post().to(anonymize)));
}
