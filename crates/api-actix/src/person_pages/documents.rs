//! `/documentos/{token}` (decision 289): the page the proponent's mailed link opens, with what the
//! insurer asks, and its upload (a plain form posting `multipart/form-data`: `arquivos`, one to
//! three PDF, JPEG or PNG files of up to 5 MiB, and an optional `nota`). Opening it changes
//! nothing; the upload spends the link. Each handler calls one use case of
//! `domain::acceptance::proponent`.

use super::rendered;
use crate::http::error::ApiError;
use crate::http::html::accepts_json;
use crate::state::AppState;
use actix_multipart::Multipart;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::acceptance::pending::{self, MAX_FILE_BYTES, MAX_FILES};
use domain::acceptance::ports::LinkedRequest;
use domain::contract::formats::{brasilia, date};
use domain::validation::{Violations, codes};
use futures_util::StreamExt;
use minijinja::{Value, context};

/// The longest note the form reads before refusing it (bytes: four per character at most).
const NOTE_MAX_BYTES: usize = pending::PROPONENT_NOTE_MAX_CHARS * 4;

fn request_values(request: &LinkedRequest, token: &str) -> Value {
    context! {
        token,
        identifier => request.identifier,
        product => request.product,
        items => request.items,
        note => request.note,
        requested => date(request.requested_at.with_timezone(&brasilia()).date_naive()),
        max_files => MAX_FILES,
        max_megabytes => MAX_FILE_BYTES / (1024 * 1024),
    }
}

fn page(state: &AppState, status: StatusCode, values: Value) -> Result<HttpResponse, ApiError> {
    rendered(state, status, "documents.html", "documents", values)
}

/// A refusal as the page (or as the API's envelope, for a caller that asked for JSON).
fn refusal(state: &AppState, request: &HttpRequest, error: ApiError) -> Result<HttpResponse, ApiError> {
    if accepts_json(request) {
        return Err(error);
    }
    let problem = error.message.clone();
    page(state, error.code.status(), context! { problem })
}

/// `GET /documentos/{token}`: what is asked, and the form.
pub async fn form(
    state: web::Data<AppState>,
    request: HttpRequest,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    match state.documents.open(&token).await {
        Ok(linked) => page(&state, StatusCode::OK, request_values(&linked, &token)),
        Err(error) => refusal(&state, &request, ApiError::from(error_of(error))),
    }
}

fn error_of(error: domain::acceptance::ports::PendingStoreError) -> domain::acceptance::service::PendingError {
    domain::acceptance::service::PendingError::Recorded(error)
}

/// The form's parts as they arrived: the note and each file's name and bytes; a part too large is
/// named in `violations` (its bytes are not kept).
struct Posted {
    note: Option<String>,
    files: Vec<(String, Vec<u8>)>,
    violations: Violations,
}

/// Reads the form, never more than the limits allow: a file past [`MAX_FILE_BYTES`] or a note
/// past its length stops being read, and parts past the last file allowed are not read at all.
async fn read_form(mut form: Multipart) -> Result<Posted, ApiError> {
    let mut posted = Posted {
        note: None,
        files: Vec::new(),
        violations: Violations::new(),
    };
    let mut index = 0;
    while let Some(part) = form.next().await {
        let mut part = part.map_err(|error| malformed(&error.to_string()))?;
        match part.name() {
            Some("nota") => match part.bytes(NOTE_MAX_BYTES).await {
                Ok(Ok(bytes)) => posted.note = Some(String::from_utf8_lossy(&bytes).into_owned()),
                Ok(Err(error)) => return Err(malformed(&error.to_string())),
                Err(_) => posted.violations.add(
                    "nota",
                    codes::TOO_LONG,
                    format!(
                        "a observação deve ter no máximo {} caracteres",
                        pending::PROPONENT_NOTE_MAX_CHARS
                    ),
                ),
            },
            Some("arquivos") => {
                let name = part
                    .content_disposition()
                    .and_then(|d| d.get_filename())
                    .unwrap_or_default()
                    .to_owned();
                if name.is_empty() {
                    // A file input left empty still posts a part with no name and no bytes.
                    continue;
                }
                if index >= MAX_FILES {
                    posted.violations.add(
                        "arquivos",
                        codes::TOO_MANY,
                        format!("envie no máximo {MAX_FILES} arquivos"),
                    );
                    break;
                }
                match part.bytes(MAX_FILE_BYTES).await {
                    Ok(Ok(bytes)) => posted.files.push((name, bytes.to_vec())),
                    Ok(Err(error)) => return Err(malformed(&error.to_string())),
                    Err(_) => posted.violations.add(
                        format!("arquivos[{index}]"),
                        codes::TOO_LONG,
                        format!(
                            "{name}: o arquivo deve ter no máximo {} MiB",
                            MAX_FILE_BYTES / (1024 * 1024)
                        ),
                    ),
                }
                index += 1;
            }
            // Anything else the form did not ask for is read past, unread.
            _ => {}
        }
    }
    Ok(posted)
}

fn malformed(detail: &str) -> ApiError {
    tracing::info!(detail, "documents form not readable");
    let mut v = Violations::new();
    v.add(
        "arquivos",
        codes::INVALID_VALUE,
        "o formulário não pôde ser lido: envie-o pela página (multipart/form-data)",
    );
    ApiError::invalid(v)
}

/// `POST /documentos/{token}`: the upload, once.
pub async fn upload(
    state: web::Data<AppState>,
    request: HttpRequest,
    token: web::Path<String>,
    form: Multipart,
) -> Result<HttpResponse, ApiError> {
    // An unknown or spent link is told before anything of the form is judged.
    let linked = match state.documents.open(&token).await {
        Ok(linked) => linked,
        Err(error) => return refusal(&state, &request, ApiError::from(error_of(error))),
    };
    let posted = match read_form(form).await {
        Ok(posted) => posted,
        Err(error) => return invalid(&state, &request, error, &linked, &token),
    };
    let answer = match pending::proponent_answer(posted.note, posted.files) {
        Ok(answer) if posted.violations.is_empty() => answer,
        Ok(_) => return invalid(&state, &request, ApiError::invalid(posted.violations), &linked, &token),
        Err(mut violations) => {
            for error in posted.violations.errors() {
                violations.add(error.field.clone(), error.code, error.message.clone());
            }
            return invalid(&state, &request, ApiError::invalid(violations), &linked, &token);
        }
    };
    let sent: Vec<String> = answer.files.iter().map(|f| f.name.clone()).collect();
    match state.documents.answer(&token, answer).await {
        Ok(resumed) => page(
            &state,
            StatusCode::CREATED,
            context! { sent, identifier => resumed.identifier },
        ),
        Err(error) => refusal(&state, &request, ApiError::from(error_of(error))),
    }
}

/// The form again, with what was wrong with it (or the API's 400, for a caller that asked for JSON).
fn invalid(
    state: &AppState,
    request: &HttpRequest,
    error: ApiError,
    linked: &LinkedRequest,
    token: &str,
) -> Result<HttpResponse, ApiError> {
    if accepts_json(request) {
        return Err(error);
    }
    let errors: Vec<Value> = error
        .fields
        .iter()
        .map(|e| context! { field => e.field, message => e.message })
        .collect();
    page(
        state,
        StatusCode::BAD_REQUEST,
        context! { errors, ..request_values(linked, token) },
    )
}

/// Under `/documentos`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/documentos/{token}")
            .route(web::get().to(form))
            .route(web::post().to(upload)),
    );
}
