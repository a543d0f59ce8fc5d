//! Routes 14 to 16 (the payment platform's customer, setup intent and subscription) and the
//! platform's inbound events.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::callback::{SignedCallback, recorded};
use crate::http::envelope::Envelope;
use crate::http::error::ApiError;
use crate::http::idempotency::idempotent;
use crate::routes::dto::{PlatformCustomer, SetupIntentDto};
use crate::routes::schemas::envelope_doc;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope, SubscriptionEnvelope};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use domain::ecommerce::bodies::{CpfBody, SubscriptionBody};
use serde::Serialize;
use utoipa::ToSchema;

envelope_doc!(PlatformCustomerEnvelope, document = PlatformCustomer);
envelope_doc!(SetupIntentEnvelope, document = SetupIntentDto);

fn single<T: Serialize>(message: &str, status: actix_web::http::StatusCode, item: T) -> HttpResponse {
    HttpResponse::build(status).json(Envelope::list(message, vec![item], Vec::new()))
}

/// Route 14: the customer (by CPF) on the payment platform, created once.
#[utoipa::path(post, path = "/ecommerce/createCustomer", operation_id = "ecommerce.createCustomer", summary = "Cliente na plataforma de pagamento (rota 14)", description = "O cliente (por CPF) na plataforma de pagamento, criado uma única vez.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = CpfBody, example = json!({"cpf": "52998224725"})),
    responses(
        (status = 201, body = PlatformCustomerEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Cliente não encontrado", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope), (status = 504, body = ErrorEnvelope),
    ))]
pub async fn create_customer(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<CpfBody>,
) -> Result<HttpResponse, ApiError> {
    let customer_id = state
        .ecommerce
        .create_customer(&user.0, &body.into_inner().read()?)
        .await?;
    Ok(single(
        "Cliente da plataforma de pagamento.",
        actix_web::http::StatusCode::CREATED,
        PlatformCustomer { customer_id },
    ))
}

/// Route 15: a SetupIntent for off-session card use.
#[utoipa::path(post, path = "/ecommerce/createSetupIntent", operation_id = "ecommerce.createSetupIntent", summary = "SetupIntent (rota 15)", description = "Um SetupIntent para salvar o cartão do comprador; o clientSecret nunca é registrado.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = CpfBody, example = json!({"cpf": "52998224725"})),
    responses(
        (status = 200, body = SetupIntentEnvelope),
        (status = 400, description = "CPF inválido, ou cliente sem cadastro na plataforma (chame a rota 14 antes)", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope), (status = 504, body = ErrorEnvelope),
    ))]
pub async fn create_setup_intent(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<CpfBody>,
) -> Result<HttpResponse, ApiError> {
    let intent = state
        .ecommerce
        .create_setup_intent(&user.0, &body.into_inner().read()?)
        .await?;
    let answer = SetupIntentDto {
        id: intent.id,
        client_secret: intent.client_secret,
    };
    Ok(single("SetupIntent criado.", actix_web::http::StatusCode::OK, answer))
}

/// Route 16: the recurring subscription of an e-commerce proposal; an active one moves the
/// proposal to `EM ANÁLISE`.
#[utoipa::path(post, path = "/ecommerce/createSubscription", operation_id = "ecommerce.createSubscription", summary = "Assinatura recorrente (rota 16)", description = "A assinatura recorrente de uma proposta de e-commerce; ativa, move a proposta para EM ANÁLISE.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = SubscriptionBody, example = json!({"identifier": "4c938c72-29ae-4a6a-81f4-b5a436aceab9"})),
    responses(
        (status = 201, description = "O objeto de assinatura da plataforma", body = SubscriptionEnvelope),
        (status = 400, description = "Assinatura já ativa, cliente sem plataforma ou forma de pagamento, ou cartão recusado", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Proposta não encontrada para o identificador", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope),
        (status = 502, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope), (status = 504, body = ErrorEnvelope),
    ))]
pub async fn create_subscription(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<SubscriptionBody>,
) -> Result<HttpResponse, ApiError> {
    let identifier = body.into_inner().read()?;
    let subscription = state.ecommerce.create_subscription(&user.0, &identifier).await?;
    let document = vec![subscription.object];
    Ok(HttpResponse::Created().json(Envelope::list("Assinatura criada.", document, Vec::new())))
}

/// The payment platform's events, verified by `Stripe-Signature`.
#[utoipa::path(post, path = "/callbacks/payment", operation_id = "callback.payment", summary = "Eventos da plataforma de pagamento", description = "Eventos da plataforma de pagamento, verificados por `Stripe-Signature`, cada um aplicado uma vez.", tag = "e-commerce",
    request_body(content = Object, description = "Evento da plataforma, assinado com Stripe-Signature"),
    responses(
        (status = 200, body = MessageEnvelope),
        (status = 400, description = "Evento ilegível ou fora da tolerância de tempo", body = ErrorEnvelope),
        (status = 401, description = "Assinatura inválida", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn callback(state: web::Data<AppState>, callback: SignedCallback) -> Result<HttpResponse, ApiError> {
    let fresh = state
        .ecommerce
        .platform_event(&callback.headers, &callback.body)
        .await?;
    Ok(recorded(fresh))
}

/// Under `/ecommerce`: routes 14 to 16.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/createCustomer")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_customer)),
    )
    .service(
        web::resource("/createSetupIntent")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_setup_intent)),
    )
    .service(
        web::resource("/createSubscription")
            .wrap(from_fn(idempotent))
            .route(web::post().to(create_subscription)),
    );
}

/// Under `/callbacks`: the payment platform's events.
pub fn callback_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/payment").route(web::post().to(callback)));
}
