//! Routes 12 and 13, the back office's status moves, the proposal document and its events, the
//! provider's callbacks (the sandbox provider's pages are in `routes::sandbox`, development only).

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::callback::{SignedCallback, recorded};
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::idempotency::idempotent;
use crate::routes::dto::{SignUrl, StatusEventDto};
use crate::routes::schemas::envelope_doc;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use base64::Engine;
use domain::proposals::bodies::{DocumentQuery, SignLinkQuery, SignerBody, StatusChangeBody};
use domain::signature::PartyEventOutcome;
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(SignUrlEnvelope, data = SignUrl);
envelope_doc!(StatusEventsEnvelope, document = StatusEventDto);

/// Route 12: sends the proposal for signature, or sends the link again while awaiting signatures.
#[utoipa::path(post, path = "/signer", operation_id = "signature.send", summary = "Enviar para assinatura (rota 12)", description = "Envia a proposta para assinatura, ou reenvia o link enquanto aguarda as assinaturas.", tag = "assinatura", security(("bearer" = [])),
    request_body(content = SignerBody, example = json!({"customerId": 1, "identifier": "4c938c72-29ae-4a6a-81f4-b5a436aceab9"})),
    responses(
        (status = 200, description = "Link de assinatura do cliente", body = SignUrlEnvelope),
        (status = 400, description = "Cliente de outra proposta, estado que não permite o envio, ou limite de reenvios", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, description = "Provedor de assinatura falhou; a proposta não mudou", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn send(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<SignerBody>,
) -> Result<HttpResponse, ApiError> {
    let request = body.into_inner().read()?;
    let sign_url = state
        .signing
        .send(&user.0, request.customer_id, &request.identifier)
        .await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Proposta enviada para assinatura.",
        SignUrl { sign_url },
    )))
}

