//! The catalog: reads for every application, management for the back office.

pub mod bodies;
pub mod model;
pub mod ports;

use crate::access::{AccessError, Operation, authorize};
use crate::auth::model::Principal;
use crate::store::StoreError;
use model::{
    BillingGroup, BillingGroupField, BillingGroupInput, CatalogPage, ListQuery, Product, ProductField, ProductInput,
};
use ports::{CatalogStore, CatalogWriteError};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error("produto não encontrado")]
    ProductNotFound,
    #[error(transparent)]
    Write(#[from] CatalogWriteError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Every product (with its terms) and billing group.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogOverview {
    pub products: Vec<Product>,
    pub billing_groups: Vec<BillingGroup>,
}

/// A listing of every row (as many as a listing may hold).
fn everything<F>() -> ListQuery<F> {
    ListQuery {
        fields: Vec::new(),
        conditions: Vec::new(),
        limit: model::MAX_LIMIT,
        offset: 0,
        after: None,
    }
}

/// The query with one row more than its page: whether a next page exists.
fn one_more<F: Clone>(query: &ListQuery<F>) -> ListQuery<F> {
    ListQuery {
        limit: query.limit.saturating_add(1),
        ..query.clone()
    }
}

#[derive(Clone)]
pub struct CatalogService {
    pub store: Arc<dyn CatalogStore>,
}

impl CatalogService {
    /// One page of billing groups and the cursor of the next.
    pub async fn billing_groups(
        &self,
        principal: &Principal,
        query: &ListQuery<BillingGroupField>,
    ) -> Result<CatalogPage<BillingGroup>, CatalogError> {
        authorize(principal, Operation::ReadCatalog)?;
        let rows = self.store.list_billing_groups(&one_more(query)).await?;
        Ok(CatalogPage::of(rows, query, |g| g.id))
    }

    /// One page of products and the cursor of the next.
    pub async fn products(
        &self,
        principal: &Principal,
        query: &ListQuery<ProductField>,
    ) -> Result<CatalogPage<Product>, CatalogError> {
        authorize(principal, Operation::ReadCatalog)?;
        let rows = self.store.list_products(&one_more(query)).await?;
        Ok(CatalogPage::of(rows, query, |p| p.id))
    }

    /// The whole catalog for the back office: every product (each with its terms) and every
    /// billing group, by id.
    pub async fn overview(&self, principal: &Principal) -> Result<CatalogOverview, CatalogError> {
        authorize(principal, Operation::ManageCatalog)?;
        let (products, groups) = (everything::<ProductField>(), everything::<BillingGroupField>());
        let (mut products, billing_groups, terms) = futures_util::try_join!(
            self.store.list_products(&products),
            self.store.list_billing_groups(&groups),
            self.store.all_terms(),
        )?;
        for product in &mut products {
            product.terms = terms
                .iter()
                .find(|(code, _)| *code == product.code)
                .map(|(_, text)| text.clone());
        }
        Ok(CatalogOverview {
            products,
            billing_groups,
        })
    }

    /// Route 11.
    pub async fn product_banks(&self, principal: &Principal, product_code: i32) -> Result<Product, CatalogError> {
        authorize(principal, Operation::ReadCatalog)?;
        self.store
            .product_with_banks(product_code)
            .await?
            .ok_or(CatalogError::ProductNotFound)
    }

    pub async fn create_product(&self, principal: &Principal, input: ProductInput) -> Result<Product, CatalogError> {
        authorize(principal, Operation::ManageCatalog)?;
        Ok(self.store.create_product(&input, &principal.email).await?)
    }

    pub async fn update_product(
        &self,
        principal: &Principal,
        product_code: i32,
        input: ProductInput,
    ) -> Result<Product, CatalogError> {
        authorize(principal, Operation::ManageCatalog)?;
        Ok(self
            .store
            .update_product(product_code, &input, &principal.email)
            .await?)
    }

    pub async fn create_billing_group(
        &self,
        principal: &Principal,
        input: BillingGroupInput,
    ) -> Result<BillingGroup, CatalogError> {
        authorize(principal, Operation::ManageCatalog)?;
        Ok(self.store.create_billing_group(&input, &principal.email).await?)
    }

    pub async fn update_billing_group(
        &self,
        principal: &Principal,
        billing_code: i32,
        input: BillingGroupInput,
    ) -> Result<BillingGroup, CatalogError> {
        authorize(principal, Operation::ManageCatalog)?;
        Ok(self
            .store
            .update_billing_group(billing_code, &input, &principal.email)
            .await?)
    }
}
