//! What the catalog use cases need from the store.

use crate::catalog::model::{
    BillingGroup, BillingGroupField, BillingGroupInput, ListQuery, Product, ProductField, ProductInput,
};
use crate::store::StoreError;
use async_trait::async_trait;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogWriteError {
    /// A unique code is taken; names the body field.
    #[error("{field} já cadastrado")]
    Duplicate { field: &'static str },
    /// The billing group names a product that does not exist.
    #[error("produto não encontrado")]
    UnknownProduct,
    #[error("registro não encontrado")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg_attr(feature = "mock", mockall::automock)]
#[async_trait]
pub trait CatalogStore: Send + Sync {
    /// Billing groups matching every condition (by equality, values bound as parameters), by id.
    async fn list_billing_groups(&self, query: &ListQuery<BillingGroupField>) -> Result<Vec<BillingGroup>, StoreError>;
    /// Products (without their banks) matching every condition, by id.
    async fn list_products(&self, query: &ListQuery<ProductField>) -> Result<Vec<Product>, StoreError>;
    /// The contract terms of every product that has them, by product code (the back office's
    /// console; the listings leave them out).
    async fn all_terms(&self) -> Result<Vec<(i32, String)>, StoreError>;
    /// One product with its banks.
    async fn product_with_banks(&self, product_code: i32) -> Result<Option<Product>, StoreError>;
    async fn billing_group(&self, billing_code: i32) -> Result<Option<BillingGroup>, StoreError>;
    /// Creates a product with its banks (banks new to the catalog are added).
    async fn create_product(&self, input: &ProductInput, changed_by: &str) -> Result<Product, CatalogWriteError>;
    /// Replaces the product with code `product_code` (its banks too; its billing groups follow a
    /// changed code or integration code).
    async fn update_product(
        &self,
        product_code: i32,
        input: &ProductInput,
        changed_by: &str,
    ) -> Result<Product, CatalogWriteError>;
    async fn create_billing_group(
        &self,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError>;
    async fn update_billing_group(
        &self,
        billing_code: i32,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError>;
}
