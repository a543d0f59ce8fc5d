//! Read-your-writes across replicas and instances, with nothing kept in process memory.
//!
//! A successful write (`POST`, `PUT`, `PATCH`, `DELETE` answered 2xx) carries `Sales-Read-After`:
//! the primary's WAL position once the write committed. A client that sends that value back on
//! its next requests has every read that may go to a replica served by one that has replayed up to
//! it, else by the primary (`adapters_postgres::replicas`). Without replicas no position is asked
//! for or answered, and a position sent is only checked.

use crate::http::error::{ApiError, ErrorCode};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError, web};
use adapters_postgres::{Lsn, ReadAfter, ReadPools, reading_after};

/// The header a write answers and a later request sends back (lower case, as HTTP/2 writes it).
pub const READ_AFTER_HEADER: &str = "sales-read-after";

/// The position a request asks its reads to have reached: absent, or what a write answered.
fn asked_position(request: &ServiceRequest) -> Result<Option<Lsn>, ApiError> {
    let Some(value) = request.headers().get(READ_AFTER_HEADER) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|text| text.trim().parse::<Lsn>().ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::with_message(
                ErrorCode::BadRequest,
                "Cabeçalho Sales-Read-After inválido: envie o valor recebido na resposta de uma escrita \
                 (por exemplo 0/16B3748).",
            )
        })
}

fn writes(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE)
}

pub async fn read_your_writes(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let asked = match asked_position(&request) {
        Ok(asked) => asked,
        Err(refused) => {
            let response = refused.error_response();
            return Ok(request.into_response(response));
        }
    };
    // Only with replicas is there a position worth answering.
    let reads = request
        .app_data::<web::Data<ReadPools>>()
        .filter(|reads| reads.has_replicas() && writes(request.method()))
        .cloned();
    let mut response = reading_after(asked.map(ReadAfter::Position), next.call(request))
        .await?
        .map_into_boxed_body();
    let Some(reads) = reads.filter(|_| response.status().is_success()) else {
        return Ok(response);
    };
    match reads.write_position().await {
        Ok(Some(position)) => {
            if let Ok(value) = HeaderValue::from_str(&position.to_string()) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static(READ_AFTER_HEADER), value);
            }
        }
        Ok(None) => {}
        // The write stands; without the position the client's next reads may be a little behind.
        Err(error) => tracing::warn!(%error, "posição do primário não lida após a escrita"),
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn a_position_is_read_from_the_header_and_anything_else_is_refused() {
        let request = TestRequest::default()
            .insert_header((READ_AFTER_HEADER, "16/B374D848"))
            .to_srv_request();
        assert_eq!(asked_position(&request).unwrap(), Some("16/B374D848".parse().unwrap()));
        assert_eq!(asked_position(&TestRequest::default().to_srv_request()).unwrap(), None);
        for bad in ["", "16", "x/1", "1/2/3"] {
            let request = TestRequest::default()
                .insert_header((READ_AFTER_HEADER, bad))
                .to_srv_request();
            let refused = asked_position(&request).unwrap_err();
            assert!(
                refused.to_string().contains("Sales-Read-After") || format!("{refused:?}").contains("Sales-Read-After")
            );
        }
    }

    #[test]
    fn only_changing_methods_are_writes() {
        assert!(writes(&Method::POST) && writes(&Method::PUT) && writes(&Method::PATCH) && writes(&Method::DELETE));
        assert!(!writes(&Method::GET) && !writes(&Method::HEAD) && !writes(&Method::OPTIONS));
    }
}
