//! What the back office sets of a product's certificates (`sales-api catalog cover`): one write
//! of the cover, the insurer's SUSEP code kept when the command does not give one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_postgres::certificates::PgCertificates;
use adapters_postgres::testing::{TestDatabase, line};
use adapters_postgres::{PoolSettings, build_pool, seed};
use diesel_async::{AsyncConnection, AsyncPgConnection};
use domain::contract::insurance::CoverInput;

fn cover(insurer_susep_code: Option<&str>) -> domain::contract::insurance::ProductCover {
    CoverInput {
        insurer: "Seguradora Nova S.A.".into(),
        insurer_cnpj: "11.444.777/0001-61".into(),
        susep_process: "15414.900101/2026-01".into(),
        coverage: "Morte".into(),
        capital: 2_000_000,
        sac: "0800 000 0101".into(),
        ombudsman: "0800 000 0102".into(),
        insurer_susep_code: insurer_susep_code.map(str::to_owned),
    }
    .read()
    .unwrap()
}

const PRODUCT_101: &str = "SELECT seguradora || ':' || capital_segurado || ':' || coalesce(seguradora_codigo_susep, '-') \
     AS line FROM products WHERE codigo_produto = 101";

#[tokio::test(flavor = "multi_thread")]
async fn a_cover_is_written_whole_and_keeps_the_insurers_code_unless_one_is_given() {
    let db = TestDatabase::new().await;
    let pool = build_pool(&PoolSettings::new(&db.url)).unwrap();
    seed::seed_demo_catalog(&pool).await.unwrap();
    let certificates = PgCertificates::new(pool);
    let mut conn = AsyncPgConnection::establish(&db.url).await.unwrap();
    let seeded = line(&mut conn, PRODUCT_101).await;
    let code = seeded.rsplit(':').next().unwrap().to_owned();
    assert_eq!(code.len(), 5, "the demo insurer's code: {seeded}");

    assert!(certificates.set_cover(101, &cover(None)).await.unwrap());
    assert_eq!(
        line(&mut conn, PRODUCT_101).await,
        format!("Seguradora Nova S.A.:2000000:{code}")
    );
    assert!(certificates.set_cover(101, &cover(Some("12345"))).await.unwrap());
    assert_eq!(line(&mut conn, PRODUCT_101).await, "Seguradora Nova S.A.:2000000:12345");
    assert!(
        !certificates.set_cover(999, &cover(None)).await.unwrap(),
        "an unknown product"
    );
}
