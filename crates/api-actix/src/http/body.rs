//! The typed body extractor: `Body<T>` reads the JSON (under the configured size limit and
//! content type) into one of the domain's body types, whose members tolerate what a client may
//! send wrong, so that the domain reports every bad member at once.

use crate::http::error::ApiError;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use domain::input::Shape;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

/// A request body of type `T`; anything but a JSON object is malformed (422).
pub struct Body<T>(pub T);

impl<T> Body<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: Shape + 'static> FromRequest for Body<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = web::Json::<Value>::from_request(req, payload);
        Box::pin(async move {
            let web::Json(value) = json.await?;
            Ok(Body(domain::input::body(value).map_err(ApiError::from)?))
        })
    }
}
