//! The contract as a document: OpenAPI 3.1 generated from the routes (utoipa), served at
//! `/openapi.json`, and a plain HTML page at `/docs` rendered here from the same document, so that
//! it works offline with no script or asset from elsewhere.

mod links;

use crate::http::contract_version::{SALES_VERSION, version_of};
use crate::http::error::ErrorCode;
use crate::http::html::escape;
use actix_web::HttpResponse;
use contract_versions::ApiVersion;
use domain::hooks::payload::{
    ChargeChangedEvent, NoticeRecordedEvent, PaymentChangedEvent, PendingAnsweredEvent, PendingOpenedEvent,
    ProposalCreatedEvent, ProposalSentEvent, SignatureRecordedEvent, StatusChangeEvent, TermRenewedEvent, TestEvent,
};
use domain::values::EventKind;
use serde_json::{Value, json};
use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

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
    info(title = "Sales API", description = "Propostas, clientes, assinatura eletrônica, e-commerce e eventos.", version = "0.2.0"),
    paths(
        crate::routes::auth::sign_in,
        crate::routes::auth::refresh,
        crate::routes::auth::sign_out,
        crate::routes::auth::me,
        crate::routes::recovery::send_recovery,
        crate::routes::recovery::password_reset,
        crate::routes::auth::jwks,
        crate::routes::proposals::create_customer,
        crate::routes::proposals::valid_customer,
        crate::routes::proposals::registrations,
        crate::routes::proposals::create_proposal,
        crate::routes::proposals::create_ecommerce_proposal,
        crate::routes::proposals::by_identifier,
        crate::routes::proposals::list,
        crate::routes::proposals::history,
        crate::routes::proposals::cpf_valid_to_product,
        crate::routes::proposals::cell_phone_valid_to_product,
        crate::routes::catalog::billing_groups,
        crate::routes::catalog::product_payment,
        crate::routes::catalog::products,
        crate::routes::catalog::create_product,
        crate::routes::catalog::update_product,
        crate::routes::catalog::create_billing_group,
        crate::routes::catalog::update_billing_group,
        crate::routes::signing::send,
        crate::routes::signing::sign_link,
        crate::routes::signing::change_status,
        crate::routes::signing::events,
        crate::routes::signing::document,
        crate::routes::signing::certificate,
        crate::routes::signing::callback,
        crate::routes::customer_requests::cancel,
        crate::routes::customer_requests::withdraw,
        crate::routes::customer_requests::revoke_debit_authorization,
        crate::routes::customer_requests::set_refund_destination,
        crate::routes::acceptance::open,
        crate::routes::acceptance::answer,
        crate::routes::customer_requests::by_protocol,
        crate::routes::ecommerce::create_customer,
        crate::routes::ecommerce::create_setup_intent,
        crate::routes::ecommerce::create_subscription,
        crate::routes::ecommerce::callback,
        crate::routes::hooks::create,
        crate::routes::hooks::list,
        crate::routes::hooks::get,
        crate::routes::hooks::update,
        crate::routes::hooks::delete,
        crate::routes::hooks::rotate_secret,
        crate::routes::hooks::send_test,
        crate::routes::hooks::deliveries,
        crate::routes::hooks::retry,
        crate::routes::hooks::replay,
        crate::routes::privacy::export,
        crate::routes::privacy::anonymize,
        crate::routes::privacy::consent,
        crate::routes::privacy::file_request,
        crate::routes::privacy::notice,
        crate::routes::users::pin_version,
        crate::routes::users::unpin_version,
        crate::routes::health::live,
        crate::routes::health::ready,
    ),
    components(schemas(
        StatusChangeEvent,
        ProposalCreatedEvent,
        ProposalSentEvent,
        SignatureRecordedEvent,
        PaymentChangedEvent,
        PendingOpenedEvent,
        PendingAnsweredEvent,
        ChargeChangedEvent,
        NoticeRecordedEvent,
        TermRenewedEvent,
        TestEvent
    )),
    modifiers(&BearerAuth),
)]
pub struct ApiDoc;

