//! The person's own pages (decisions 287 and 288): `/privacidade` takes a CPF, what the person
//! wants and an e-mail; `/privacidade/link` is where the mailed link lands, to confirm a request
//! or to give and revoke consents. Plain HTML forms, no script: they work in any browser and
//! under the pages' `Content-Security-Policy`. Each page calls one use case of
//! `domain::privacy::person_channel`; its refusals are the API's (`ApiError`), shown as a page.
//! `/documentos/{token}` (decision 289, [`documents`]) is where a proponent sends the documents
//! the insurer asked of them.

pub mod documents;

use crate::http::auth::ClientAddress;
use crate::http::error::ApiError;
use crate::http::html::accepts_json;
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::contract::formats::{brasilia, cnpj, date, instant};
use domain::input::Field;
use domain::privacy::consents::{CONSENT_TEXT_VERSION, ConsentPurpose};
use domain::privacy::person_channel::{Client, LinkAsk, LinkPurpose, OpenedLink};
use domain::privacy::subject_requests::SubjectRequest;
use domain::validation::Violations;
use minijinja::{Environment, Value, context};
use serde::Deserialize;
use std::sync::OnceLock;

/// The one answer of the ask page, whatever happened behind it.
pub const ASKED: &str = "Se o CPF e o e-mail conferirem com os nossos registros, enviaremos a esse e-mail um link para continuar. \
     Ele vale por 30 minutos. Se não chegar, confira a caixa de spam ou fale com o encarregado.";

/// The privacy page, two views: `ask` (the form) and `link` (where the mailed link lands); the
/// documents page, one.
const TEMPLATES: [(&str, &str); 2] = [
    ("person.html", include_str!("templates/person.html")),
    ("documents.html", include_str!("templates/documents.html")),
];

fn templates() -> &'static Environment<'static> {
    static ENVIRONMENT: OnceLock<Environment<'static>> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| crate::http::html::environment(&TEMPLATES))
}

/// The privacy page's `view`, with the contacts every view names at its foot, in `status`.
fn page(
    state: &AppState,
    status: actix_web::http::StatusCode,
    view: &str,
    values: Value,
) -> Result<HttpResponse, ApiError> {
    rendered(state, status, "person.html", view, values)
}

/// The `template`'s `view`, with the contacts every page names at its foot, in `status`.
fn rendered(
    state: &AppState,
    status: actix_web::http::StatusCode,
    template: &str,
    view: &str,
    values: Value,
) -> Result<HttpResponse, ApiError> {
    let contacts = &state.signing.privacy_contacts;
    let frame = context! {
        contacts => context! {
            controller_name => contacts.controller_name,
            controller_cnpj => cnpj(contacts.controller_cnpj.as_str()),
            controller_address => contacts.controller_address,
            dpo_name => contacts.dpo_name,
            dpo_email => contacts.dpo_email.as_str(),
            dpo_channel => contacts.dpo_channel,
        },
        ..values
    };
    let html = templates()
        .get_template(template)
        .and_then(|template| template.render(context! { view, ..frame }))
        .map_err(|error| {
            tracing::error!(%error, template, view, "person page failed");
            ApiError::new(crate::http::error::ErrorCode::Internal)
        })?;
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(html))
}

/// A refusal as a page (or as the API's envelope, for a caller that asked for JSON).
fn refusal(
    state: &AppState,
    request: &HttpRequest,
    error: ApiError,
    view: &str,
    values: Value,
) -> Result<HttpResponse, ApiError> {
    if accepts_json(request) {
        return Err(error);
    }
    let problem = error.message.clone();
    page(state, error.code.status(), view, context! { problem, ..values })
}

fn purposes() -> Vec<Value> {
    LinkPurpose::all()
        .into_iter()
        .map(|p| context! { code => p.code(), label => p.label() })
        .collect()
}

fn valid_minutes(state: &AppState) -> i64 {
    state.person_channel.policy.valid_minutes
}

/// `GET /privacidade`: the form.
pub async fn ask_page(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    page(
        &state,
        actix_web::http::StatusCode::OK,
        "ask",
        context! { purposes => purposes(), valid_minutes => valid_minutes(&state), chosen => "acesso" },
    )
}

