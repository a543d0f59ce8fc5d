//! The catalog in PostgreSQL: the domain's `CatalogStore`. Listing conditions become diesel
//! filters on known columns with bound values: nothing from the request is spliced into SQL.

use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::replicas::ReadPools;
use crate::rows::{BillingGroupRow, ProductRow};
use crate::schema::{banks, billing_groups, product_banks, products};
use async_trait::async_trait;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::catalog::model::{
    Bank, BillingGroup, BillingGroupField, BillingGroupInput, FilterValue, ListQuery, Product, ProductField,
    ProductInput,
};
use domain::catalog::ports::{CatalogStore, CatalogWriteError};
use domain::store::StoreError;

#[derive(Clone)]
pub struct PgCatalog {
    pool: PgPool,
    /// The catalog's reads: on a replica when one is fresh enough (the cache's reloads ask for
    /// everything committed before them, `CachedCatalog`).
    reads: ReadPools,
}

impl PgCatalog {
    pub fn new(pool: PgPool) -> Self {
        Self {
            reads: ReadPools::primary_only(pool.clone()),
            pool,
        }
    }

    /// The same store with its reads spread over `reads`' replicas.
    pub fn reading_from(self, reads: ReadPools) -> Self {
        Self { reads, ..self }
    }

    /// Whether route 5 must name a beneficiary for the product with this code (decision 279),
    /// set to `required` when given; `None` when there is no such product.
    pub async fn beneficiaries_required(
        &self,
        product_code: i32,
        required: Option<bool>,
        changed_by: &str,
    ) -> Result<Option<bool>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let found = match required {
            Some(required) => {
                diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
                    .set((
                        products::beneficiarios_obrigatorios.eq(required),
                        products::alterado_por.eq(changed_by),
                        products::alterado_em.eq(diesel::dsl::now),
                    ))
                    .returning(products::beneficiarios_obrigatorios)
                    .get_result(&mut conn)
                    .await
            }
            None => {
                products::table
                    .filter(products::codigo_produto.eq(product_code))
                    .select(products::beneficiarios_obrigatorios)
                    .first(&mut conn)
                    .await
            }
        };
        found.optional().map_err(query_error)
    }
}

/// A condition on an `INTEGER` column with a value out of its range matches nothing.
fn int4(value: &FilterValue) -> Option<i32> {
    match value {
        FilterValue::Integer(n) => i32::try_from(*n).ok(),
        _ => None,
    }
}

fn int8(value: &FilterValue) -> Option<i64> {
    match value {
        FilterValue::Integer(n) => Some(*n),
        _ => None,
    }
}

fn text(value: &FilterValue) -> Option<String> {
    match value {
        FilterValue::Text(s) => Some(s.clone()),
        _ => None,
    }
}

fn timestamp(value: &FilterValue) -> Option<chrono::DateTime<chrono::Utc>> {
    match value {
        FilterValue::Timestamp(t) => Some(*t),
        _ => None,
    }
}

fn boolean(value: &FilterValue) -> Option<bool> {
    match value {
        FilterValue::Boolean(b) => Some(*b),
        _ => None,
    }
}

async fn banks_of(conn: &mut AsyncPgConnection, product_id: i64) -> QueryResult<Vec<Bank>> {
    let rows: Vec<(String, String)> = product_banks::table
        .inner_join(banks::table)
        .filter(product_banks::product_id.eq(product_id))
        .select((banks::codigo_banco, banks::nome))
        .order(banks::codigo_banco.asc())
        .load(conn)
        .await?;
    Ok(rows.into_iter().map(|(code, name)| Bank { code, name }).collect())
}

