//! The contract as a document: OpenAPI 3.1 generated from the routes (utoipa), served at
//! `/openapi.json`, and a plain HTML page at `/docs` rendered here from the same document, so that
//! it works offline with no script or asset from elsewhere.

use actix_web::HttpResponse;
use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// Error answer: the spec's envelope with a stable `code` and, for validation failures, `errors`.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    #[schema(example = "error")]
    pub status: String,
    pub message: String,
    /// Stable error code; see docs/errors.md.
    pub code: String,
    #[schema(value_type = Vec<Object>, max_items = 0)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    #[schema(max_items = 0)]
    pub rows_affected: Vec<i64>,
    /// Present on validation failures: every invalid field.
    #[schema(nullable = false)]
    pub errors: Option<Vec<FieldErrorDoc>>,
}

#[derive(Serialize, ToSchema)]
pub struct FieldErrorDoc {
    /// Path of the field, e.g. `customer.cpf`.
    pub field: String,
    /// Stable rule code, e.g. `cpf_digito`.
    pub code: String,
    pub message: String,
}

/// A success envelope with only a message.
#[derive(Serialize, ToSchema)]
pub struct MessageEnvelope {
    #[schema(example = "success")]
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    pub rows_affected: Vec<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct SessionEnvelope {
    pub status: String,
    pub message: String,
    #[schema(value_type = Vec<Object>)]
    pub document: Vec<serde_json::Value>,
    #[serde(rename = "rowsAffected")]
    pub rows_affected: Vec<i64>,
    pub data: crate::routes::auth::Session,
}

#[derive(Serialize, ToSchema)]
pub struct SignInBody {
    #[schema(example = "parceiro@demo.com.br")]
    pub email: String,
    #[schema(example = "Parceiro#2026")]
    pub password: String,
    /// `ECOMMERCE`, `PARCEIRO` or `BACKOFFICE`.
    #[schema(example = "PARCEIRO")]
    pub aplicacao: String,
}

#[derive(Serialize, ToSchema)]
pub struct RefreshBody {
    /// The `currentRefreshToken` of the last sign-in or renewal.
    #[serde(rename = "refreshToken")]
    pub refresh_token: String,
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Sales API", description = "Propostas, clientes, assinatura eletrônica, e-commerce e eventos.", version = "0.1.0"),
    paths(
        crate::routes::auth::sign_in,
        crate::routes::auth::refresh,
        crate::routes::auth::me,
        crate::routes::auth::jwks,
        crate::routes::health::live,
        crate::routes::health::ready,
    ),
    modifiers(&BearerAuth),
)]
pub struct ApiDoc;

/// The OpenAPI document.
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}

/// A readable page of the same document, with nothing loaded from elsewhere.
pub async fn docs_page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(render_html(&ApiDoc::openapi()))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn render_html(doc: &utoipa::openapi::OpenApi) -> String {
    let json = serde_json::to_value(doc).unwrap_or_default();
    let mut html = String::from(concat!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\"><title>Sales API</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}",
        "h2{margin-top:2rem;border-bottom:1px solid #ddd}code,pre{background:#f5f5f5;padding:.1rem .3rem}",
        "pre{padding:.6rem;overflow:auto}.m{font-weight:bold;text-transform:uppercase;margin-right:.5rem}",
        "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left}</style></head><body>",
        "<h1>Sales API</h1><p>Documento completo: <a href=\"/openapi.json\">/openapi.json</a></p>"
    ));
    if let Some(paths) = json["paths"].as_object() {
        for (path, operations) in paths {
            let Some(operations) = operations.as_object() else {
                continue;
            };
            for (method, op) in operations {
                html.push_str(&format!(
                    "<h2><span class=\"m\">{}</span><code>{}</code></h2>",
                    escape(method),
                    escape(path)
                ));
                for key in ["summary", "description"] {
                    if let Some(text) = op[key].as_str() {
                        html.push_str(&format!("<p>{}</p>", escape(text)));
                    }
                }
                if let Some(body) = op["requestBody"]["content"]["application/json"].as_object() {
                    let example = body
                        .get("example")
                        .or_else(|| body.get("schema"))
                        .cloned()
                        .unwrap_or_default();
                    html.push_str(&format!(
                        "<p>Corpo:</p><pre>{}</pre>",
                        escape(&serde_json::to_string_pretty(&example).unwrap_or_default())
                    ));
                }
                if let Some(responses) = op["responses"].as_object() {
                    html.push_str("<table><tr><th>Status</th><th>Descrição</th></tr>");
                    for (status, response) in responses {
                        html.push_str(&format!(
                            "<tr><td>{}</td><td>{}</td></tr>",
                            escape(status),
                            escape(response["description"].as_str().unwrap_or(""))
                        ));
                    }
                    html.push_str("</table>");
                }
            }
        }
    }
    html.push_str("</body></html>");
    html
}