/// The ask form's fields.
#[derive(Debug, Deserialize)]
pub struct AskForm {
    cpf: Option<String>,
    pedido: Option<String>,
    email: Option<String>,
}

fn field(value: Option<String>) -> Field<String> {
    match value {
        Some(v) if !v.trim().is_empty() => Field::Given(v),
        _ => Field::Missing,
    }
}

/// `POST /privacidade`: always the same answer, unless a field is malformed or the address asked
/// too often.
pub async fn ask(
    state: web::Data<AppState>,
    request: HttpRequest,
    client: ClientAddress,
    form: web::Form<AskForm>,
) -> Result<HttpResponse, ApiError> {
    let form = form.into_inner();
    let again = context! {
        purposes => purposes(),
        valid_minutes => valid_minutes(&state),
        cpf => form.cpf.clone().unwrap_or_default(),
        email => form.email.clone().unwrap_or_default(),
        chosen => form.pedido.clone().unwrap_or_default(),
    };
    let asked = match LinkAsk::read(field(form.cpf), field(form.pedido), field(form.email)) {
        Ok(asked) => asked,
        Err(violations) => return invalid(&state, &request, violations, again),
    };
    let address = client.0.map(|ip| ip.to_string());
    match state.person_channel.ask(asked, address).await {
        Ok(()) => page(
            &state,
            actix_web::http::StatusCode::OK,
            "ask",
            context! { sent => ASKED },
        ),
        Err(error) => {
            let error = ApiError::from(error);
            let retry = error.retry_after_secs;
            let mut answer = refusal(&state, &request, error, "ask", again)?;
            if let Some(secs) = retry
                && let Ok(value) = header::HeaderValue::from_str(&secs.to_string())
            {
                answer.headers_mut().insert(header::RETRY_AFTER, value);
            }
            Ok(answer)
        }
    }
}

fn invalid(
    state: &AppState,
    request: &HttpRequest,
    violations: Violations,
    values: Value,
) -> Result<HttpResponse, ApiError> {
    if accepts_json(request) {
        return Err(ApiError::invalid(violations));
    }
    let errors: Vec<Value> = violations
        .errors()
        .iter()
        .map(|e| context! { field => e.field, message => e.message })
        .collect();
    page(
        state,
        actix_web::http::StatusCode::BAD_REQUEST,
        "ask",
        context! { errors, ..values },
    )
}

#[derive(Debug, Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// What a link page shows of an opened link.
fn link_values(opened: &OpenedLink, token: &str) -> Value {
    let link = &opened.link;
    let common = context! {
        token,
        cpf => link.cpf.masked(),
        sent_to => link.sent_to,
        expires => instant(link.expires_at),
    };
    match (&link.purpose, &opened.consents) {
        (LinkPurpose::Request(kind), _) => context! { request => kind.label(), ..common },
        (LinkPurpose::Consents, consents) => {
            let consents = consents.clone().unwrap_or_default();
            let rows: Vec<Value> = ConsentPurpose::ALL
                .into_iter()
                .map(|purpose| {
                    let standing = consents.stands(purpose);
                    context! {
                        code => purpose.code(),
                        text => purpose.text(),
                        granted => standing.map(|s| s.granted),
                        since => standing.map(|s| instant(s.at)),
                    }
                })
                .collect();
            context! {
                consents => rows,
                blocked => consents.blocked,
                version => CONSENT_TEXT_VERSION,
                ..common
            }
        }
    }
}

/// `GET /privacidade/link?token=`: what the link is for. Nothing changes on opening it (a mail
/// scanner opens links too): the person confirms.
pub async fn link_page(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<TokenQuery>,
) -> Result<HttpResponse, ApiError> {
    let token = query.into_inner().token.unwrap_or_default();
    match state.person_channel.open(&token).await {
        Ok(opened) => page(
            &state,
            actix_web::http::StatusCode::OK,
            "link",
            link_values(&opened, &token),
        ),
        Err(error) => refusal(&state, &request, error.into(), "link", context! {}),
    }
}

#[derive(Debug, Deserialize)]
pub struct RequestForm {
    token: Option<String>,
}

