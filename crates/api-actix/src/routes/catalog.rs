//! Routes 10 and 11, the product listing, and catalog management for the back office.

use crate::http::auth::AuthenticatedUser;
use crate::http::body::Body;
use crate::http::envelope::Envelope;
use crate::http::error::{ApiError, ErrorCode};
use crate::http::idempotency::idempotent;
use crate::routes::dto::{BillingGroupDto, ListPageDto, ProductBanksDto, ProductDto};
use crate::routes::schemas::{
    BillingGroupListEnvelope, BillingGroupWrittenEnvelope, ErrorEnvelope, ProductBanksEnvelope, ProductListEnvelope,
    ProductWrittenEnvelope,
};
use crate::state::AppState;
use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, web};
use domain::catalog::bodies::{BillingGroupBody, ProductBody};
use domain::catalog::model::{BillingGroupField, ListField, ListQuery, ProductField};
use domain::input::positive_code;
use serde::Serialize;
use serde_json::{Map, Value};

/// Keeps only the requested fields of a record, in the order asked.
fn project<T: Serialize, F: ListField>(record: T, fields: &[F]) -> Result<Value, ApiError> {
    let Value::Object(mut all) = serde_json::to_value(record).map_err(|_| ApiError::new(ErrorCode::Internal))? else {
        return Err(ApiError::new(ErrorCode::Internal));
    };
    // Every field asked for, in the record's own order (a listing without `fields`): as it is.
    if all.len() == fields.len() && all.keys().zip(fields).all(|(key, field)| key == field.name()) {
        return Ok(Value::Object(all));
    }
    let mut kept = Map::new();
    for field in fields {
        if let Some(value) = all.remove(field.name()) {
            kept.insert(field.name().to_owned(), value);
        }
    }
    Ok(Value::Object(kept))
}

