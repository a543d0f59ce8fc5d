//! The catalog kept in each instance's memory: every route reads it (the catalog routes, and
//! creating a proposal checks its product and billing group), it is small, and it changes
//! rarely, by the back office.
//!
//! Staying right with many instances: triggers on the four catalog tables `NOTIFY` the
//! `catalog_changed` channel on any change, however made (the API, a seed, an operator's SQL),
//! and every instance `LISTEN`s. A notification drops everything cached. While the listening
//! connection is down nothing is cached or served from memory (reads go to PostgreSQL), and its
//! return drops everything again, so a change made during the gap is never hidden. Each entry
//! carries the generation it was read in; an invalidation bumps the generation, so a read that
//! raced a change cannot store what it saw as current.

use crate::catalog::PgCatalog;
use crate::listener::{Freshness, ListenEvent, spawn_listener};
use crate::replicas::{ReadAfter, reading_after};
use async_trait::async_trait;
use domain::catalog::model::{
    BillingGroup, BillingGroupField, BillingGroupInput, ListQuery, Product, ProductField, ProductInput,
};
use domain::catalog::ports::{CatalogStore, CatalogWriteError};
use domain::store::StoreError;
use observability::metric;
use quick_cache::sync::Cache;
use std::hash::Hash;
use std::sync::Arc;

/// The channel the catalog triggers notify (migration `catalog_change_notices`).
pub const CATALOG_CHANNEL: &str = "catalog_changed";

/// One kind of cached read: key → (generation read in, value).
struct Shelf<K, V> {
    entries: Cache<K, (u64, V)>,
}

impl<K: Eq + Hash, V: Clone> Shelf<K, V> {
    fn new(capacity: usize) -> Self {
        Self {
            entries: Cache::new(capacity.max(1)),
        }
    }
}

/// The generation counter, whether it can be trusted, and the four shelves.
struct CatalogMemory {
    freshness: Freshness,
    billing_group_lists: Shelf<ListQuery<BillingGroupField>, Vec<BillingGroup>>,
    product_lists: Shelf<ListQuery<ProductField>, Vec<Product>>,
    products_with_banks: Shelf<i32, Option<Product>>,
    billing_groups: Shelf<i32, Option<BillingGroup>>,
    /// The metrics' handles, taken once (a read finds them without building a key).
    hits: metrics::Counter,
    misses: metrics::Counter,
    invalidations: metrics::Counter,
}

impl CatalogMemory {
    fn new(capacity: usize) -> Self {
        Self {
            freshness: Freshness::default(),
            billing_group_lists: Shelf::new(capacity),
            product_lists: Shelf::new(capacity),
            products_with_banks: Shelf::new(capacity),
            billing_groups: Shelf::new(capacity),
            hits: metrics::counter!(metric::CATALOG_CACHE_HITS),
            misses: metrics::counter!(metric::CATALOG_CACHE_MISSES),
            invalidations: metrics::counter!(metric::CATALOG_CACHE_INVALIDATIONS),
        }
    }

    /// The generation a read from PostgreSQL starts in, or `None` when nothing may be cached.
    fn current(&self) -> Option<u64> {
        self.freshness.current()
    }

    fn get<K: Eq + Hash, V: Clone>(&self, shelf: &Shelf<K, V>, key: &K) -> Option<V> {
        let generation = self.current()?;
        let (stored_in, value) = shelf.entries.get(key)?;
        (stored_in == generation).then_some(value)
    }

    fn put<K: Eq + Hash, V: Clone>(&self, shelf: &Shelf<K, V>, key: K, read_in: u64, value: V) {
        if self.current() == Some(read_in) {
            shelf.entries.insert(key, (read_in, value));
        }
    }

    /// Everything cached so far is stale.
    fn invalidate(&self) {
        self.invalidations.increment(1);
        self.freshness.move_on();
        self.billing_group_lists.entries.clear();
        self.product_lists.entries.clear();
        self.products_with_banks.entries.clear();
        self.billing_groups.entries.clear();
    }

    fn on_event(&self, event: ListenEvent) {
        self.freshness.on_event(event);
        self.invalidate();
    }
}

/// `PgCatalog` with reads kept in memory until the catalog changes.
#[derive(Clone)]
pub struct CachedCatalog {
    store: PgCatalog,
    memory: Arc<CatalogMemory>,
}

impl CachedCatalog {
    /// Starts listening for catalog changes on the current tokio runtime. `capacity` bounds each
    /// kind of read kept (listings, by their conditions and page; products and billing groups,
    /// by code).
    pub fn start(store: PgCatalog, database_url: &str, capacity: usize) -> Self {
        let memory = Arc::new(CatalogMemory::new(capacity));
        let listener = memory.clone();
        spawn_listener(database_url, CATALOG_CHANNEL, move |event| listener.on_event(event));
        Self { store, memory }
    }

    /// Whether reads are being kept: the change listener is connected.
    pub fn is_listening(&self) -> bool {
        self.memory.current().is_some()
    }

