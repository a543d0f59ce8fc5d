//! The back office's console at `/console`: one page (sign-in and the frame) and the HTML
//! fragments htmx swaps into it, rendered with minijinja from the same use cases as the API. The
//! page, htmx (2.0.4, vendored: no outside CDN), the script and the stylesheet are inside the
//! binary. The console keeps the access token in the browser tab and sends it as a bearer token
//! on every request, so the fragments are authenticated and scoped exactly as the API is; no
//! cookie, so no cross-site request can act for a signed-in user.

mod views;

use crate::http::auth::AuthenticatedUser;
use crate::http::error::{ApiError, ErrorCode};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use domain::acceptance::pending::PendingBody;
use domain::acceptance::queue::QueueQuery;
use domain::input::Field;
use domain::privacy::subject_requests::{AnswerForm, QueueFilter, SubjectRequestBody};
use domain::proposals::bodies::{StatusChangeBody, WithdrawBody};
use domain::proposals::search::ProposalSearch;
use domain::values::Application;
use domain::values::ProposalStatus;
use futures_util::future::LocalBoxFuture;
use minijinja::{Environment, Value, context};
use serde::Deserialize;
use std::sync::OnceLock;

const TEMPLATES: [(&str, &str); 10] = [
    ("debits.html", include_str!("templates/debits.html")),
    ("privacy_requests.html", include_str!("templates/privacy_requests.html")),
    ("privacy_request.html", include_str!("templates/privacy_request.html")),
    ("queue.html", include_str!("templates/queue.html")),
    ("shell.html", include_str!("templates/shell.html")),
    ("proposals.html", include_str!("templates/proposals.html")),
    ("proposal.html", include_str!("templates/proposal.html")),
    ("hooks.html", include_str!("templates/hooks.html")),
    ("deliveries.html", include_str!("templates/deliveries.html")),
    ("catalog.html", include_str!("templates/catalog.html")),
];

const HTMX: &str = include_str!("assets/htmx-2.0.4.min.js");
const SCRIPT: &str = include_str!("assets/console.js");
const STYLESHEET: &str = include_str!("assets/console.css");

/// The templates, parsed once (HTML-escaped: every `.html` name auto-escapes).
fn templates() -> &'static Environment<'static> {
    static ENVIRONMENT: OnceLock<Environment<'static>> = OnceLock::new();
    ENVIRONMENT.get_or_init(|| crate::http::html::environment(&TEMPLATES))
}

fn render(name: &str, values: Value) -> Result<HttpResponse, ApiError> {
    let html = templates()
        .get_template(name)
        .and_then(|template| template.render(values))
        .map_err(|error| {
            tracing::error!(%error, template = name, "console template failed");
            ApiError::new(ErrorCode::Internal)
        })?;
    Ok(HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html))
}

fn asset(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .body(body)
}

/// A user signed in to the back office: the console's fragments answer 403 to any other
/// application's token (a partner's token would read its own scope, but the console is the back
/// office's tool, and its actions are the back office's).
pub struct BackOfficeUser(AuthenticatedUser);

impl FromRequest for BackOfficeUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let user = AuthenticatedUser::from_request(req, payload);
        Box::pin(async move {
            let user = user.await?;
            user.require(&[Application::BackOffice])
                .map_err(|_| ApiError::with_message(ErrorCode::Forbidden, CONSOLE_IS_THE_BACK_OFFICES))?;
            Ok(Self(user))
        })
    }
}

const CONSOLE_IS_THE_BACK_OFFICES: &str = "O console é do back office: entre com um usuário da aplicação BACKOFFICE.";

/// The page: sign-in, then the frame the fragments fill.
pub async fn shell() -> Result<HttpResponse, ApiError> {
    render("shell.html", context! {})
}

/// The proposals, with the list's filters and paging.
pub async fn proposals(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let search = ProposalSearch::parse(&query)?;
    let page = state.proposals.list(&user.0, &search).await?;
    render("proposals.html", views::proposal_page(&query, &search, page))
}

/// One proposal: its facts, documents, the decision form and the timeline.
pub async fn proposal(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    show_proposal(&state, &user, &path).await
}