/// The whole document: the routes' (from utoipa and the domain's body types), each error answer's
/// `code` enumerated from the error table, and the events delivered to subscribers under
/// `webhooks` (OpenAPI 3.1). Built once: it never changes while the process runs.
pub fn document() -> &'static Value {
    document_of(ApiVersion::NEWEST)
}

/// The document of one contract version: the newest passed through the changes after it
/// (`contract_versions`), its `info` naming the version. Built once per version.
pub fn document_of(version: ApiVersion) -> &'static Value {
    static DOCUMENTS: [OnceLock<Value>; ApiVersion::ALL.len()] = [const { OnceLock::new() }; ApiVersion::ALL.len()];
    let index = ApiVersion::ALL.iter().position(|v| *v == version).unwrap_or(0);
    DOCUMENTS[index].get_or_init(|| contract_versions::document_for(version, newest()))
}

/// The newest document as the routes and the domain's types declare it.
fn newest() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
        accept_idempotency_keys(&mut doc);
        declare_rate_limits(&mut doc);
        enumerate_error_codes(&mut doc);
        describe_bare_answers(&mut doc);
        project_listings(&mut doc);
        doc["webhooks"] = webhooks();
        for_generators(&mut doc);
        links::link_operations(&mut doc);
        doc
    })
}

/// The document as `docs/openapi.json` keeps it: indented, members in the generator's order.
pub fn document_text() -> String {
    document_text_of(ApiVersion::NEWEST)
}

/// One version's document as `docs/openapi/{version}.json` keeps it.
pub fn document_text_of(version: ApiVersion) -> String {
    serde_json::to_string_pretty(document_of(version)).unwrap_or_default()
}

/// The `POST`s wrapped by `http::idempotency` (those that create something).
pub const IDEMPOTENT_POSTS: [&str; 10] = [
    "/customer/create",
    "/proposal/create",
    "/proposal/create/ecommerce",
    "/signer",
    "/ecommerce/createCustomer",
    "/ecommerce/createSetupIntent",
    "/ecommerce/createSubscription",
    "/hooks",
    "/product",
    "/billingGroup",
];

/// The operations that are not creations but whose network retry must answer the first answer
/// (a protocol, refunds) rather than a refusal: (path, method), also wrapped by `http::idempotency`.
pub const IDEMPOTENT_OPERATIONS: [(&str, &str); 7] = [
    ("/proposal/{identificador}/cancel", "post"),
    ("/proposal/{identificador}/withdraw", "post"),
    ("/proposal/{identificador}/debit-authorization/revoke", "post"),
    ("/proposal/{identificador}/status", "patch"),
    ("/hooks/{uuid}/test", "post"),
    ("/hooks/{uuid}/replay", "post"),
    ("/hooks/{uuid}/deliveries/{id}/retry", "post"),
];

/// The `Idempotency-Key` header on the creating `POST`s and the other idempotent operations, with
/// the answers it can bring (400 for a malformed key, 409 while the key's request runs, 422 when
/// the key was used with another request) where the route did not already list them.
fn accept_idempotency_keys(doc: &mut Value) {
    let error = json!({"$ref": "#/components/schemas/ErrorEnvelope"});
    let wrapped = IDEMPOTENT_POSTS
        .iter()
        .map(|path| (*path, "post"))
        .chain(IDEMPOTENT_OPERATIONS);
    for (path, method) in wrapped {
        let operation = &mut doc["paths"][path][method];
        if !operation.is_object() {
            continue;
        }
        let parameter = json!({
            "name": "Idempotency-Key", "in": "header", "required": false,
            "description": "Chave da requisição (1 a 255 caracteres ASCII visíveis, por exemplo um UUID): repetida com o mesmo corpo em até 24 horas, devolve a resposta da primeira vez (com `Idempotent-Replayed: true`) sem criar nada.",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}
        });
        match operation["parameters"].as_array_mut() {
            Some(parameters) => parameters.push(parameter),
            None => operation["parameters"] = json!([parameter]),
        }
        let responses = &mut operation["responses"];
        for (status, description) in [
            ("400", "Idempotency-Key malformada, ou dados inválidos"),
            ("409", "Uma requisição com a mesma Idempotency-Key está em andamento"),
            (
                "422",
                "Idempotency-Key já usada com outra requisição, ou corpo malformado",
            ),
        ] {
            if responses[status].is_null() {
                responses[status] =
                    json!({"description": description, "content": {"application/json": {"schema": error.clone()}}});
            }
        }
    }
}

