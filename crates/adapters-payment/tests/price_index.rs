//! The Central Bank's IPCA series over HTTP (a wiremock double of the SGS service).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapters_payment::BcbIpca;
use chrono::NaiveDate;
use domain::refunds::ports::{IndexError, PriceIndex};
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn day(m: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, m, 1).unwrap()
}

#[tokio::test]
async fn the_window_is_asked_by_brazilian_dates_and_the_months_read_back() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/dados"))
        .and(query_param("formato", "json"))
        .and(query_param("dataInicial", "01/09/2026"))
        .and(query_param("dataFinal", "01/11/2026"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                json!([{"data": "01/09/2026", "valor": "0.48"}, {"data": "01/10/2026", "valor": "0.09"}]),
            ),
        )
        .expect(1)
        .mount(&server)
        .await;
    let index = BcbIpca::new(&format!("{}/dados", server.uri())).unwrap();
    let rates = index.monthly(day(9), day(11)).await.unwrap();
    assert_eq!(rates.len(), 2);
    assert_eq!((rates[1].month, rates[1].hundredths), (day(10), 9));
}

#[tokio::test]
async fn a_window_with_nothing_published_is_empty_and_a_failure_is_unavailable() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(query_param("dataInicial", "01/11/2026"))
        .respond_with(ResponseTemplate::new(404))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(query_param("dataInicial", "01/10/2026"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let index = BcbIpca::new(&format!("{}/dados", server.uri())).unwrap();
    assert_eq!(index.monthly(day(11), day(11)).await.unwrap(), []);
    assert!(matches!(
        index.monthly(day(10), day(11)).await,
        Err(IndexError::Unavailable(_))
    ));
}