async fn replace_banks(conn: &mut AsyncPgConnection, product_id: i64, list: &[Bank]) -> QueryResult<()> {
    diesel::delete(product_banks::table.filter(product_banks::product_id.eq(product_id)))
        .execute(conn)
        .await?;
    for bank in list {
        diesel::insert_into(banks::table)
            .values((banks::codigo_banco.eq(&bank.code), banks::nome.eq(&bank.name)))
            .on_conflict(banks::codigo_banco)
            .do_update()
            .set(banks::nome.eq(&bank.name))
            .execute(conn)
            .await?;
        diesel::insert_into(product_banks::table)
            .values((
                product_banks::product_id.eq(product_id),
                product_banks::codigo_banco.eq(&bank.code),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// Unique violations of the catalog, as the body field that caused them.
fn write_error(error: DieselError) -> CatalogWriteError {
    if let DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) = &error {
        let field = match info.constraint_name() {
            Some("products_codigo_produto_key") => Some("codigo_produto"),
            Some("products_codigo_integracao_key") => Some("codigo_integracao"),
            Some("billing_groups_codigo_faturamento_key") => Some("codigo_faturamento"),
            _ => None,
        };
        if let Some(field) = field {
            return CatalogWriteError::Duplicate { field };
        }
    }
    if let DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) = &error {
        return CatalogWriteError::UnknownProduct;
    }
    CatalogWriteError::Store(query_error(error))
}

/// Errors raised inside catalog transactions: diesel's, or a business outcome found midway.
enum TxError {
    Db(DieselError),
    Outcome(CatalogWriteError),
}

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        TxError::Db(e)
    }
}

impl From<TxError> for CatalogWriteError {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Db(e) => write_error(e),
            TxError::Outcome(o) => o,
        }
    }
}

/// A billing-group listing's conditions as a query, or `None` when a value can match nothing.
fn billing_groups_matching(query: &ListQuery<BillingGroupField>) -> Option<billing_groups::BoxedQuery<'static, Pg>> {
    use BillingGroupField as F;
    let mut q = billing_groups::table.into_boxed();
    if let Some(after) = query.after {
        q = q.filter(billing_groups::id.gt(after));
    }
    for (field, value) in &query.conditions {
        q = match field {
            F::Id => match int8(value) {
                Some(v) => q.filter(billing_groups::id.eq(v)),
                None => return None,
            },
            F::BillingCode | F::IntegrationCode | F::ProductCode => {
                let v = int4(value)?;
                match field {
                    F::BillingCode => q.filter(billing_groups::codigo_faturamento.eq(v)),
                    F::IntegrationCode => q.filter(billing_groups::codigo_integracao.eq(v)),
                    _ => q.filter(billing_groups::codigo_produto.eq(v)),
                }
            }
            F::Description | F::ChangedBy => {
                let v = text(value)?;
                if *field == F::Description {
                    q.filter(billing_groups::descricao.eq(v))
                } else {
                    q.filter(billing_groups::alterado_por.eq(v))
                }
            }
            F::CreatedAt | F::UpdatedAt => {
                let v = timestamp(value)?;
                if *field == F::CreatedAt {
                    q.filter(billing_groups::criado_em.eq(v))
                } else {
                    q.filter(billing_groups::alterado_em.eq(v))
                }
            }
        };
    }
    Some(q)
}

/// A product listing's conditions as a query, or `None` when a value can match nothing.
fn products_matching(query: &ListQuery<ProductField>) -> Option<products::BoxedQuery<'static, Pg>> {
    use ProductField as F;
    let mut q = products::table.into_boxed();
    if let Some(after) = query.after {
        q = q.filter(products::id.gt(after));
    }
    for (field, value) in &query.conditions {
        q = match field {
            F::Id | F::Value => {
                let v = int8(value)?;
                if *field == F::Id {
                    q.filter(products::id.eq(v))
                } else {
                    q.filter(products::valor.eq(v))
                }
            }
            F::ProductCode | F::IntegrationCode => {
                let v = int4(value)?;
                if *field == F::ProductCode {
                    q.filter(products::codigo_produto.eq(v))
                } else {
                    q.filter(products::codigo_integracao.eq(v))
                }
            }
            F::Name | F::ChangedBy => {
                let v = text(value)?;
                if *field == F::Name {
                    q.filter(products::nome.eq(v))
                } else {
                    q.filter(products::alterado_por.eq(v))
                }
            }
            F::Active => {
                let v = boolean(value)?;
                q.filter(products::ativo.eq(v))
            }
            F::CreatedAt | F::UpdatedAt => {
                let v = timestamp(value)?;
                if *field == F::CreatedAt {
                    q.filter(products::criado_em.eq(v))
                } else {
                    q.filter(products::alterado_em.eq(v))
                }
            }
        };
    }
    Some(q)
}