fn filed_values(filed: &SubjectRequest) -> Value {
    context! {
        filed => context! {
            kind => filed.kind.label(),
            protocol => filed.protocol.to_string(),
            deadline => date(filed.deadline.with_timezone(&brasilia()).date_naive()),
        }
    }
}

/// `POST /privacidade/link/pedido`: files the request, once.
pub async fn file_request(
    state: web::Data<AppState>,
    request: HttpRequest,
    form: web::Form<RequestForm>,
) -> Result<HttpResponse, ApiError> {
    let token = form.into_inner().token.unwrap_or_default();
    match state.person_channel.file_request(&token).await {
        Ok(filed) => page(
            &state,
            actix_web::http::StatusCode::CREATED,
            "link",
            filed_values(&filed),
        ),
        Err(error) => refusal(&state, &request, error.into(), "link", context! {}),
    }
}

#[derive(Debug, Deserialize)]
pub struct ConsentForm {
    token: Option<String>,
    finalidade: Option<String>,
    concedido: Option<String>,
}

/// `POST /privacidade/link/consentimento`: the person's own consent or revocation, then the
/// consents as they now stand.
pub async fn consent(
    state: web::Data<AppState>,
    request: HttpRequest,
    client: ClientAddress,
    form: web::Form<ConsentForm>,
) -> Result<HttpResponse, ApiError> {
    let form = form.into_inner();
    let token = form.token.unwrap_or_default();
    let mut violations = Violations::new();
    let purpose = ConsentPurpose::parse(form.finalidade.as_deref().unwrap_or_default())
        .map_err(|r| violations.add("finalidade", r.code, r.message))
        .ok();
    let granted = match form.concedido.as_deref() {
        Some("sim") => Some(true),
        Some("nao") => Some(false),
        _ => {
            violations.add(
                "concedido",
                domain::validation::codes::INVALID_VALUE,
                "concedido deve ser sim ou nao",
            );
            None
        }
    };
    let (Some(purpose), Some(granted)) = (purpose, granted) else {
        return Err(ApiError::invalid(violations));
    };
    let user_agent = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(300).collect());
    let client = Client {
        address: client.0.map(|ip| ip.to_string()),
        user_agent,
    };
    let recorded = match state.person_channel.consent(&token, purpose, granted, client).await {
        Ok(record) => record,
        Err(error) => return refusal(&state, &request, error.into(), "link", context! {}),
    };
    let opened = match state.person_channel.open(&token).await {
        Ok(opened) => opened,
        Err(error) => return refusal(&state, &request, error.into(), "link", context! {}),
    };
    let message = if recorded.granted {
        "Consentimento registrado."
    } else {
        "Revogação registrada."
    };
    page(
        &state,
        actix_web::http::StatusCode::CREATED,
        "link",
        context! { recorded => message, ..link_values(&opened, &token) },
    )
}

/// Under `/privacidade`, and `/documentos`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    documents::routes(cfg);
    cfg.service(
        web::scope("/privacidade")
            .service(
                web::resource("")
                    .route(web::get().to(ask_page))
                    .route(web::post().to(ask)),
            )
            .service(web::resource("/link").route(web::get().to(link_page)))
            .service(web::resource("/link/pedido").route(web::post().to(file_request)))
            .service(web::resource("/link/consentimento").route(web::post().to(consent))),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(name: &str, values: Value) -> String {
        let contacts = context! { controller_name => "Seguradora", controller_cnpj => "11.222.333/0001-81" };
        templates()
            .get_template("person.html")
            .and_then(|t| t.render(context! { view => name, contacts, ..values }))
            .unwrap()
    }

    #[test]
    fn the_templates_parse() {
        for (name, source) in TEMPLATES {
            let mut environment = Environment::new();
            environment.add_template(name, source).unwrap();
        }
    }

    #[test]
    fn the_pages_render_and_escape_what_they_show() {
        let ask = render(
            "ask",
            context! { purposes => purposes(), valid_minutes => 30, cpf => "<b>" },
        );
        assert!(ask.contains("&lt;b&gt;"), "{ask}");
        assert!(ask.contains("consentimentos"));
        let sent = render("ask", context! { sent => ASKED });
        assert!(sent.contains("Se o CPF"));
        let problem = render("link", context! { problem => "Link expirado" });
        assert!(problem.contains("Link expirado"));
    }
}
