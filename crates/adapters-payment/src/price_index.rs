//! The IPCA's monthly variations for the refunds' correction (the domain's `PriceIndex`): the
//! Central Bank's time series service (SGS, series 433, "IPCA - Variação mensal", the figures
//! IBGE publishes) in production, and a sandbox in development. It lives with the payment
//! platform's adapter because only money returned needs it.

use async_trait::async_trait;
use chrono::{Datelike, Months, NaiveDate};
use domain::refunds::correction::MonthlyRate;
use domain::refunds::ports::{IndexError, PriceIndex};
use std::time::Duration;

/// The Central Bank's series of the IPCA's monthly variation, in percent.
pub const BCB_IPCA_SERIES_URL: &str = "https://api.bcb.gov.br/dados/serie/bcdata.sgs.433/dados";

/// The Central Bank's SGS: `GET …/dados?formato=json&dataInicial=dd/mm/aaaa&dataFinal=dd/mm/aaaa`
/// answers `[{"data": "01/10/2026", "valor": "0.09"}, …]`, one entry per published month.
pub struct BcbIpca {
    http: reqwest::Client,
    url: String,
}

impl BcbIpca {
    pub fn new(url: &str) -> Result<Self, IndexError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(20))
            .build()
            .map_err(|e| IndexError::Unavailable(e.to_string()))?;
        Ok(Self {
            http,
            url: url.to_owned(),
        })
    }
}

#[async_trait]
impl PriceIndex for BcbIpca {
    async fn monthly(&self, first: NaiveDate, last: NaiveDate) -> Result<Vec<MonthlyRate>, IndexError> {
        let query = [
            ("formato", "json".to_owned()),
            ("dataInicial", first.format("%d/%m/%Y").to_string()),
            ("dataFinal", last.format("%d/%m/%Y").to_string()),
        ];
        let response = self
            .http
            .get(&self.url)
            .query(&query)
            .send()
            .await
            .map_err(|e| IndexError::Unavailable(e.without_url().to_string()))?;
        let status = response.status();
        // The service answers 404 when the window holds no published month yet (the current one).
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(Vec::new());
        }
        if !status.is_success() {
            return Err(IndexError::Unavailable(format!("HTTP {status}")));
        }
        let body: serde_json::Value = response
            .json()
            .await
            .map_err(|e| IndexError::Malformed(e.without_url().to_string()))?;
        read_series(&body)
    }
}

/// The series' entries as monthly rates.
pub fn read_series(body: &serde_json::Value) -> Result<Vec<MonthlyRate>, IndexError> {
    let entries = body
        .as_array()
        .ok_or_else(|| IndexError::Malformed("a série não é uma lista".into()))?;
    entries
        .iter()
        .map(|entry| {
            let day = entry["data"]
                .as_str()
                .and_then(|d| NaiveDate::parse_from_str(d, "%d/%m/%Y").ok())
                .ok_or_else(|| IndexError::Malformed(format!("data ilegível: {}", entry["data"])))?;
            let value = entry["valor"].as_str().unwrap_or_default();
            let hundredths =
                hundredths(value).ok_or_else(|| IndexError::Malformed(format!("valor ilegível: {value:?}")))?;
            Ok(MonthlyRate {
                month: day.with_day(1).unwrap_or(day),
                hundredths,
            })
        })
        .collect()
}

/// A percentage with at most two decimals (`"0.09"`, `"-0.11"`, `"1.31"`) in hundredths.
fn hundredths(value: &str) -> Option<i32> {
    let value = value.trim();
    let (negative, digits) = match value.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() || fraction.len() > 2 || !(whole.bytes().chain(fraction.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i32 = whole.parse().ok()?;
    let fraction: i32 = format!("{fraction:0<2}").parse().ok()?;
    let magnitude = whole.checked_mul(100)?.checked_add(fraction)?;
    Some(if negative { -magnitude } else { magnitude })
}

/// The development's index: every month at 0,40 %, published up to the month before the last one
/// asked (the last one, the current month, is not published yet, as in production until IBGE's
/// release around the 10th), so that every correction shows a projected month.
pub struct SandboxIpca;

/// The sandbox's monthly variation, in hundredths of a percent.
pub const SANDBOX_MONTHLY_HUNDREDTHS: i32 = 40;

#[async_trait]
impl PriceIndex for SandboxIpca {
    async fn monthly(&self, first: NaiveDate, last: NaiveDate) -> Result<Vec<MonthlyRate>, IndexError> {
        let mut rates = Vec::new();
        let mut month = first.with_day(1).unwrap_or(first);
        while month < last.with_day(1).unwrap_or(last) {
            rates.push(MonthlyRate {
                month,
                hundredths: SANDBOX_MONTHLY_HUNDREDTHS,
            });
            let Some(next) = month.checked_add_months(Months::new(1)) else {
                break;
            };
            month = next;
        }
        Ok(rates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_central_banks_entries_read_as_hundredths_of_a_percent() {
        let body = json!([{"data": "01/09/2026", "valor": "0.48"}, {"data": "01/10/2026", "valor": "-0.11"},
            {"data": "01/11/2026", "valor": "1.3"}]);
        let rates = read_series(&body).unwrap();
        let read: Vec<_> = rates.iter().map(|r| (r.month.month(), r.hundredths)).collect();
        assert_eq!(read, [(9, 48), (10, -11), (11, 130)]);
    }

    #[test]
    fn anything_else_is_malformed() {
        for body in [
            json!({"erro": "x"}),
            json!([{"data": "2026-10-01", "valor": "0.1"}]),
            json!([{"data": "01/10/2026", "valor": "0,10"}]),
            json!([{"data": "01/10/2026", "valor": "0.123"}]),
            json!([{"data": "01/10/2026"}]),
        ] {
            assert!(matches!(read_series(&body), Err(IndexError::Malformed(_))), "{body}");
        }
    }

    #[tokio::test]
    async fn the_sandbox_publishes_every_month_before_the_last() {
        let day = |m| NaiveDate::from_ymd_opt(2026, m, 1).unwrap();
        let rates = SandboxIpca.monthly(day(9), day(11)).await.unwrap();
        assert_eq!(rates.iter().map(|r| r.month).collect::<Vec<_>>(), [day(9), day(10)]);
        assert!(rates.iter().all(|r| r.hundredths == SANDBOX_MONTHLY_HUNDREDTHS));
    }
}