/// The proposal's page, as the signed-in user sees it.
async fn show_proposal(state: &AppState, user: &AuthenticatedUser, identifier: &str) -> Result<HttpResponse, ApiError> {
    let (detail, history) = state.proposals.dossier(&user.0, identifier).await?;
    render("proposal.html", views::proposal(detail, history, &user.0.email))
}

#[derive(Deserialize)]
pub struct DecisionForm {
    status: String,
    reason: String,
    /// A refusal's category (decision 283); the console's form offers the list.
    #[serde(default, rename = "reasonCategory")]
    reason_category: Option<String>,
}

/// Approves, refuses or cancels with a reason (required here: the console records why), then
/// shows the proposal again.
pub async fn decide(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<DecisionForm>,
) -> Result<HttpResponse, ApiError> {
    let DecisionForm {
        status,
        reason,
        reason_category,
    } = form.into_inner();
    let decision = StatusChangeBody {
        status: Field::Given(status),
        reason: Field::Given(reason),
        reason_category: reason_category
            .filter(|c| !c.is_empty())
            .map_or(Field::Missing, Field::Given),
    }
    .read_with_reason()?;
    let reason = decision.reason.unwrap_or_default();
    if decision.status == ProposalStatus::Cancelled {
        // A cancellation is the customer's request: under a protocol, the envelope closed first.
        state.settlement.cancel(&user.0, &path, reason).await?;
    } else {
        state
            .settlement
            .change_status(&user.0, &path, decision.status, Some(reason), decision.reason_category)
            .await?;
    }
    show_proposal(&state, &user, &path).await
}

#[derive(Deserialize)]
pub struct WithdrawalForm {
    #[serde(default)]
    reason: String,
}

/// Records the customer's regret (CDC art. 49) on a concluded sale: the same use case as
/// `POST /proposal/{identificador}/withdraw` (refunds, the subscription cancelled, a protocol),
/// then shows the proposal again.
pub async fn withdraw(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<WithdrawalForm>,
) -> Result<HttpResponse, ApiError> {
    let body = WithdrawBody {
        // Blank is "not given", as in the route's JSON body.
        reason: Field::Given(form.into_inner().reason),
    };
    let reason = body.read()?;
    state.withdrawal.withdraw(&user.0, &path, reason).await?;
    show_proposal(&state, &user, &path).await
}

/// The analyst's queue: the proposals in analysis, the overdue first, then by deadline.
pub async fn queue(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    show_queue(&state, &user, &query).await
}

async fn show_queue(
    state: &AppState,
    user: &AuthenticatedUser,
    query: &[(String, String)],
) -> Result<HttpResponse, ApiError> {
    let search = QueueQuery::parse(query, &user.0.email)?;
    let page = state.acceptance.queue(&user.0, &search).await?;
    render("queue.html", views::queue(query, page, &user.0.email))
}

#[derive(Deserialize)]
pub struct AssignmentForm {
    /// A back-office user's e-mail; blank assigns to no one.
    #[serde(default)]
    analyst: String,
    /// The queue's filter to show again (when assigned from the queue).
    #[serde(default)]
    assigned: String,
}

/// Assigns the proposal from its page, then shows it again.
pub async fn assign(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<AssignmentForm>,
) -> Result<HttpResponse, ApiError> {
    state
        .acceptance
        .assign(&user.0, &path, Some(form.analyst.as_str()))
        .await?;
    show_proposal(&state, &user, &path).await
}

/// Assigns the proposal from the queue, then shows the queue again with its filter.
pub async fn assign_in_queue(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<AssignmentForm>,
) -> Result<HttpResponse, ApiError> {
    let AssignmentForm { analyst, assigned } = form.into_inner();
    state.acceptance.assign(&user.0, &path, Some(analyst.as_str())).await?;
    show_queue(&state, &user, &[("assigned".to_owned(), assigned)]).await
}

#[derive(Deserialize)]
pub struct DocumentsForm {
    /// One document per line.
    #[serde(default)]
    items: String,
    #[serde(default)]
    note: String,
    /// The request's category (decision 289): who answers it follows from it.
    #[serde(default, rename = "reasonCategory")]
    reason_category: String,
}