/// The rate limit's fields on every counted operation's successes, and its 429 (`http::rate_limit`:
/// everything but the health checks and the providers' callbacks).
fn declare_rate_limits(doc: &mut Value) {
    doc["components"]["headers"] = json!({
        "RateLimit-Policy": {
            "description": "A política de limite (draft-ietf-httpapi-ratelimit-headers): `q` requisições por janela de `w` segundos, por usuário autenticado ou, sem token, por endereço.",
            "schema": {"type": "string", "example": "\"default\";q=600;w=60"}
        },
        "RateLimit": {
            "description": "O que resta da janela: `r` requisições, `t` segundos até a próxima.",
            "schema": {"type": "string", "example": "\"default\";r=599;t=42"}
        },
        "Retry-After": {
            "description": "Segundos até poder tentar de novo.",
            "schema": {"type": "integer", "minimum": 1}
        }
    });
    let fields = json!({
        "RateLimit-Policy": {"$ref": "#/components/headers/RateLimit-Policy"},
        "RateLimit": {"$ref": "#/components/headers/RateLimit"}
    });
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    let counted = paths
        .iter_mut()
        .filter(|(path, _)| !crate::http::rate_limit::uncounted(path))
        .filter_map(|(_, item)| item.as_object_mut())
        .flat_map(|item| item.values_mut());
    for operation in counted {
        let Some(responses) = operation["responses"].as_object_mut() else {
            continue;
        };
        for (status, response) in responses.iter_mut() {
            if status.starts_with('2') {
                response["headers"] = fields.clone();
            }
        }
        responses.entry("429").or_insert_with(|| {
            json!({
                "description": "Limite de requisições por minuto atingido (`RATE_LIMIT_REQUESTS_PER_MINUTE`); veja `Retry-After`",
                "headers": {
                    "Retry-After": {"$ref": "#/components/headers/Retry-After"},
                    "RateLimit-Policy": {"$ref": "#/components/headers/RateLimit-Policy"},
                    "RateLimit": {"$ref": "#/components/headers/RateLimit"}
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}
            })
        });
    }
}

/// Each error answer (a `$ref` to the error envelope) becomes a reference to its status's named
/// error body (`BadRequestError`, `NotFoundError`, …): the envelope with the codes that status may
/// carry, from the one table of `http::error`. Named, so that a generated client has one model per
/// status instead of a copy per route.
fn enumerate_error_codes(doc: &mut Value) {
    let mut named = serde_json::Map::new();
    each_answer(doc, |status, response| {
        // Looked up, not indexed: indexing a missing member would write a `null` schema into an
        // answer that has no JSON body (the PDF's), which no generator accepts.
        let Some(schema) = response.pointer_mut("/content/application~1json/schema") else {
            return;
        };
        let is_error = schema["$ref"].as_str().is_some_and(|r| r.ends_with("/ErrorEnvelope"));
        let codes: Vec<&str> = ErrorCode::ALL
            .iter()
            .filter(|c| c.status().as_str() == status && !ErrorCode::PAGES_ONLY.contains(c))
            .map(|c| c.code())
            .collect();
        let Some(name) = error_body_name(status) else {
            return;
        };
        if is_error && !codes.is_empty() {
            named.entry(name.clone()).or_insert_with(|| {
                json!({
                    "description": format!("Erro {status}: o envelope de erro com os códigos que este status traz."),
                    "allOf": [schema.take(), {
                        "type": "object",
                        "properties": {"code": {"type": "string", "enum": codes}}
                    }]
                })
            });
            *schema = json!({"$ref": format!("#/components/schemas/{name}")});
        }
    });
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        schemas.extend(named);
    }
}

/// The named error body of a status: its reason phrase in one word, `BadRequestError` for 400.
fn error_body_name(status: &str) -> Option<String> {
    let reason = status
        .parse::<u16>()
        .ok()
        .and_then(|s| actix_web::http::StatusCode::from_u16(s).ok())?
        .canonical_reason()?;
    let word: String = reason.split([' ', '-']).collect();
    Some(format!("{word}Error"))
}