#[async_trait]
impl CatalogStore for PgCatalog {
    async fn list_billing_groups(&self, query: &ListQuery<BillingGroupField>) -> Result<Vec<BillingGroup>, StoreError> {
        let rows: Vec<BillingGroupRow> = self
            .reads
            .read(|mut conn| async move {
                // Built per attempt: a read may run again on the primary, and a boxed query is used up.
                let Some(q) = billing_groups_matching(query) else {
                    return Ok(Vec::new());
                };
                q.order(billing_groups::id.asc())
                    .limit(query.limit)
                    .offset(query.offset)
                    .select(BillingGroupRow::as_select())
                    .load(&mut conn)
                    .await
                    .map_err(query_error)
            })
            .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn all_terms(&self) -> Result<Vec<(i32, String)>, StoreError> {
        let rows: Vec<(i32, Option<String>)> = self
            .reads
            .read(|mut conn| async move {
                products::table
                    .filter(products::termos.is_not_null())
                    .select((products::codigo_produto, products::termos))
                    .order(products::codigo_produto)
                    .load(&mut conn)
                    .await
                    .map_err(query_error)
            })
            .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(code, terms)| Some((code, terms?)))
            .collect())
    }

    async fn list_products(&self, query: &ListQuery<ProductField>) -> Result<Vec<Product>, StoreError> {
        let rows: Vec<ProductRow> = self
            .reads
            .read(|mut conn| async move {
                let Some(q) = products_matching(query) else {
                    return Ok(Vec::new());
                };
                q.order(products::id.asc())
                    .limit(query.limit)
                    .offset(query.offset)
                    .select(ProductRow::as_select())
                    .load(&mut conn)
                    .await
                    .map_err(query_error)
            })
            .await?;
        Ok(rows.into_iter().map(|r| r.into_product(Vec::new())).collect())
    }

    async fn product_with_banks(&self, product_code: i32) -> Result<Option<Product>, StoreError> {
        self.reads
            .read(|mut conn| async move {
                let row: Option<ProductRow> = products::table
                    .filter(products::codigo_produto.eq(product_code))
                    .select(ProductRow::as_select())
                    .first(&mut conn)
                    .await
                    .optional()
                    .map_err(query_error)?;
                let Some(row) = row else { return Ok(None) };
                let banks = banks_of(&mut conn, row.id).await.map_err(query_error)?;
                Ok(Some(row.into_product(banks)))
            })
            .await
    }

    async fn billing_group(&self, billing_code: i32) -> Result<Option<BillingGroup>, StoreError> {
        let row: Option<BillingGroupRow> = self
            .reads
            .read(|mut conn| async move {
                billing_groups::table
                    .filter(billing_groups::codigo_faturamento.eq(billing_code))
                    .select(BillingGroupRow::as_select())
                    .first(&mut conn)
                    .await
                    .optional()
                    .map_err(query_error)
            })
            .await?;
        Ok(row.map(Into::into))
    }

    async fn create_product(&self, input: &ProductInput, changed_by: &str) -> Result<Product, CatalogWriteError> {
        let mut conn = connection(&self.pool).await?;
        let product = conn
            .transaction(async |conn| {
                let row: ProductRow = diesel::insert_into(products::table)
                    .values((
                        products::codigo_produto.eq(input.code),
                        products::nome.eq(&input.name),
                        products::codigo_integracao.eq(input.integration_code),
                        products::ativo.eq(input.active),
                        products::valor.eq(input.value_cents),
                        products::price_id.eq(input.price_id.as_deref()),
                        products::termos.eq(input.terms.as_deref()),
                        products::alterado_por.eq(changed_by),
                    ))
                    .returning(ProductRow::as_returning())
                    .get_result(conn)
                    .await?;
                replace_banks(conn, row.id, &input.banks).await?;
                let banks = banks_of(conn, row.id).await?;
                let mut product = row.into_product(banks);
                product.terms = input.terms.clone();
                Ok::<_, TxError>(product)
            })
            .await?;
        Ok(product)
    }

    async fn update_product(
        &self,
        product_code: i32,
        input: &ProductInput,
        changed_by: &str,
    ) -> Result<Product, CatalogWriteError> {
        let mut conn = connection(&self.pool).await?;
        let product = conn
            .transaction(async |conn| {
                // The name the proposals' documents show, before the edit.
                let shown_name: Option<String> = products::table
                    .filter(products::codigo_produto.eq(product_code))
                    .select(products::nome)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let row: Option<ProductRow> =
                    diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
                        .set((
                            products::codigo_produto.eq(input.code),
                            products::nome.eq(&input.name),
                            products::codigo_integracao.eq(input.integration_code),
                            products::ativo.eq(input.active),
                            products::valor.eq(input.value_cents),
                            products::price_id.eq(input.price_id.as_deref()),
                            products::termos.eq(input.terms.as_deref()),
                            products::alterado_por.eq(changed_by),
                            products::alterado_em.eq(diesel::dsl::now),
                        ))
                        .returning(ProductRow::as_returning())
                        .get_result(conn)
                        .await
                        .optional()?;
                let Some(row) = row else {
                    return Err(TxError::Outcome(CatalogWriteError::NotFound));
                };
                if shown_name.as_deref() != Some(input.name.as_str()) || input.code != product_code {
                    read_model::write_documents_showing(conn, read_model::Shown::Product(row.id)).await?;
                }
                replace_banks(conn, row.id, &input.banks).await?;
                // Billing groups carry their product's integration code (the code itself cascades).
                diesel::update(billing_groups::table.filter(billing_groups::codigo_produto.eq(row.codigo_produto)))
                    .set(billing_groups::codigo_integracao.eq(row.codigo_integracao))
                    .execute(conn)
                    .await?;
                let banks = banks_of(conn, row.id).await?;
                let mut product = row.into_product(banks);
                product.terms = input.terms.clone();
                Ok(product)
            })
            .await?;
        Ok(product)
    }

    async fn create_billing_group(
        &self,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError> {
        let mut conn = connection(&self.pool).await?;
        let group = conn
            .transaction(async |conn| {
                let integration: Option<i32> = products::table
                    .filter(products::codigo_produto.eq(input.product_code))
                    .select(products::codigo_integracao)
                    .first(conn)
                    .await
                    .optional()?;
                let Some(integration) = integration else {
                    return Err(TxError::Outcome(CatalogWriteError::UnknownProduct));
                };
                let row: BillingGroupRow = diesel::insert_into(billing_groups::table)
                    .values((
                        billing_groups::codigo_faturamento.eq(input.billing_code),
                        billing_groups::descricao.eq(&input.description),
                        billing_groups::codigo_integracao.eq(integration),
                        billing_groups::codigo_produto.eq(input.product_code),
                        billing_groups::alterado_por.eq(changed_by),
                    ))
                    .returning(BillingGroupRow::as_returning())
                    .get_result(conn)
                    .await?;
                Ok(row.into())
            })
            .await?;
        Ok(group)
    }

    async fn update_billing_group(
        &self,
        billing_code: i32,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError> {
        let mut conn = connection(&self.pool).await?;
        let group = conn
            .transaction(async |conn| {
                let integration: Option<i32> = products::table
                    .filter(products::codigo_produto.eq(input.product_code))
                    .select(products::codigo_integracao)
                    .first(conn)
                    .await
                    .optional()?;
                let Some(integration) = integration else {
                    return Err(TxError::Outcome(CatalogWriteError::UnknownProduct));
                };
                let row: Option<BillingGroupRow> =
                    diesel::update(billing_groups::table.filter(billing_groups::codigo_faturamento.eq(billing_code)))
                        .set((
                            billing_groups::codigo_faturamento.eq(input.billing_code),
                            billing_groups::descricao.eq(&input.description),
                            billing_groups::codigo_integracao.eq(integration),
                            billing_groups::codigo_produto.eq(input.product_code),
                            billing_groups::alterado_por.eq(changed_by),
                            billing_groups::alterado_em.eq(diesel::dsl::now),
                        ))
                        .returning(BillingGroupRow::as_returning())
                        .get_result(conn)
                        .await
                        .optional()?;
                row.map(Into::into).ok_or(TxError::Outcome(CatalogWriteError::NotFound))
            })
            .await?;
        Ok(group)
    }
}