/// Asks for documents (the same use case as `POST /proposal/{identificador}/pending`), then shows
/// the proposal again.
pub async fn request_documents(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<DocumentsForm>,
) -> Result<HttpResponse, ApiError> {
    let DocumentsForm {
        items,
        note,
        reason_category,
    } = form.into_inner();
    let request = PendingBody {
        items: Field::Given(
            items
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| Field::Given(line.to_owned()))
                .collect(),
        ),
        // Blank is "not given", as in the route's JSON body.
        note: Field::Given(note),
        reason_category: Field::Given(reason_category),
    }
    .read()?;
    state.documents.request_documents(&user.0, &path, request).await?;
    show_proposal(&state, &user, &path).await
}

/// A file the seller sent with an answer, shown in the browser (never run: its type was read
/// from its content when it arrived, and the answer says so).
pub async fn pending_file(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (identifier, file_id) = path.into_inner();
    let file = state.acceptance.pending_file(&user.0, &identifier, file_id).await?;
    let disposition = header::ContentDisposition {
        disposition: header::DispositionType::Inline,
        parameters: vec![header::DispositionParam::Filename(file.name)],
    };
    Ok(HttpResponse::Ok()
        .content_type(file.content_type)
        .insert_header((header::CONTENT_DISPOSITION, disposition))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(file.bytes))
}

/// The caller's webhook subscriptions.
pub async fn hooks(state: web::Data<AppState>, BackOfficeUser(user): BackOfficeUser) -> Result<HttpResponse, ApiError> {
    let subscriptions = state.hooks.all(&user.0).await?;
    render("hooks.html", views::hooks(subscriptions))
}

fn hook_uuid(raw: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(raw).map_err(|_| ApiError::new(ErrorCode::HookNotFound))
}

/// One subscription's delivery log.
pub async fn deliveries(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let uuid = hook_uuid(&path)?;
    let (subscription, deliveries) = state.hooks.delivery_log(&user.0, uuid).await?;
    render("deliveries.html", views::deliveries(&subscription, deliveries, None))
}

/// Makes a delivery due now, then shows the log again.
pub async fn retry(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (uuid, delivery_id) = path.into_inner();
    let uuid = hook_uuid(&uuid)?;
    state.hooks.retry(&user.0, uuid, delivery_id).await?;
    let (subscription, deliveries) = state.hooks.delivery_log(&user.0, uuid).await?;
    let notice = format!("Entrega {delivery_id} reagendada: uma nova tentativa sai em instantes.");
    render(
        "deliveries.html",
        views::deliveries(&subscription, deliveries, Some(notice)),
    )
}

/// Products (with their terms) and billing groups.
/// Débito em conta's files sent and read (issue 46), the newest 100.
pub async fn debit_files(
    state: web::Data<AppState>,
    BackOfficeUser(_user): BackOfficeUser,
) -> Result<HttpResponse, ApiError> {
    let files = state.debits.files(100).await?;
    render("debits.html", views::debit_files(files))
}

pub async fn catalog(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
) -> Result<HttpResponse, ApiError> {
    let overview = state.catalog.overview(&user.0).await?;
    render("catalog.html", views::catalog(overview))
}

#[derive(Deserialize)]
pub struct SubjectRequestsQuery {
    #[serde(default)]
    situacao: String,
}

/// The data-subject requests: open by deadline (the overdue first) or answered.
pub async fn subject_requests(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    query: web::Query<SubjectRequestsQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = QueueFilter::parse(&query.situacao)?;
    show_subject_requests(&state, &user, filter, None).await
}

async fn show_subject_requests(
    state: &AppState,
    user: &AuthenticatedUser,
    filter: QueueFilter,
    notice: Option<String>,
) -> Result<HttpResponse, ApiError> {
    let (requests, now) = state.subject_requests.queue(&user.0, filter).await?;
    render(
        "privacy_requests.html",
        views::subject_requests(filter, requests, now, notice),
    )
}

#[derive(Deserialize)]
pub struct SubjectRequestForm {
    #[serde(default)]
    cpf: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    channel: String,
    #[serde(default)]
    note: String,
}