/// Calls `visit` with every answer of every operation and its status.
fn each_answer(doc: &mut Value, mut visit: impl FnMut(&str, &mut Value)) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    let operations = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|p| p.values_mut());
    for operation in operations {
        if let Some(responses) = operation["responses"].as_object_mut() {
            for (status, response) in responses.iter_mut() {
                visit(status, response);
            }
        }
    }
}

/// An answer a route documents without words gets the usual meaning of its status, so that no
/// reader meets an empty description.
fn describe_bare_answers(doc: &mut Value) {
    each_answer(doc, |status, response| {
        if response["description"].as_str().is_some_and(|d| !d.is_empty()) {
            return;
        }
        let meaning = match status {
            "200" => "Sucesso",
            "201" => "Criado",
            "400" => "Dados inválidos (veja `errors`) ou pedido que as regras recusam",
            "401" => "Sem token válido",
            "403" => "Aplicação sem permissão para esta rota",
            "404" => "Não encontrado",
            "413" => "Corpo grande demais",
            "415" => "Content-Type não é JSON",
            "422" => "Corpo malformado",
            "429" => "Muitos pedidos; veja Retry-After",
            "502" => "O serviço externo falhou; nada mudou aqui",
            "503" => "Indisponível no momento; tente de novo",
            "504" => "O serviço externo não respondeu a tempo",
            _ => return,
        };
        response["description"] = json!(meaning);
    });
}

/// The catalog listings answer only the `fields` asked for: their records are the DTOs' schemas
/// with every member optional, under their own names.
fn project_listings(doc: &mut Value) {
    let schemas = &mut doc["components"]["schemas"];
    for (listing, record, projection) in [
        ("BillingGroupListEnvelope", "BillingGroupDto", "BillingGroupProjection"),
        ("ProductListEnvelope", "ProductDto", "ProductProjection"),
    ] {
        let mut projected = schemas[record].clone();
        if let Some(object) = projected.as_object_mut() {
            object.remove("required");
            object.insert("description".into(), json!("Somente os campos pedidos em `fields`."));
        }
        schemas[projection] = projected;
        schemas[listing]["properties"]["document"]["items"] =
            json!({"$ref": format!("#/components/schemas/{projection}")});
    }
}

/// What client generators and linters ask of a document beyond what utoipa writes: a server (this
/// one, by a relative URL), the tags declared with what each holds, public operations saying so
/// (`security: []`, the webhooks' too: the service signs them, no token), and the PDF answer as
/// bytes.
fn for_generators(doc: &mut Value) {
    doc["servers"] = json!([{"url": "/", "description": "Este servidor"}]);
    doc["tags"] = json!([
        {"name": "autenticação", "description": "Entrar, renovar e encerrar sessões; recuperar senha; chaves públicas dos tokens."},
        {"name": "clientes", "description": "Cadastros de clientes por vendedor."},
        {"name": "propostas", "description": "Criar, consultar, listar propostas e seu histórico."},
        {"name": "assinatura", "description": "Envio para assinatura eletrônica, links, documento, decisões e eventos da proposta."},
        {"name": "aceitação", "description": "O prazo de aceitação depois da assinatura: pedidos de documentos e suas respostas."},
        {"name": "catálogo", "description": "Produtos, grupos de faturamento e bancos."},
        {"name": "e-commerce", "description": "Cliente, meio de pagamento e assinatura recorrente na plataforma de pagamento."},
        {"name": "eventos", "description": "Assinaturas de eventos (webhooks) e suas entregas."},
        {"name": "privacidade", "description": "Direitos do titular (LGPD): exportação e anonimização."},
        {"name": "saúde", "description": "Vida e prontidão do processo."},
    ]);
    for section in ["paths", "webhooks"] {
        let Some(items) = doc[section].as_object_mut() else {
            continue;
        };
        for item in items.values_mut() {
            let Some(operations) = item.as_object_mut() else {
                continue;
            };
            for operation in operations.values_mut() {
                if let Some(operation) = operation.as_object_mut()
                    && !operation.contains_key("security")
                {
                    operation.insert("security".into(), json!([]));
                }
            }
        }
    }
    for kind in EventKind::ALL {
        let entry = &mut doc["webhooks"][kind.as_str()]["post"];
        if entry.is_object() {
            entry["operationId"] = json!(catalog_entry(*kind).operation_id);
        }
    }
    let pdf = &mut doc["paths"]["/proposal/{identificador}/document"]["get"]["responses"]["200"]["content"]["application/pdf"];
    if pdf.is_object() {
        pdf["schema"] = json!({"type": "string", "format": "binary", "contentMediaType": "application/pdf"});
    }
}

