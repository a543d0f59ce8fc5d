//! The catalog kept in memory: served from memory while nothing changes, dropped by any change
//! to the catalog tables, whichever instance or tool made it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::testing::TestDatabase;
use adapters_postgres::{CachedCatalog, PgCatalog, PgPool, PoolSettings, build_pool, seed};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::catalog::model::{BillingGroupField, BillingGroupInput, FilterValue, ListQuery};
use domain::catalog::ports::CatalogStore;
use std::time::{Duration, Instant};

async fn seeded() -> (TestDatabase, PgPool) {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    (db, pool)
}

/// An instance's catalog, once its change listener is in place.
async fn instance(db: &TestDatabase, pool: &PgPool) -> CachedCatalog {
    let catalog = CachedCatalog::start(PgCatalog::new(pool.clone()), &db.url, 100);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !catalog.is_listening() {
        assert!(Instant::now() < deadline, "the catalog listener never connected");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    catalog
}

/// Runs SQL with the triggers off (`session_replication_role = replica`): a change no
/// notification announces, which only memory can hide.
async fn silently(db: &TestDatabase, sql: &str) {
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query("SET session_replication_role = replica")
        .execute(&mut conn)
        .await
        .unwrap();
    diesel::sql_query(sql).execute(&mut conn).await.unwrap();
}

async fn description(catalog: &impl CatalogStore, billing_code: i32) -> String {
    catalog.billing_group(billing_code).await.unwrap().unwrap().description
}

/// Polls until `catalog` answers `expected` for billing group `billing_code`.
async fn eventually_described(catalog: &impl CatalogStore, billing_code: i32, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = description(catalog, billing_code).await;
        if seen == expected {
            return;
        }
        assert!(Instant::now() < deadline, "still {seen:?}, expected {expected:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn reads_are_served_from_memory_until_another_instance_changes_the_catalog() {
    let (db, pool) = seeded().await;
    let first = instance(&db, &pool).await;
    let second = instance(&db, &pool).await;
    let original = description(&first, 5001).await;

    silently(
        &db,
        "UPDATE billing_groups SET descricao = 'sem aviso' WHERE codigo_faturamento = 5001",
    )
    .await;
    assert_eq!(description(&PgCatalog::new(pool.clone()), 5001).await, "sem aviso");
    assert_eq!(description(&first, 5001).await, original, "served from memory");

    let input = BillingGroupInput {
        billing_code: 5001,
        description: "Mensal - alterado pela outra instância".into(),
        product_code: 101,
    };
    second
        .update_billing_group(5001, &input, "backoffice@demo.com.br")
        .await
        .unwrap();
    // The writer sees its own change at once; the other instance once the notification lands.
    assert_eq!(description(&second, 5001).await, input.description);
    eventually_described(&first, 5001, &input.description).await;
}

#[tokio::test]
async fn an_operators_sql_change_reaches_every_instance() {
    let (db, pool) = seeded().await;
    let catalog = instance(&db, &pool).await;
    let all = ListQuery::<BillingGroupField>::parse(&[]).unwrap();
    let before = catalog.list_billing_groups(&all).await.unwrap();
    assert_eq!(before.len(), 4);
    assert!(!catalog.product_with_banks(101).await.unwrap().unwrap().banks.is_empty());

    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    diesel::sql_query(
        "DELETE FROM product_banks WHERE product_id = (SELECT id FROM products WHERE codigo_produto = 101)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    diesel::sql_query("UPDATE billing_groups SET descricao = 'pelo operador' WHERE codigo_faturamento = 5002")
        .execute(&mut conn)
        .await
        .unwrap();

    eventually_described(&catalog, 5002, "pelo operador").await;
    assert!(catalog.product_with_banks(101).await.unwrap().unwrap().banks.is_empty());
    let after = catalog.list_billing_groups(&all).await.unwrap();
    assert!(after.iter().any(|g| g.description == "pelo operador"));
}

#[tokio::test]
async fn listings_are_kept_by_their_conditions_and_page_whatever_fields_they_ask_for() {
    let (db, pool) = seeded().await;
    let catalog = instance(&db, &pool).await;
    let of_101 = |fields: &str| {
        ListQuery::<BillingGroupField>::parse(&[
            ("fields".into(), fields.into()),
            ("conditions[codigo_produto]".into(), "101".into()),
        ])
        .unwrap()
    };
    let first = catalog.list_billing_groups(&of_101("id")).await.unwrap();
    assert_eq!(first.len(), 2);
    assert!(
        of_101("id")
            .conditions
            .contains(&(BillingGroupField::ProductCode, FilterValue::Integer(101)))
    );

    silently(&db, "DELETE FROM billing_groups WHERE codigo_faturamento = 5002").await;
    // Same conditions, other fields: the kept rows. Other conditions: read afresh.
    assert_eq!(catalog.list_billing_groups(&of_101("descricao")).await.unwrap(), first);
    let page = ListQuery::<BillingGroupField>::parse(&[
        ("conditions[codigo_produto]".into(), "101".into()),
        ("limit".into(), "10".into()),
    ])
    .unwrap();
    assert_eq!(catalog.list_billing_groups(&page).await.unwrap().len(), 1);
}
