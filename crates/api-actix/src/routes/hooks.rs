//! Routes 17 and 18 (`POST` and `GET /hooks`) and the management routes beside them: one
//! subscription, its changes, deletion, secret rotation, the test event, and its deliveries.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::contract_version::version_of;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::idempotency::idempotent;
use crate::routes::dto::{DeliveryDto, HookDto, HookListDto, HookListItemDto, ReplayDto};
use crate::routes::dto::{ListPageDto, iso};
use crate::routes::schemas::envelope_doc;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::hooks::bodies::{HookBody, HookPatchBody, ReplayBody, wait_for_outcome};
use domain::hooks::{Delivery, DeliveryPage, Subscription, SubscriptionPage};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

envelope_doc!(HookEnvelope, data = HookDto);
envelope_doc!(HookListEnvelope, data = HookListDto);
envelope_doc!(DeliveriesEnvelope, document = DeliveryDto);
envelope_doc!(DeliveryLogEnvelope, document = DeliveryDto, data = ListPageDto);
envelope_doc!(ReplayEnvelope, data = ReplayDto);

/// A path's uuid; anything else names no subscription.
fn hook_uuid(raw: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(raw).map_err(|_| ApiError::new(ErrorCode::HookNotFound))
}

fn one_hook(message: &str, subscription: Subscription) -> HttpResponse {
    HttpResponse::Ok().json(Envelope::data(message, HookDto::from(subscription)).with_rows_affected(vec![1]))
}