/// How the document names and describes one kind of event.
struct CatalogEntry {
    operation_id: &'static str,
    summary: &'static str,
    schema: &'static str,
}

/// The event catalog as the document shows it: every kind has an entry (the match says so).
fn catalog_entry(kind: EventKind) -> CatalogEntry {
    let (operation_id, summary, schema) = match kind {
        EventKind::StatusChange => (
            "webhook.statusChange",
            "Mudança de status de uma proposta",
            "StatusChangeEvent",
        ),
        EventKind::ProposalCreated => (
            "webhook.proposalCreated",
            "Proposta criada (rotas 5 e 6)",
            "ProposalCreatedEvent",
        ),
        EventKind::ProposalSent => (
            "webhook.proposalSent",
            "Proposta enviada para assinatura (rota 12) ou reenviada",
            "ProposalSentEvent",
        ),
        EventKind::SignatureRecorded => (
            "webhook.signatureRecorded",
            "Assinatura ou recusa de uma das partes registrada",
            "SignatureRecordedEvent",
        ),
        EventKind::PaymentChanged => (
            "webhook.paymentChanged",
            "Estado da assinatura recorrente na plataforma de pagamento alterado",
            "PaymentChangedEvent",
        ),
        EventKind::PendingOpened => (
            "webhook.pendingOpened",
            "Pedido de documentos aberto pela retaguarda: prazo de aceitação suspenso",
            "PendingOpenedEvent",
        ),
        EventKind::PendingAnswered => (
            "webhook.pendingAnswered",
            "Pedido de documentos respondido pelo vendedor: prazo de aceitação retomado",
            "PendingAnsweredEvent",
        ),
        EventKind::ChargeChanged => (
            "webhook.chargeChanged",
            "Cobrança do contrato criada ou alterada, ou situação da cobrança alterada",
            "ChargeChangedEvent",
        ),
        EventKind::NoticeRecorded => (
            "webhook.noticeRecorded",
            "Aviso ao cliente enviado, ou seu recebimento (ou a entrega frustrada) conhecido depois",
            "NoticeRecordedEvent",
        ),
        EventKind::TermRenewed => (
            "webhook.termRenewed",
            "Vigência do contrato renovada: nova vigência e novo certificado",
            "TermRenewedEvent",
        ),
        EventKind::Test => (
            "webhook.test",
            "Evento de teste pedido em POST /hooks/{uuid}/test",
            "TestEvent",
        ),
    };
    CatalogEntry {
        operation_id,
        summary,
        schema,
    }
}