/// Route 13: the client's stored signing link.
#[utoipa::path(get, path = "/signer/signLink", operation_id = "signature.signLink", summary = "Link de assinatura (rota 13)", description = "O link de assinatura do cliente.", tag = "assinatura", security(("bearer" = [])),
    params(("identifier" = String, Query, description = "Identificador da proposta")),
    responses(
        (status = 200, body = SignUrlEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada ou nunca enviada para assinatura", body = ErrorEnvelope),
        (status = 409, description = "A proposta foi cancelada (`proposta_cancelada`) ou seu prazo de assinatura venceu (`proposta_expirada`)", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn sign_link(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    query: web::Query<SignLinkQuery>,
) -> Result<HttpResponse, ApiError> {
    let identifier = query.into_inner().read()?;
    let sign_url = state.signing.sign_link(&user.0, &identifier).await?;
    let envelope = Envelope::data("Link de assinatura encontrado.", SignUrl { sign_url });
    Ok(HttpResponse::Ok().json(envelope.with_rows_affected(vec![1])))
}

/// The back office approves (`APROVADO`), rejects (`REPROVADO`) or cancels (`CANCELADO`).
#[utoipa::path(patch, path = "/proposal/{identificador}/status", operation_id = "proposal.changeStatus", summary = "Decisão da retaguarda", description = "A retaguarda aprova (`APROVADO`), reprova (`REPROVADO`) ou cancela (`CANCELADO`). A recusa (`REPROVADO`) exige a justificativa em `reason` (de 10 a 500 caracteres; 400 `dados_invalidos` em `reason` quando falta, depois de a mudança ser julgada), que o cliente recebe por e-mail; tudo o que foi recebido volta corrigido pelo IPCA pro rata die desde o pagamento (nada recebido, nada a devolver): o cartão pela plataforma de pagamento (até o valor cobrado), o Pix por devolução e o resto (as cobranças pagas por desconto em folha ou débito em conta, pelo valor recebido, e a correção acima do cobrado) como reembolso a pagar pelo financeiro; a assinatura recorrente é cancelada. Os reembolsos aparecem na rota 7 (`data.refunds`). Numa recusa ou num cancelamento, `reasonCategory` (ausente, `outros`) é o que o vendedor lê: seus eventos, seu histórico e os webhooks levam a categoria e nunca as palavras de `reason`, que só o cliente (por e-mail), a retaguarda e a exportação do titular leem (LGPD, arts. 6, III e 11). Um reembolso recusado pela plataforma não muda nada (409 `reembolso_recusado`); a fonte do IPCA fora do ar, 503 `indice_correcao_indisponivel`.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    request_body(content = StatusChangeBody, example = json!({"status": "APROVADO", "reason": "Documentação conferida"})),
    responses(
        (status = 200, description = "O evento da mudança", body = StatusEventsEnvelope),
        (status = 400, description = "Mudança não permitida (nomeia os dois estados), recusa sem justificativa, ou `reasonCategory` fora da lista ou numa mudança que não é recusa nem cancelamento", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn change_status(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<StatusChangeBody>,
) -> Result<HttpResponse, ApiError> {
    let change = body.into_inner().read()?;
    let event = state
        .settlement
        .change_status(&user.0, &path, change.status, change.reason, change.reason_category)
        .await?;
    let document = vec![StatusEventDto::from(event)];
    Ok(HttpResponse::Ok().json(Envelope::list("Status da proposta alterado.", document, vec![1])))
}

/// The status-change events of a proposal, in order (beyond the spec).
#[utoipa::path(get, path = "/proposal/{identificador}/events", operation_id = "proposal.events", summary = "Eventos da proposta", description = "As mudanças de status da proposta, em ordem.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    responses(
        (status = 200, body = StatusEventsEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn events(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let events = state.signing.events(&user.0, &path).await?;
    let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
    let document: Vec<StatusEventDto> = events.into_iter().map(StatusEventDto::from).collect();
    Ok(HttpResponse::Ok().json(Envelope::list("Eventos da proposta.", document, vec![count])))
}

/// The proposal as the PDF the parties sign: once sent for signature, the very bytes sent; once
/// every party signed, those bytes followed by the evidence page.
#[utoipa::path(get, path = "/proposal/{identificador}/document", operation_id = "proposal.document", summary = "Documento da proposta (PDF)", description = "A proposta como o PDF que as partes assinam. Antes do envio para assinatura, um rascunho (marcado como tal em cada página) da proposta como está; depois do envio (rota 12), sempre os mesmos bytes enviados (selados); depois da última assinatura, a versão assinada: o documento selado seguido da página de evidências (SHA-256 do selado, cada parte com data e hora UTC e de Brasília, canal, autenticação, IP e navegador). `version=sealed` pede o selado mesmo depois; `version=provider`, a cópia assinada do próprio provedor (baixada quando o envelope fecha). `Repr-Digest` (RFC 9530) traz o SHA-256 dos bytes servidos, `ETag` o mesmo em hexadecimal e `Document-Version` qual versão é (`draft`, `sealed`, `signed`).", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta"), ("version" = Option<String>, Query, description = "`sealed`: o documento enviado para assinatura, mesmo depois de assinado; `provider`: a cópia assinada do provedor")),
    responses(
        (status = 200, description = "PDF da proposta", content_type = "application/pdf", body = Vec<u8>,
            headers(("Repr-Digest" = String, description = "sha-256=:<base64>: dos bytes"), ("ETag" = String, description = "o SHA-256 em hexadecimal, entre aspas"), ("Document-Version" = String, description = "draft, sealed, signed ou provider"))),
        (status = 400, description = "`version` diferente de `sealed` e `provider`", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada, `version=sealed` de uma proposta ainda não enviada, ou `version=provider` antes de o provedor entregar sua cópia", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn document(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    query: web::Query<DocumentQuery>,
) -> Result<HttpResponse, ApiError> {
    let request = query.into_inner().read()?;
    let served = state.signing.document(&user.0, &path, request).await?;
    let mut response = pdf_response(&path, served.document.pdf);
    with_digest(&mut response, &served.document.sha256)?;
    if let Ok(version) = header::HeaderValue::from_str(served.version.as_str()) {
        response
            .headers_mut()
            .insert(header::HeaderName::from_static("document-version"), version);
    }
    Ok(response)
}

/// A stored document's SHA-256 (hexadecimal) on its response: `Repr-Digest` (RFC 9530) and `ETag`.
fn with_digest(response: &mut HttpResponse, sha256: &str) -> Result<(), ApiError> {
    let digest = hex::decode(sha256).map_err(|_| ApiError::new(ErrorCode::Internal))?;
    let headers = response.headers_mut();
    for (name, value) in [
        (
            header::HeaderName::from_static("repr-digest"),
            format!("sha-256=:{}:", base64::engine::general_purpose::STANDARD.encode(digest)),
        ),
        (header::ETAG, format!("\"{sha256}\"")),
    ] {
        if let Ok(value) = header::HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    Ok(())
}

/// The accepted contract's certificate (issue 45).
#[utoipa::path(get, path = "/proposal/{identificador}/certificate", operation_id = "proposal.certificate", summary = "Certificado de seguro (PDF)", description = "O certificado da proposta aceita (`APROVADO`, pela retaguarda ou por aceite tácito): a seguradora e o seu código SUSEP, o produto e o seu processo na SUSEP, o estipulante e a apólice mestre do seguro coletivo, o segurado e o número do certificado, os beneficiários, o corretor e o seu registro SUSEP, a cobertura e o capital, o início e o fim da vigência e a renovação, o prêmio líquido, o IOF e o total e a forma de pagamento, as condições gerais com o seu SHA-256, exclusões e carências, o direito de arrependimento, o SAC, a Ouvidoria, o consumidor.gov.br e o glossário. Emitido uma vez e guardado (os mesmos bytes a cada leitura; `Repr-Digest` e `ETag` trazem o SHA-256) e enviado ao cliente por e-mail, com a entrega registrada, só enquanto o contrato está em vigor. Encerrado o contrato, é servido com o encerramento carimbado em cada página (quando, por quê e o SHA-256 do certificado emitido que copia). Antes da aceitação, 409 `proposta_nao_aceita`; a proposta de outro vendedor, 404.", tag = "assinatura", security(("bearer" = [])),
    params(("identificador" = String, Path, description = "Identificador da proposta")),
    responses(
        (status = 200, description = "PDF do certificado", content_type = "application/pdf", body = Vec<u8>,
            headers(("Repr-Digest" = String, description = "sha-256=:<base64>: dos bytes"), ("ETag" = String, description = "o SHA-256 em hexadecimal, entre aspas"))),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada (ou de outro vendedor)", body = ErrorEnvelope),
        (status = 409, description = "A proposta ainda não foi aceita, ou o produto não tem os dados do certificado", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn certificate(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let issued = state.certificates.certificate(&user.0, &path).await?;
    let mut response = named_pdf("certificado", &path, issued.pdf);
    with_digest(&mut response, &issued.sha256)?;
    Ok(response)
}

pub(crate) fn pdf_response(name: &str, pdf: Vec<u8>) -> HttpResponse {
    named_pdf("proposta", name, pdf)
}

/// A PDF shown inline as `{kind}-{name}.pdf` (the name reduced to letters, digits and dashes).
fn named_pdf(kind: &str, name: &str, pdf: Vec<u8>) -> HttpResponse {
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{kind}-{safe}.pdf\""),
        ))
        .body(pdf)
}

/// The signature provider's notifications, verified by `Content-Hmac`.
#[utoipa::path(post, path = "/callbacks/signature", operation_id = "callback.signature", summary = "Notificações do provedor de assinatura", description = "Notificações do provedor de assinatura, verificadas por `Content-Hmac`.", tag = "assinatura",
    request_body(content = Object, description = "Evento do provedor, assinado com Content-Hmac: sha256=<hex>"),
    responses(
        (status = 200, description = "Registrado (ou já registrado antes)", body = MessageEnvelope),
        (status = 400, description = "Corpo ilegível", body = ErrorEnvelope),
        (status = 401, description = "Assinatura do callback inválida", body = ErrorEnvelope),
        (status = 404, description = "Chave de assinatura desconhecida", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn callback(state: web::Data<AppState>, callback: SignedCallback) -> Result<HttpResponse, ApiError> {
    let outcome = state.signing.callback(&callback.headers, &callback.body).await?;
    if let PartyEventOutcome::Ignored { status } = outcome {
        // Answered as received, so that the provider does not retry it.
        return Ok(HttpResponse::Ok().json(Envelope::message(format!("Evento ignorado: a proposta está {status}."))));
    }
    Ok(recorded(outcome != PartyEventOutcome::Duplicate))
}

/// Under `/proposal`, after routes 5 to 9: the back office's moves, the events and the document.
pub fn proposal_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/{identifier}/status")
            .wrap(from_fn(idempotent))
            .route(web::patch().to(change_status)),
    )
    .service(web::resource("/{identifier}/events").route(web::get().to(events)))
    .service(web::resource("/{identifier}/document").route(web::get().to(document)))
    .service(web::resource("/{identifier}/certificate").route(web::get().to(certificate)));
}

/// Under `/signer`: routes 12 and 13.
pub fn signer_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("").wrap(from_fn(idempotent)).route(web::post().to(send)))
        .service(web::resource("/signLink").route(web::get().to(sign_link)));
}

/// Under `/callbacks`: the signature provider's notifications.
pub fn callback_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/signature").route(web::post().to(callback)));
}
