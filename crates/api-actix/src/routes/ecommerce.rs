//! Routes 14 to 16 (the payment platform's customer, setup intent and subscription) and the
//! platform's inbound events.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::BodyReader;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::routes::schemas::envelope_doc;
use crate::routes::schemas::{ErrorEnvelope, MessageEnvelope, SubscriptionEnvelope};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::validation::Violations;
use domain::values::Cpf;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

envelope_doc!(PlatformCustomerEnvelope, document = PlatformCustomer);
envelope_doc!(SetupIntentEnvelope, document = SetupIntentDto);

#[derive(Serialize, ToSchema)]
pub struct PlatformCustomer {
    /// The platform's customer id (`cus_...`).
    #[serde(rename = "customerId")]
    pub customer_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct SetupIntentDto {
    pub id: String,
    /// For the buyer's browser only: never logged or stored here.
    #[serde(rename = "clientSecret")]
    pub client_secret: String,
}

fn cpf_of(body: &Value) -> Result<Cpf, ApiError> {
    let reader = BodyReader::root(body)?;
    let mut v = Violations::new();
    reader
        .parse(&mut v, "cpf", Cpf::parse)
        .ok_or_else(|| ApiError::invalid(v))
}

fn single<T: Serialize>(message: &str, status: actix_web::http::StatusCode, item: T) -> Result<HttpResponse, ApiError> {
    let document = vec![serde_json::to_value(item).map_err(|_| ApiError::new(ErrorCode::Internal))?];
    Ok(HttpResponse::build(status).json(Envelope::list(message, document, Vec::new())))
}

/// Route 14: the customer (by CPF) on the payment platform, created once.
#[utoipa::path(post, path = "/ecommerce/createCustomer", summary = "Cliente na plataforma de pagamento (rota 14)", description = "O cliente (por CPF) na plataforma de pagamento, criado uma única vez.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = crate::routes::schemas::CpfBody, example = json!({"cpf": "52998224725"})),
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
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let cpf = cpf_of(&body)?;
    let customer_id = state.ecommerce.create_customer(&user.0, &cpf).await?;
    single(
        "Cliente da plataforma de pagamento.",
        actix_web::http::StatusCode::CREATED,
        PlatformCustomer { customer_id },
    )
}

/// Route 15: a SetupIntent for off-session card use.
#[utoipa::path(post, path = "/ecommerce/createSetupIntent", summary = "SetupIntent (rota 15)", description = "Um SetupIntent para salvar o cartão do comprador; o clientSecret nunca é registrado.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = crate::routes::schemas::CpfBody, example = json!({"cpf": "52998224725"})),
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
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let cpf = cpf_of(&body)?;
    let intent = state.ecommerce.create_setup_intent(&user.0, &cpf).await?;
    single(
        "SetupIntent criado.",
        actix_web::http::StatusCode::OK,
        SetupIntentDto {
            id: intent.id,
            client_secret: intent.client_secret,
        },
    )
}

/// Route 16: the recurring subscription of an e-commerce proposal; an active one moves the
/// proposal to `EM ANÁLISE`.
#[utoipa::path(post, path = "/ecommerce/createSubscription", summary = "Assinatura recorrente (rota 16)", description = "A assinatura recorrente de uma proposta de e-commerce; ativa, move a proposta para EM ANÁLISE.", tag = "e-commerce", security(("bearer" = [])),
    request_body(content = crate::routes::schemas::IdentifierBody, example = json!({"identifier": "4c938c72-29ae-4a6a-81f4-b5a436aceab9"})),
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
    body: web::Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let reader = BodyReader::root(&body)?;
    let mut v = Violations::new();
    let Some(identifier) = reader.text(&mut v, "identifier") else {
        return Err(ApiError::invalid(v));
    };
    let subscription = state.ecommerce.create_subscription(&user.0, identifier.trim()).await?;
    let mut response = HttpResponse::Created();
    Ok(response.json(Envelope::list(
        "Assinatura criada.",
        vec![subscription.object],
        Vec::new(),
    )))
}

/// The payment platform's events, verified by `Stripe-Signature`.
#[utoipa::path(post, path = "/callbacks/payment", summary = "Eventos da plataforma de pagamento", description = "Eventos da plataforma de pagamento, verificados por `Stripe-Signature`, cada um aplicado uma vez.", tag = "e-commerce",
    request_body(content = Object, description = "Evento da plataforma, assinado com Stripe-Signature"),
    responses(
        (status = 200, body = MessageEnvelope),
        (status = 400, description = "Evento ilegível ou fora da tolerância de tempo", body = ErrorEnvelope),
        (status = 401, description = "Assinatura inválida", body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn callback(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let headers = crate::http::headers::lowercase_pairs(&request);
    let fresh = state.ecommerce.platform_event(&headers, &body).await?;
    Ok(HttpResponse::Ok().json(Envelope::message(if fresh {
        "Evento registrado."
    } else {
        "Evento já registrado."
    })))
}

/// Under `/ecommerce`: routes 14 to 16.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/createCustomer").route(web::post().to(create_customer)))
        .service(web::resource("/createSetupIntent").route(web::post().to(create_setup_intent)))
        .service(web::resource("/createSubscription").route(web::post().to(create_subscription)));
}

/// Under `/callbacks`: the payment platform's events.
pub fn callback_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/payment").route(web::post().to(callback)));
}