/// What the service posts to a subscription's endpoint, one entry per event kind.
fn webhooks() -> Value {
    let headers = json!([
        {"name": "webhook-id", "in": "header", "required": true, "schema": {"type": "string"},
         "description": "Identificador da entrega, o mesmo em cada tentativa: descarte repetidos."},
        {"name": "webhook-timestamp", "in": "header", "required": true, "schema": {"type": "string"},
         "description": "Segundos Unix do envio; recuse os muito antigos."},
        {"name": "webhook-signature", "in": "header", "required": true, "schema": {"type": "string"},
         "description": "`v1,<base64>`: HMAC-SHA256 com o segredo da assinatura (Standard Webhooks); durante a troca de segredo, um por segredo válido."},
    ]);
    let responses = json!({
        "2XX": {"description": "Recebido. Qualquer outra resposta, ou nenhuma em 15 s (o padrão de `HOOKS_REQUEST_TIMEOUT_MS`), é tentada de novo com espera crescente."},
        "410": {"description": "O receptor não quer mais eventos: a assinatura passa a INATIVO."},
    });
    let event = |summary: &str, schema: &str| {
        json!({"post": {
            "summary": summary,
            "tags": ["eventos"],
            "parameters": headers,
            "requestBody": {"required": true, "content": {"application/json": {
                "schema": {"$ref": format!("#/components/schemas/{schema}")}
            }}},
            "responses": responses,
        }})
    };
    EventKind::ALL
        .iter()
        .map(|kind| {
            let entry = catalog_entry(*kind);
            (kind.as_str().to_owned(), event(entry.summary, entry.schema))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// `GET /openapi.json?version=…`: the document of the version asked for by the query, else by
/// `Sales-Version`, else the newest.
#[derive(Debug, serde::Deserialize)]
pub struct DocumentQuery {
    version: Option<String>,
}

/// The OpenAPI document of one version (the newest unless asked), naming it in `Sales-Version`.
pub async fn openapi_json(
    request: actix_web::HttpRequest,
    query: actix_web::web::Query<DocumentQuery>,
) -> Result<HttpResponse, crate::http::error::ApiError> {
    let version = match query.into_inner().version {
        Some(name) => ApiVersion::parse(&name)
            .map_err(|unknown| crate::http::error::ApiError::unknown_version("version", &unknown))?,
        None if request.headers().contains_key(SALES_VERSION) => version_of(&request),
        None => ApiVersion::NEWEST,
    };
    Ok(HttpResponse::Ok()
        .insert_header((SALES_VERSION, version.as_str()))
        .json(document_of(version)))
}

/// A readable page of the same document, with nothing loaded from elsewhere.
pub async fn docs_page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(render_html(document()))
}

fn render_html(json: &Value) -> String {
    let mut html = String::from(concat!(
        "<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\"><title>Sales API</title>",
        "<link rel=\"stylesheet\" href=\"/assets/pages.css\"></head><body>",
        "<h1>Sales API</h1><p>Documento completo: <a href=\"/openapi.json\">/openapi.json</a> · ",
        "<a href=\"/docs/interativa/\">Referência interativa</a> (esquemas e \"Try it out\" para chamar as rotas)</p>"
    ));
    let schemas = &json["components"]["schemas"];
    let operations = json["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(path, item)| {
            let item = item.as_object().into_iter().flatten();
            item.map(move |(method, op)| (path, method, op))
        });
    for (path, method, op) in operations {
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
        let body = &op["requestBody"]["content"]["application/json"];
        if let Some(name) = schema_name(&body["schema"]) {
            html.push_str(&format!("<p>Corpo: <code>{}</code></p>", escape(name)));
            html.push_str(&members_table(&schemas[name], schemas));
        }
        if let Some(example) = body.get("example") {
            let text = serde_json::to_string_pretty(example).unwrap_or_default();
            html.push_str(&format!("<p>Exemplo:</p><pre>{}</pre>", escape(&text)));
        }
        html.push_str(&responses_table(&op["responses"], schemas));
    }
    html.push_str(&events_section(json, schemas));
    html.push_str("</body></html>");
    html
}

/// The event catalog: each kind a subscription may ask for, with its body and its data's members.
fn events_section(json: &Value, schemas: &Value) -> String {
    let Some(events) = json["webhooks"].as_object() else {
        return String::new();
    };
    let mut html = String::from(concat!(
        "<h1 id=\"eventos\">Eventos (webhooks)</h1>",
        "<p>O que o serviço envia ao <code>endpoint</code> de uma assinatura (rota 17) que pediu o tipo, ",
        "assinado pelos cabeçalhos <code>webhook-id</code>, <code>webhook-timestamp</code> e ",
        "<code>webhook-signature</code> (Standard Webhooks), só sobre propostas que o dono da assinatura pode ver.</p>"
    ));
    for (kind, item) in events {
        let op = &item["post"];
        html.push_str(&format!(
            "<h2><span class=\"m\">evento</span><code>{}</code></h2>",
            escape(kind)
        ));
        if let Some(summary) = op["summary"].as_str() {
            html.push_str(&format!("<p>{}</p>", escape(summary)));
        }
        let body = &op["requestBody"]["content"]["application/json"]["schema"];
        let Some(name) = schema_name(body) else {
            continue;
        };
        html.push_str(&format!("<p>Corpo: <code>{}</code></p>", escape(name)));
        html.push_str(&members_table(&schemas[name], schemas));
        if let Some(data) = schema_name(&schemas[name]["properties"]["data"]) {
            if let Some(description) = schemas[data]["description"].as_str() {
                html.push_str(&format!("<p>{}</p>", escape(description)));
            }
            html.push_str(&format!("<p><code>data</code>: <code>{}</code></p>", escape(data)));
            html.push_str(&members_table(&schemas[data], schemas));
        }
    }
    html
}

/// The component a `$ref` names (`#/components/schemas/ProposalBody` → `ProposalBody`).
fn schema_name(schema: &Value) -> Option<&str> {
    schema["$ref"].as_str()?.strip_prefix("#/components/schemas/")
}

/// A body's members: name, type (a closed list's values, a format's pattern), whether required.
fn members_table(schema: &Value, schemas: &Value) -> String {
    let Some(properties) = schema["properties"].as_object() else {
        return String::new();
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut table = String::from("<table><tr><th>Membro</th><th>Tipo</th><th>Obrigatório</th><th>Descrição</th></tr>");
    for (name, member) in properties {
        table.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            escape(&type_of(member, schemas)),
            if required.contains(&name.as_str()) {
                "sim"
            } else {
                "não"
            },
            escape(member["description"].as_str().unwrap_or(""))
        ));
    }
    table.push_str("</table>");
    table
}

