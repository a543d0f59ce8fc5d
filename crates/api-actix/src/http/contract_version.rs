//! The contract version of each request (`Sales-Version`, issue 49): the one the request names,
//! else the one pinned to the caller's credential, else the version of a credential never pinned.
//! Handlers write the newest shapes; an answer an older version reads otherwise is turned into
//! that version's shape here, by the changes of `contract_versions`, and every answer names the
//! version it is in.

use crate::http::auth::AuthenticatedUser;
use crate::http::error::{ApiError, ErrorCode};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage, HttpRequest, ResponseError, web};
use contract_versions::{AnswerShapes, ApiVersion, UnknownVersion};

/// The header a request names its version in, and every answer says its version in.
pub const SALES_VERSION: HeaderName = HeaderName::from_static("sales-version");

/// The version the request named, if it named one (kept on the request by [`contract_version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RequestedVersion(ApiVersion);

/// The version `request` reads: named, pinned to its caller, or that of a credential never pinned.
pub fn version_of(request: &HttpRequest) -> ApiVersion {
    let extensions = request.extensions();
    if let Some(RequestedVersion(named)) = extensions.get::<RequestedVersion>() {
        return *named;
    }
    extensions
        .get::<AuthenticatedUser>()
        .and_then(|user| user.1)
        .unwrap_or(ApiVersion::UNPINNED)
}

/// Reads `Sales-Version` (400 `versao_desconhecida` naming the known ones when it names none),
/// then answers in the request's version.
pub async fn contract_version(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    if let Some(value) = request.headers().get(&SALES_VERSION) {
        match value.to_str().ok().map(ApiVersion::parse) {
            Some(Ok(named)) => {
                request.extensions_mut().insert(RequestedVersion(named));
            }
            refused => {
                let unknown = match refused {
                    Some(Err(unknown)) => unknown,
                    _ => UnknownVersion {
                        given: String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    },
                };
                let error = ApiError::unknown_version("Sales-Version", &unknown);
                let mut response = request.into_response(error.error_response());
                name_version(response.headers_mut(), ApiVersion::UNPINNED);
                return Ok(response);
            }
        }
    }
    // Where each change applies in each answer, read once from the newest document (`app`).
    let shapes = request.app_data::<web::Data<AnswerShapes>>().cloned();
    let response = next.call(request).await?.map_into_boxed_body();
    let version = version_of(response.request());
    let mut response = match shapes {
        Some(shapes) if differs(&response, version, &shapes) => in_version(response, version, &shapes).await?,
        _ => response,
    };
    name_version(response.headers_mut(), version);
    Ok(response)
}

/// Says the answer's version, unless its handler already did (the OpenAPI document of a version
/// asked for by its query).
fn name_version(headers: &mut actix_web::http::header::HeaderMap, version: ApiVersion) {
    if !headers.contains_key(SALES_VERSION) {
        headers.insert(SALES_VERSION, HeaderValue::from_static(version.as_str()));
    }
}

/// Whether a caller of `version` reads this answer otherwise than as written.
fn differs(response: &ServiceResponse<BoxBody>, version: ApiVersion, shapes: &AnswerShapes) -> bool {
    if version == ApiVersion::NEWEST || !is_json(response) {
        return false;
    }
    let request = response.request();
    request
        .match_pattern()
        .is_some_and(|route| shapes.differs(version, request.method().as_str(), &route, response.status().as_u16()))
}

fn is_json(response: &ServiceResponse<BoxBody>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The answer's newest body turned into `version`'s, rewritten along its changed members only. A
/// body that does not read as JSON (none of ours) goes out as it was.
async fn in_version(
    response: ServiceResponse<BoxBody>,
    version: ApiVersion,
    shapes: &AnswerShapes,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    let bytes = actix_web::body::to_bytes(body)
        .await
        .map_err(|_| Error::from(ApiError::new(ErrorCode::Internal)))?;
    let route = request.match_pattern().unwrap_or_default();
    let rewritten = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| {
            shapes.downgrade_text(version, request.method().as_str(), &route, head.status().as_u16(), text)
        })
        .map_or(bytes, Into::into);
    Ok(ServiceResponse::new(request, head.set_body(BoxBody::new(rewritten))))
}