    /// Reads through the shelf: from memory when current, else from PostgreSQL (and kept). The
    /// read is made only on a miss (the store's futures are boxed: not built for nothing).
    async fn read<K, V, F>(&self, shelf: &Shelf<K, V>, key: K, load: impl FnOnce() -> F) -> Result<V, StoreError>
    where
        K: Eq + Hash,
        V: Clone,
        F: Future<Output = Result<V, StoreError>>,
    {
        if let Some(value) = self.memory.get(shelf, &key) {
            self.memory.hits.increment(1);
            return Ok(value);
        }
        self.memory.misses.increment(1);
        let read_in = self.memory.current();
        // What is kept must hold every change made before it was read, whoever made it: on a
        // replica, only one that has replayed up to the primary's position now.
        let freshness = read_in.map(|_| ReadAfter::Now);
        let value = reading_after(freshness, load()).await?;
        if let Some(read_in) = read_in {
            self.memory.put(shelf, key, read_in, value.clone());
        }
        Ok(value)
    }

    /// A write's own instance sees it at once, without waiting for its notification.
    fn written<T>(&self, result: Result<T, CatalogWriteError>) -> Result<T, CatalogWriteError> {
        self.memory.invalidate();
        result
    }
}

/// The requested fields do not change which rows a listing returns: one entry serves them all.
fn rows_of<F: Clone>(query: &ListQuery<F>) -> ListQuery<F> {
    ListQuery {
        fields: Vec::new(),
        ..query.clone()
    }
}

#[async_trait]
impl CatalogStore for CachedCatalog {
    async fn list_billing_groups(&self, query: &ListQuery<BillingGroupField>) -> Result<Vec<BillingGroup>, StoreError> {
        let shelf = &self.memory.billing_group_lists;
        self.read(shelf, rows_of(query), || self.store.list_billing_groups(query))
            .await
    }

    /// Not kept: read only by the back office's console.
    async fn all_terms(&self) -> Result<Vec<(i32, String)>, StoreError> {
        self.store.all_terms().await
    }

    async fn list_products(&self, query: &ListQuery<ProductField>) -> Result<Vec<Product>, StoreError> {
        let shelf = &self.memory.product_lists;
        self.read(shelf, rows_of(query), || self.store.list_products(query))
            .await
    }

    async fn product_with_banks(&self, product_code: i32) -> Result<Option<Product>, StoreError> {
        let shelf = &self.memory.products_with_banks;
        self.read(shelf, product_code, || self.store.product_with_banks(product_code))
            .await
    }

    async fn billing_group(&self, billing_code: i32) -> Result<Option<BillingGroup>, StoreError> {
        let shelf = &self.memory.billing_groups;
        self.read(shelf, billing_code, || self.store.billing_group(billing_code))
            .await
    }

    async fn create_product(&self, input: &ProductInput, changed_by: &str) -> Result<Product, CatalogWriteError> {
        self.written(self.store.create_product(input, changed_by).await)
    }

    async fn update_product(
        &self,
        product_code: i32,
        input: &ProductInput,
        changed_by: &str,
    ) -> Result<Product, CatalogWriteError> {
        self.written(self.store.update_product(product_code, input, changed_by).await)
    }

    async fn create_billing_group(
        &self,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError> {
        self.written(self.store.create_billing_group(input, changed_by).await)
    }

    async fn update_billing_group(
        &self,
        billing_code: i32,
        input: &BillingGroupInput,
        changed_by: &str,
    ) -> Result<BillingGroup, CatalogWriteError> {
        self.written(self.store.update_billing_group(billing_code, input, changed_by).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> CatalogMemory {
        let memory = CatalogMemory::new(16);
        memory.on_event(ListenEvent::Listening);
        memory
    }

    #[test]
    fn nothing_is_kept_or_served_until_the_listener_is_in_place() {
        let memory = CatalogMemory::new(16);
        assert_eq!(memory.current(), None);
        memory.put(&memory.billing_groups, 1, 0, None);
        memory.on_event(ListenEvent::Listening);
        assert_eq!(memory.get(&memory.billing_groups, &1), None);
    }

    #[test]
    fn a_read_is_served_until_a_notification_and_not_after() {
        let memory = memory();
        let read_in = memory.current().unwrap();
        memory.put(&memory.billing_groups, 1, read_in, None);
        assert_eq!(memory.get(&memory.billing_groups, &1), Some(None));
        memory.on_event(ListenEvent::Notified);
        assert_eq!(memory.get(&memory.billing_groups, &1), None);
    }

    #[test]
    fn a_read_that_raced_a_change_is_not_kept() {
        let memory = memory();
        let read_in = memory.current().unwrap();
        // The change's notification arrives while the read is still in flight.
        memory.on_event(ListenEvent::Notified);
        memory.put(&memory.billing_groups, 1, read_in, None);
        assert_eq!(memory.get(&memory.billing_groups, &1), None);
    }

    #[test]
    fn losing_the_listener_stops_serving_and_its_return_drops_what_was_kept() {
        let memory = memory();
        let read_in = memory.current().unwrap();
        memory.put(&memory.billing_groups, 1, read_in, None);
        memory.on_event(ListenEvent::Lost);
        assert_eq!(memory.get(&memory.billing_groups, &1), None);
        assert_eq!(memory.current(), None);
        memory.on_event(ListenEvent::Listening);
        assert_eq!(memory.get(&memory.billing_groups, &1), None);
    }
}