/// Route 17: subscribes the caller's partner (or the shop, or the back office) to events.
#[utoipa::path(post, path = "/hooks", operation_id = "hook.create", summary = "Assinar eventos (rota 17)", description = "Assina eventos para o parceiro do chamador (ou a loja, ou a retaguarda).", tag = "eventos", security(("bearer" = [])),
    request_body(content = HookBody,
        example = json!({"events": ["ALTERAÇÃO_STATUS"], "endpoint": "https://parceiro.example.com/webhooks", "status": "ATIVO"})),
    responses(
        (status = 200, description = "Assinatura criada, com o segredo de assinatura das entregas", body = HookEnvelope),
        (status = 400, description = "events, endpoint (inclusive endereço não público) ou status inválido", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 409, description = "O dono já mantém o máximo de assinaturas (`HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER`)", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create(
    state: web::Data<AppState>,
    request: HttpRequest,
    user: AuthenticatedUser,
    body: Body<HookBody>,
) -> Result<HttpResponse, ApiError> {
    // The subscription's events are delivered in the version this request reads.
    let version = version_of(&request);
    let subscription = state
        .hooks
        .create(&user.0, body.into_inner().read()?, version.as_str())
        .await?;
    Ok(one_hook("Assinatura de eventos criada.", subscription))
}

/// Route 18: the subscriptions of the caller's partner (or shop, or back office).
#[utoipa::path(get, path = "/hooks", operation_id = "hook.list", summary = "Assinaturas de eventos (rota 18)", description = "As assinaturas de eventos do parceiro do chamador (ou da loja, ou da retaguarda), das mais antigas às mais novas, uma página por vez (`data.nextCursor`, `data.has_more`).", tag = "eventos", security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, description = "1 a 100 (padrão 100)"),
        ("cursor" = Option<String>, Query, description = "O `data.nextCursor` da página anterior"),
    ),
    responses(
        (status = 200, body = HookListEnvelope),
        (status = 400, description = "Paginação inválida", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn list(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let page = SubscriptionPage::parse(&query)?;
    let listed = state.hooks.list(&user.0, page).await?;
    let data = HookListDto {
        subscriptions: listed.subscriptions.into_iter().map(HookListItemDto::from).collect(),
        has_more: listed.next.is_some(),
        next_cursor: listed.next.map(|id| id.to_string()),
    };
    Ok(HttpResponse::Ok().json(Envelope::data("Assinaturas de eventos.", data)))
}

/// One subscription (beyond the spec).
#[utoipa::path(get, path = "/hooks/{uuid}", operation_id = "hook.get", summary = "Uma assinatura de eventos", description = "Uma assinatura de eventos do chamador.", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path)),
    responses(
        (status = 200, body = HookEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn get(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let subscription = state.hooks.get(&user.0, hook_uuid(&path)?).await?;
    Ok(one_hook("Assinatura de eventos.", subscription))
}

/// Changes `endpoint`, `events` or `status` (beyond the spec); absent members stay.
#[utoipa::path(patch, path = "/hooks/{uuid}", operation_id = "hook.update", summary = "Alterar assinatura de eventos", description = "Altera `endpoint`, `events` ou `status`; membros ausentes ficam como estão.", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path)),
    request_body(content = HookPatchBody, example = json!({"status": "INATIVO"})),
    responses(
        (status = 200, body = HookEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn update(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<HookPatchBody>,
) -> Result<HttpResponse, ApiError> {
    let patch = body.into_inner().read()?;
    let subscription = state.hooks.update(&user.0, hook_uuid(&path)?, patch).await?;
    Ok(one_hook("Assinatura de eventos alterada.", subscription))
}

/// Deletes the subscription and cancels its pending deliveries (beyond the spec).
#[utoipa::path(delete, path = "/hooks/{uuid}", operation_id = "hook.delete", summary = "Excluir assinatura de eventos", description = "Exclui a assinatura e cancela suas entregas pendentes.", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path)),
    responses(
        (status = 200, body = MessageEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn delete(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    state.hooks.delete(&user.0, hook_uuid(&path)?).await?;
    Ok(HttpResponse::Ok().json(Envelope::message("Assinatura de eventos excluída.").with_rows_affected(vec![1])))
}

/// A new signing secret; the old one keeps signing beside it for the grace period (beyond the spec).
#[utoipa::path(post, path = "/hooks/{uuid}/rotateSecret", operation_id = "hook.rotateSecret", summary = "Trocar o segredo", description = "Um novo segredo de assinatura; o anterior continua assinando ao lado dele durante a carência.", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path)),
    responses(
        (status = 200, body = HookEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn rotate_secret(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let subscription = state.hooks.rotate_secret(&user.0, hook_uuid(&path)?).await?;
    Ok(one_hook("Segredo de assinatura trocado.", subscription))
}

fn deliveries_answer(message: &str, deliveries: Vec<Delivery>) -> Result<HttpResponse, ApiError> {
    let document: Vec<DeliveryDto> = deliveries.into_iter().map(DeliveryDto::from).collect();
    Ok(HttpResponse::Ok().json(Envelope::list(message, document, Vec::new())))
}

/// Queues a test event (`TESTE`) for the subscription, answered with its outcome when asked
/// (beyond the spec).
#[utoipa::path(post, path = "/hooks/{uuid}/test", operation_id = "hook.test", summary = "Evento de teste", description = "Enfileira um evento de teste (`TESTE`) para a assinatura, no lugar de um teste anterior que aguarda nova tentativa; um por vez em envio. Com `wait=true`, responde com o resultado: a primeira tentativa (o status do receptor ou o erro), ou a entrega como está se o envio passar do tempo do remetente (no máximo 15 s).", tag = "eventos", security(("bearer" = [])),
    params(
        ("uuid" = String, Path),
        ("wait" = Option<bool>, Query, description = "true: aguarda a primeira tentativa e responde com ela"),
    ),
    responses(
        (status = 200, description = "A entrega do evento de teste (com a primeira tentativa, se `wait=true`)", body = DeliveriesEnvelope),
        (status = 400, description = "Assinatura inativa", body = ErrorEnvelope),
        (status = 409, description = "Um evento de teste desta assinatura está sendo enviado", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn send_test(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let uuid = hook_uuid(&path)?;
    let wait = wait_for_outcome(&query)?;
    let delivery = state.hooks.send_test(&user.0, uuid, wait).await?;
    let message = if delivery.attempts.is_empty() {
        "Evento de teste enfileirado."
    } else {
        "Evento de teste enviado."
    };
    deliveries_answer(message, vec![delivery])
}

/// The subscription's delivery log, newest first, a page at a time, with every attempt (beyond
/// the spec).
#[utoipa::path(get, path = "/hooks/{uuid}/deliveries", operation_id = "hook.deliveries", summary = "Entregas", description = "As entregas da assinatura, da mais nova à mais antiga, uma página por vez, com cada tentativa. A próxima página vem de `cursor` = `data.nextCursor`.", tag = "eventos", security(("bearer" = [])),
    params(
        ("uuid" = String, Path),
        ("limit" = Option<i64>, Query, description = "Tamanho da página: 1 a 100 (padrão 100)"),
        ("cursor" = Option<String>, Query, description = "O `data.nextCursor` da página anterior"),
    ),
    responses(
        (status = 200, description = "Uma página: `document` com as entregas; `data.nextCursor` (null na última)", body = DeliveryLogEnvelope),
        (status = 400, description = "Parâmetro desconhecido ou valor inválido, nomeado em `errors`", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn deliveries(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let uuid = hook_uuid(&path)?;
    let page = DeliveryPage::parse(&query)?;
    let log = state.hooks.deliveries(&user.0, uuid, page).await?;
    let document: Vec<DeliveryDto> = log.deliveries.into_iter().map(DeliveryDto::from).collect();
    let envelope = Envelope::list("Entregas da assinatura de eventos.", document, Vec::new())
        .with_data(ListPageDto::before(log.next.map(|id| id.to_string())));
    Ok(HttpResponse::Ok().json(envelope))
}

/// Sends a window of the subscription's deliveries again, with their message ids (beyond the spec).
#[utoipa::path(post, path = "/hooks/{uuid}/replay", operation_id = "hook.replay", summary = "Reenviar janela de entregas", description = "Torna devidas de novo as entregas da assinatura criadas na janela `[since, until)` (no máximo 7 dias; `until` ausente vale agora), com os mesmos `webhook-id` e corpos: o receptor descarta o que já aplicou. Eventos de teste e entregas em envio ficam de fora. Um reenvio por vez: enquanto houver entrega do anterior aguardando, 409. Um pedido reenvia no máximo `HOOKS_REPLAY_MAX_DELIVERIES` entregas (10.000): uma janela com mais é recusada inteira com 400 nomeando `since` (reduza a janela).", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path)),
    request_body = ReplayBody,
    responses(
        (status = 200, description = "Quantas entregas foram reenfileiradas", body = ReplayEnvelope),
        (status = 400, description = "Janela inválida (nomeada em `errors`) ou assinatura inativa", body = ErrorEnvelope),
        (status = 409, description = "Um reenvio desta assinatura ainda tem entregas aguardando", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn replay(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<ReplayBody>,
) -> Result<HttpResponse, ApiError> {
    let uuid = hook_uuid(&path)?;
    let request = body.into_inner().read()?;
    let replay = state.hooks.replay(&user.0, uuid, request).await?;
    let message = format!("Reenvio agendado: {} entrega(s).", replay.deliveries);
    Ok(HttpResponse::Ok().json(Envelope::data(
        message,
        ReplayDto {
            since: iso(replay.window.since),
            until: iso(replay.window.until),
            deliveries: replay.deliveries,
        },
    )))
}

/// Makes a delivery due now: one more attempt, whatever its state (beyond the spec).
#[utoipa::path(post, path = "/hooks/{uuid}/deliveries/{id}/retry", operation_id = "hook.retryDelivery", summary = "Reenviar entrega", description = "Torna uma entrega devida agora: mais uma tentativa, qualquer que seja seu estado. Um evento de teste reenviado toma o lugar de outro que espera nova tentativa, e é recusado com 409 `teste_em_andamento` enquanto um teste da assinatura está sendo enviado.", tag = "eventos", security(("bearer" = [])),
    params(("uuid" = String, Path), ("id" = i64, Path)),
    responses(
        (status = 200, body = DeliveriesEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 409, description = "A entrega é um evento de teste e um teste desta assinatura está sendo enviado", body = ErrorEnvelope),
        (status = 503, body = ErrorEnvelope),
    ))]
pub async fn retry(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (uuid, id) = path.into_inner();
    let delivery_id: i64 = id.parse().map_err(|_| ApiError::new(ErrorCode::DeliveryNotFound))?;
    let delivery = state.hooks.retry(&user.0, hook_uuid(&uuid)?, delivery_id).await?;
    deliveries_answer("Entrega reagendada.", vec![delivery])
}

/// Under `/hooks`: routes 17 and 18 and the management of one subscription.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        // The key applies to the creating POST only (the middleware passes other methods).
        web::resource("")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create))
            .route(web::get().to(list)),
    )
    .service(
        web::resource("/{uuid}")
            .route(web::get().to(get))
            .route(web::patch().to(update))
            .route(web::delete().to(delete)),
    )
    .service(web::resource("/{uuid}/rotateSecret").route(web::post().to(rotate_secret)))
    .service(
        web::resource("/{uuid}/test")
            .wrap(from_fn(idempotent))
            .route(web::post().to(send_test)),
    )
    .service(web::resource("/{uuid}/deliveries").route(web::get().to(deliveries)))
    .service(
        web::resource("/{uuid}/replay")
            .wrap(from_fn(idempotent))
            .route(web::post().to(replay)),
    )
    .service(
        web::resource("/{uuid}/deliveries/{id}/retry")
            .wrap(from_fn(idempotent))
            .route(web::post().to(retry)),
    );
}