/// Route 10: `fields`, `conditions[campo]=valor` (equality), `limit` (default 100, at most 1000)
/// and `cursor` (the page before's `data.nextCursor`; `offset` for the versions that list with
/// it); ordered by `id`.
#[utoipa::path(get, path = "/billingGroup/list", operation_id = "billingGroup.list", summary = "Grupos de faturamento (rota 10)", description = "`fields`, `conditions[campo]=valor` (igualdade), `limit` (padrão 100, no máximo 1000) e `cursor` (o `data.nextCursor` da página anterior); em ordem de `id`.", tag = "catálogo", security(("bearer" = [])),
    params(
        ("fields" = Option<String>, Query, description = "Campos separados por vírgula: id, alterado_em, alterado_por, criado_em, codigo_faturamento, descricao, codigo_integracao, codigo_produto"),
        ("conditions[codigo_produto]" = Option<i64>, Query, description = "Filtro por igualdade; vale para qualquer campo permitido"),
        ("limit" = Option<i64>, Query, description = "1 a 1000 (padrão 100)"),
        ("cursor" = Option<String>, Query, description = "O `data.nextCursor` da página anterior"),
    ),
    responses(
        (status = 200, description = "Grupos de faturamento, restritos aos campos pedidos", body = BillingGroupListEnvelope),
        (status = 400, description = "Campo, condição ou paginação inválidos", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn billing_groups(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let query = ListQuery::<BillingGroupField>::parse(&query)?;
    let page = state.catalog.billing_groups(&user.0, &query).await?;
    let selected = query.selected();
    let document = page
        .items
        .into_iter()
        .map(|g| project(BillingGroupDto::from(g), &selected))
        .collect::<Result<Vec<_>, _>>()?;
    let count = i64::try_from(document.len()).unwrap_or(i64::MAX);
    let envelope = Envelope::list("Grupos de faturamento listados.", document, vec![count]);
    Ok(HttpResponse::Ok().json(envelope.with_data(ListPageDto::before(page.next.map(|id| id.to_string())))))
}

/// The product listing the spec refers to: the same rules over the product's fields.
#[utoipa::path(get, path = "/product/list", operation_id = "product.list", summary = "Produtos", description = "A listagem de produtos, com as mesmas regras da rota 10 sobre os campos do produto.", tag = "catálogo", security(("bearer" = [])),
    params(
        ("fields" = Option<String>, Query, description = "id, codigo_produto, nome, codigo_integracao, ativo, valor, criado_em, alterado_em, alterado_por"),
        ("conditions[ativo]" = Option<bool>, Query, description = "Filtro por igualdade; vale para qualquer campo permitido"),
        ("limit" = Option<i64>, Query), ("cursor" = Option<String>, Query),
    ),
    responses(
        (status = 200, body = ProductListEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn products(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let query = ListQuery::<ProductField>::parse(&query)?;
    let page = state.catalog.products(&user.0, &query).await?;
    let selected = query.selected();
    let document = page
        .items
        .into_iter()
        .map(|p| project(ProductDto::from_product(p, false), &selected))
        .collect::<Result<Vec<_>, _>>()?;
    let count = i64::try_from(document.len()).unwrap_or(i64::MAX);
    let envelope = Envelope::list("Produtos listados.", document, vec![count]);
    Ok(HttpResponse::Ok().json(envelope.with_data(ListPageDto::before(page.next.map(|id| id.to_string())))))
}

/// Route 11: the product and the banks it takes.
#[utoipa::path(get, path = "/product/payment/{productCode}", operation_id = "product.payment", summary = "Produto e bancos (rota 11)", description = "O produto e os bancos que ele aceita para débito em conta.", tag = "catálogo", security(("bearer" = [])),
    params(("productCode" = String, Path, description = "Código do produto")),
    responses(
        (status = 200, body = ProductBanksEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, description = "Produto não encontrado", body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn product_payment(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let code = positive_code("productCode", &path)?;
    let product = state.catalog.product_banks(&user.0, code).await?;
    Ok(HttpResponse::Ok().json(Envelope::data(
        "Produto e bancos encontrados.",
        ProductBanksDto::from(product),
    )))
}

/// Creates a product with its banks (back office).
#[utoipa::path(post, path = "/product", operation_id = "product.create", summary = "Criar produto", description = "Cria um produto com seus bancos (retaguarda).", tag = "catálogo", security(("bearer" = [])),
    request_body(content = ProductBody, example = json!({"codigo_produto": 104, "nome": "Seguro Residencial", "codigo_integracao": 9104, "ativo": true, "valor": 3990, "bank": [{"codigoBanco": "001", "nome": "Banco do Brasil"}]})),
    responses(
        (status = 201, body = ProductWrittenEnvelope),
        (status = 400, description = "Campos inválidos ou código já cadastrado", body = ErrorEnvelope),
        (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create_product(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<ProductBody>,
) -> Result<HttpResponse, ApiError> {
    let product = state.catalog.create_product(&user.0, body.into_inner().read()?).await?;
    let document = vec![ProductDto::from_product(product, true)];
    Ok(HttpResponse::Created().json(Envelope::list("Produto criado.", document, vec![1])))
}

/// Replaces a product and its banks (back office).
#[utoipa::path(put, path = "/product/{productCode}", operation_id = "product.update", summary = "Substituir produto", description = "Substitui um produto e seus bancos (retaguarda).", tag = "catálogo", security(("bearer" = [])),
    params(("productCode" = String, Path)),
    request_body(content = ProductBody),
    responses(
        (status = 200, body = ProductWrittenEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn update_product(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<ProductBody>,
) -> Result<HttpResponse, ApiError> {
    let code = positive_code("productCode", &path)?;
    let product = state
        .catalog
        .update_product(&user.0, code, body.into_inner().read()?)
        .await?;
    let document = vec![ProductDto::from_product(product, true)];
    Ok(HttpResponse::Ok().json(Envelope::list("Produto atualizado.", document, vec![1])))
}

/// Creates a billing group of a product (back office).
#[utoipa::path(post, path = "/billingGroup", operation_id = "billingGroup.create", summary = "Criar grupo de faturamento", description = "Cria um grupo de faturamento de um produto (retaguarda).", tag = "catálogo", security(("bearer" = [])),
    request_body(content = BillingGroupBody, example = json!({"codigo_faturamento": 5005, "descricao": "Anual - boleto", "codigo_produto": 101})),
    responses(
        (status = 201, body = BillingGroupWrittenEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn create_billing_group(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    body: Body<BillingGroupBody>,
) -> Result<HttpResponse, ApiError> {
    let group = state
        .catalog
        .create_billing_group(&user.0, body.into_inner().read()?)
        .await?;
    let document = vec![BillingGroupDto::from(group)];
    Ok(HttpResponse::Created().json(Envelope::list("Grupo de faturamento criado.", document, vec![1])))
}

/// Replaces a billing group (back office).
#[utoipa::path(put, path = "/billingGroup/{billingCode}", operation_id = "billingGroup.update", summary = "Substituir grupo de faturamento", description = "Substitui um grupo de faturamento (retaguarda).", tag = "catálogo", security(("bearer" = [])),
    params(("billingCode" = String, Path)),
    request_body(content = BillingGroupBody),
    responses(
        (status = 200, body = BillingGroupWrittenEnvelope),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope),
        (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope),
    ))]
pub async fn update_billing_group(
    state: web::Data<AppState>,
    user: AuthenticatedUser,
    path: web::Path<String>,
    body: Body<BillingGroupBody>,
) -> Result<HttpResponse, ApiError> {
    let code = positive_code("billingCode", &path)?;
    let input = body.into_inner().read()?;
    let group = state.catalog.update_billing_group(&user.0, code, input).await?;
    let document = vec![BillingGroupDto::from(group)];
    Ok(HttpResponse::Ok().json(Envelope::list("Grupo de faturamento atualizado.", document, vec![1])))
}

/// Under `/billingGroup`: route 10 and the back office's management.
pub fn billing_group_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/list").route(web::get().to(billing_groups)))
        .service(
            web::resource("")
                .wrap(from_fn(idempotent))
                .route(web::post().to(create_billing_group)),
        )
        .service(web::resource("/{billingCode}").route(web::put().to(update_billing_group)));
}

/// Under `/product`: the listing, route 11 and the back office's management.
pub fn product_routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/list").route(web::get().to(products)))
        .service(web::resource("/payment/{productCode}").route(web::get().to(product_payment)))
        .service(
            web::resource("")
                .wrap(from_fn(idempotent))
                .route(web::post().to(create_product)),
        )
        .service(web::resource("/{productCode}").route(web::put().to(update_product)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use domain::catalog::model::BillingGroup;
    use domain::stamp::ChangeStamp;

    fn group() -> BillingGroupDto {
        BillingGroupDto::from(BillingGroup {
            id: 7,
            billing_code: 5001,
            description: "Mensal".into(),
            integration_code: 9101,
            product_code: 101,
            stamp: ChangeStamp {
                changed_by: "seed".into(),
                created_at: Utc::now(),
                updated_at: Utc::now(),
            },
        })
    }

    fn keys(value: &Value) -> Vec<String> {
        value.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn a_projection_keeps_the_fields_asked_for_in_the_order_asked() {
        use BillingGroupField as F;
        let all = project(group(), F::ALL).unwrap();
        assert_eq!(keys(&all), F::ALL.iter().map(|f| f.name()).collect::<Vec<_>>());
        let some = project(group(), &[F::Description, F::Id]).unwrap();
        assert_eq!(keys(&some), ["descricao", "id"]);
        assert_eq!(some["id"], 7);
    }
}