/// A member's type in words: the referenced schema's name with its values, or the JSON type with
/// its pattern.
fn type_of(member: &Value, schemas: &Value) -> String {
    let member = member["oneOf"]
        .as_array()
        .and_then(|o| o.iter().find(|s| s["type"] != "null"))
        .unwrap_or(member);
    if let Some(name) = schema_name(member) {
        let values: Vec<&str> = schemas[name]["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        return if values.is_empty() {
            format!("objeto {name}")
        } else {
            format!("um de: {}", values.join(", "))
        };
    }
    if let Some(items) = member.get("items") {
        return format!("lista de {}", type_of(items, schemas));
    }
    let kind = match &member["type"] {
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("")
            .to_owned(),
        other => other.as_str().unwrap_or("").to_owned(),
    };
    match member["pattern"].as_str() {
        Some(pattern) => format!("{kind} ({pattern})"),
        None => kind,
    }
}

/// The answers: status, description, and the error codes a status carries.
fn responses_table(responses: &Value, schemas: &Value) -> String {
    let Some(responses) = responses.as_object() else {
        return String::new();
    };
    let mut table = String::from("<table><tr><th>Status</th><th>Descrição</th><th>Códigos</th></tr>");
    for (status, response) in responses {
        let schema = &response["content"]["application/json"]["schema"];
        let body = schema_name(schema).map_or(schema, |name| &schemas[name]);
        let codes = body["allOf"][1]["properties"]["code"]["enum"].as_array();
        let codes: Vec<&str> = codes.into_iter().flatten().filter_map(Value::as_str).collect();
        table.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(status),
            escape(response["description"].as_str().unwrap_or("")),
            escape(&codes.join(", "))
        ));
    }
    table.push_str("</table>");
    table
}

/// The interactive reference's address (Swagger UI, its files inside the binary).
pub const INTERACTIVE: &str = "/docs/interativa/";

/// The OpenAPI document, its readable page, and the interactive reference over the same document.
pub fn routes(cfg: &mut actix_web::web::ServiceConfig) {
    use actix_web::web;
    use utoipa_swagger_ui::{Config, SwaggerUi};
    cfg.service(web::resource("/openapi.json").route(web::get().to(openapi_json)))
        .service(web::resource("/docs").route(web::get().to(docs_page)))
        .service(
            SwaggerUi::new(format!("{INTERACTIVE}{{_:.*}}")).config(
                Config::new(["/openapi.json"])
                    .try_it_out_enabled(true)
                    .filter(true)
                    .doc_expansion("list")
                    .persist_authorization(false)
                    .use_base_layout(),
            ),
        );
}
