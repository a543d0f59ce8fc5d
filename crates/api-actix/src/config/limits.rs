//! The business limits that change with the law or the market: the lowest salary of a standard
//! proposal and the ages a customer may have.

use super::{ConfigError, bad};
use domain::proposals::service::CustomerRules;
use domain::values::AgeBounds;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Raw {
    #[serde(default = "min_salary_cents")]
    min_salary_cents: i64,
    #[serde(default = "customer_min_age")]
    customer_min_age: u32,
    #[serde(default = "customer_max_age")]
    customer_max_age: u32,
}

/// 2024's minimum wage, which the spec's own sample sends (it changes every year).
fn min_salary_cents() -> i64 {
    141_200
}
fn customer_min_age() -> u32 {
    18
}
fn customer_max_age() -> u32 {
    120
}

impl Raw {
    pub(super) fn check(&self) -> Result<CustomerRules, ConfigError> {
        if self.min_salary_cents < 0 {
            return Err(bad("MIN_SALARY_CENTS", "deve ser um inteiro de centavos não negativo"));
        }
        if self.customer_min_age > self.customer_max_age {
            return Err(bad("CUSTOMER_MIN_AGE", "deve ser no máximo CUSTOMER_MAX_AGE"));
        }
        Ok(CustomerRules {
            min_salary_cents: self.min_salary_cents,
            age: AgeBounds {
                min_years: self.customer_min_age,
                max_years: self.customer_max_age,
            },
        })
    }
}
