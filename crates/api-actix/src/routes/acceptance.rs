//! The acceptance clock's requests for documents (issue 45): the back office asks; the proposal's
//! seller answers the documentation its product leaves to it, the proponent everything else by a
//! link mailed to them (decision 289, `crate::documents_page`).

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::http::idempotency::idempotent;
use crate::routes::dto::iso;
use crate::routes::schemas::{ErrorEnvelope, envelope_doc};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use domain::acceptance::pending::{AnswerBody, MAX_ANSWER_BODY_BYTES, PendingBody, PendingRecipient};
use serde::Serialize;
use utoipa::ToSchema;

/// A request for documents opened.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(
    description = "O pedido de documentos aberto: o `id` a responder, desde quando o prazo de aceitação está suspenso, a categoria e quem responde (`recipient`: `vendedor` ou `proponente`, este pelo link enviado ao seu e-mail)."
)]
pub struct PendingOpenedDto {
    pub id: i64,
    pub identifier: String,
    #[schema(format = DateTime, example = "2026-11-28T09:30:00.000Z")]
    pub suspended_since: String,
    #[schema(example = "documentacao")]
    pub reason_category: String,
    #[schema(example = "vendedor")]
    pub recipient: String,
}

/// A request for documents answered.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(description = "O pedido de documentos respondido: o prazo de aceitação volta a correr até `deadline`.")]
pub struct PendingAnsweredDto {
    pub id: i64,
    pub identifier: String,
    #[schema(format = DateTime, example = "2026-12-15T09:30:00.000Z")]
    pub deadline: String,
}

envelope_doc!(PendingOpenedEnvelope, data = PendingOpenedDto);
envelope_doc!(PendingAnsweredEnvelope, data = PendingAnsweredDto);

/// The back office asks for documents: the seller or the proponent answers.
#[utoipa::path(post, path = "/proposal/{identificador}/pending", operation_id = "proposal.requestDocuments", summary = "Pedir documentos (suspende o prazo de aceitação)", description = "A retaguarda pede documentos de uma proposta `EM ANÁLISE`: o prazo de aceitação fica suspenso desde agora até a resposta, e o vendedor recebe o evento `PENDENCIA_ABERTA`. Um pedido por vez, e o prazo é suspenso no máximo uma vez (Lei 15.040/2024, art. 49; o produto pode não permitir nenhuma, `sales-api catalog acceptance`). Quem responde (decisão 289): o vendedor, só a documentação (`reasonCategory` `documentacao`, o padrão) que o produto deixa com ele (`--seller-documents`); qualquer outro pedido (`saude`, …) vai direto ao proponente, por um link de uso único enviado ao e-mail da proposta, e o vendedor lê dele só a categoria e que foi pedido e respondido.", tag = "aceitação", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = PendingBody, example = json!({"items": ["Comprovante de residência"], "note": "Frente e verso"})),
    responses(
        (status = 201, description = "Pedido aberto: o `id` a responder", body = PendingOpenedEnvelope),
        (status = 400, description = "`items` ausente, vazio, com mais de 20 itens ou item longo; `note` longa", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, description = "Só a retaguarda pede documentos", body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada", body = ErrorEnvelope),
        (status = 409, description = "A proposta não está em análise (`proposta_fora_de_analise`), já há um pedido em aberto (`pendencia_em_aberto`) ou o produto não permite outra suspensão (`suspensoes_esgotadas`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn open(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<PendingBody>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().read()?;
    let opened = state.documents.request_documents(&user.0, &path, request).await?;
    let message = match opened.recipient {
        PendingRecipient::Seller => {
            "Pedido de documentos aberto: prazo de aceitação suspenso até a resposta do vendedor."
        }
        PendingRecipient::Proponent => {
            "Pedido de documentos aberto e enviado ao proponente: prazo de aceitação suspenso até a resposta dele."
        }
    };
    Ok(HttpResponse::Created().json(Envelope::data(
        message,
        PendingOpenedDto {
            id: opened.id,
            identifier: opened.identifier,
            suspended_since: iso(opened.suspended_since),
            reason_category: opened.category.as_str().to_owned(),
            recipient: opened.recipient.as_str().to_owned(),
        },
    )))
}

/// The proposal's seller answers a request for documents.
#[utoipa::path(post, path = "/proposal/{identificador}/pending/{id}/answer", operation_id = "proposal.answerPending", summary = "Responder a um pedido de documentos (retoma o prazo)", description = "O vendedor dono da proposta (o parceiro dela, ou a loja para as do e-commerce) responde ao pedido com uma nota e até 3 arquivos PDF, JPEG ou PNG de até 5 MiB cada, em base64 (o tipo é lido do conteúdo, não do nome). O prazo de aceitação volta a correr, adiado pelo tempo em que ficou suspenso, e o vendedor recebe o evento `PENDENCIA_RESPONDIDA`. Os arquivos ficam guardados com a proposta e são apagados na anonimização do titular.", tag = "aceitação", security(("bearer" = [])),
    params(
        ("identificador" = String, Path, description = "Identificador da proposta"),
        ("id" = i64, Path, description = "O `id` do pedido de documentos"),
    ),
    request_body(content = AnswerBody, example = json!({"note": "Segue o comprovante", "files": [{"name": "comprovante.pdf", "content": "JVBERi0xLjcK"}]})),
    responses(
        (status = 200, description = "Respondido: o novo prazo", body = PendingAnsweredEnvelope),
        (status = 400, description = "`note` ausente ou longa; um arquivo sem nome, que não é base64, maior que 5 MiB ou de outro tipo; mais de 3 arquivos; `id` não numérico", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, description = "A retaguarda não responde pelo vendedor, nem o vendedor por um pedido que vai ao proponente", body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor), ou pedido que não é dela", body = ErrorEnvelope),
        (status = 409, description = "Pedido já respondido (`pendencia_respondida`) ou proposta fora de análise (`proposta_fora_de_analise`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn answer(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<(String, String)>,
    body: Body<AnswerBody>,
) -> Result<HttpResponse, ApiError> {
    let (identifier, id) = path.into_inner();
    let id = pending_id(&id)?;
    let answer = body.into_inner().read()?;
    let resumed = state
        .acceptance
        .answer_pending(&user.0, &identifier, id, answer)
        .await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Pedido de documentos respondido: prazo de aceitação retomado.",
        PendingAnsweredDto {
            id: resumed.id,
            identifier: resumed.identifier,
            deadline: iso(resumed.deadline),
        },
    )))
}

/// The request's id from the path: a positive integer, else a 400 naming `id`.
fn pending_id(raw: &str) -> Result<i64, ApiError> {
    match raw.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => {
            let mut v = domain::validation::Violations::new();
            v.add(
                "id",
                domain::validation::codes::WRONG_TYPE,
                "id deve ser um inteiro positivo",
            );
            Err(ApiError::invalid(v))
        }
    }
}

/// Under `/proposal`: the requests for documents. The answer carries files: its body may reach
/// [`MAX_ANSWER_BODY_BYTES`].
pub fn proposal_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/{identifier}/pending")
            .wrap(from_fn(idempotent))
            .route(web::post().to(open)),
    )
    .service(
        web::resource("/{identifier}/pending/{id}/answer")
            .app_data(
                web::JsonConfig::default()
                    .limit(MAX_ANSWER_BODY_BYTES)
                    .error_handler(crate::app::json_error),
            )
            .app_data(web::PayloadConfig::new(MAX_ANSWER_BODY_BYTES))
            .wrap(from_fn(idempotent))
            .route(web::post().to(answer)),
    );
}