/// Files a request received by phone, letter or in person (the same use case as
/// `POST /privacy/requests`), then shows the queue with its protocol and deadline.
pub async fn file_subject_request(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    form: web::Form<SubjectRequestForm>,
) -> Result<HttpResponse, ApiError> {
    let SubjectRequestForm {
        cpf,
        kind,
        channel,
        note,
    } = form.into_inner();
    let request = SubjectRequestBody {
        cpf: Field::Given(cpf),
        kind: Field::Given(kind),
        channel: Field::Given(channel),
        // Blank is "not given", as in the route's JSON body.
        note: Field::Given(note),
    }
    .read()?;
    let filed = state.subject_requests.file(&user.0, request).await?;
    let notice = format!(
        "Pedido registrado: protocolo {}, resposta devida até {} (Brasília).",
        filed.protocol,
        filed
            .deadline
            .with_timezone(&domain::contract::formats::brasilia())
            .format("%d/%m/%Y %H:%M")
    );
    show_subject_requests(&state, &user, QueueFilter::Open, Some(notice)).await
}

/// One request: its facts and the answer form, or the answer recorded.
pub async fn subject_request(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let request = state.subject_requests.find(&user.0, &path).await?;
    render(
        "privacy_request.html",
        views::subject_request(request, state.subject_requests.clock.now()),
    )
}

#[derive(Deserialize)]
pub struct SubjectAnswerForm {
    #[serde(default)]
    resposta: String,
    /// Present (`sim`) when the person's data goes with the answer.
    #[serde(default)]
    enviar_dados: String,
}

/// Records the answer (sending the person's data first when asked), then shows the request.
pub async fn answer_subject_request(
    state: web::Data<AppState>,
    BackOfficeUser(user): BackOfficeUser,
    path: web::Path<String>,
    form: web::Form<SubjectAnswerForm>,
) -> Result<HttpResponse, ApiError> {
    let SubjectAnswerForm { resposta, enviar_dados } = form.into_inner();
    let answer = AnswerForm::read(resposta, !enviar_dados.is_empty())?;
    let answered = state.subject_requests.answer(&user.0, &path, answer).await?;
    render(
        "privacy_request.html",
        views::subject_request(answered, state.subject_requests.clock.now()),
    )
}

pub async fn htmx() -> HttpResponse {
    asset("text/javascript; charset=utf-8", HTMX)
}

pub async fn script() -> HttpResponse {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

pub async fn stylesheet() -> HttpResponse {
    asset("text/css; charset=utf-8", STYLESHEET)
}

/// Under `/console`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("").route(web::get().to(shell)))
        .service(web::resource("/").route(web::get().to(shell)))
        .service(web::resource("/assets/htmx-2.0.4.min.js").route(web::get().to(htmx)))
        .service(web::resource("/assets/console.js").route(web::get().to(script)))
        .service(web::resource("/assets/console.css").route(web::get().to(stylesheet)))
        .service(web::resource("/proposals").route(web::get().to(proposals)))
        .service(web::resource("/proposals/{identifier}").route(web::get().to(proposal)))
        .service(web::resource("/proposals/{identifier}/status").route(web::post().to(decide)))
        .service(web::resource("/proposals/{identifier}/withdraw").route(web::post().to(withdraw)))
        .service(web::resource("/proposals/{identifier}/assign").route(web::post().to(assign)))
        .service(web::resource("/proposals/{identifier}/pending").route(web::post().to(request_documents)))
        .service(web::resource("/proposals/{identifier}/pending/files/{file}").route(web::get().to(pending_file)))
        .service(web::resource("/queue").route(web::get().to(queue)))
        .service(web::resource("/queue/{identifier}/assign").route(web::post().to(assign_in_queue)))
        .service(web::resource("/hooks").route(web::get().to(hooks)))
        .service(web::resource("/hooks/{uuid}/deliveries").route(web::get().to(deliveries)))
        .service(web::resource("/hooks/{uuid}/deliveries/{id}/retry").route(web::post().to(retry)))
        .service(web::resource("/catalog").route(web::get().to(catalog)))
        .service(web::resource("/debits").route(web::get().to(debit_files)))
        .service(
            web::resource("/privacy/requests")
                .route(web::get().to(subject_requests))
                .route(web::post().to(file_subject_request)),
        )
        .service(web::resource("/privacy/requests/{protocol}").route(web::get().to(subject_request)))
        .service(web::resource("/privacy/requests/{protocol}/answer").route(web::post().to(answer_subject_request)));
}
