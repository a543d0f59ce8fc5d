//! The document's `term` part: the contract's current term (decision 270).

use crate::schema::contract_terms;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::term::{ContractTerm, Renewal};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The current term in a proposal's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable, Selectable)]
#[diesel(table_name = contract_terms)]
pub(crate) struct TermPart {
    pub sequencia: i32,
    pub inicio: NaiveDate,
    pub fim: NaiveDate,
    pub renovacao: String,
    pub renovada_em: Option<DateTime<Utc>>,
}

impl TryFrom<TermPart> for ContractTerm {
    type Error = StoredValueError;

    fn try_from(t: TermPart) -> Result<Self, StoredValueError> {
        Ok(ContractTerm {
            sequence: u32::try_from(t.sequencia)
                .map_err(|_| StoredValueError::new("contract_terms", "sequencia", &t.sequencia.to_string()))?,
            start: t.inicio,
            end: t.fim,
            renewal: Renewal::parse(&t.renovacao)
                .ok_or_else(|| StoredValueError::new("contract_terms", "renovacao", &t.renovacao))?,
            renewed_at: t.renovada_em,
        })
    }
}

/// The current (latest) term of each proposal of `ids` that has one.
pub(crate) async fn terms_of(conn: &mut &AsyncPgConnection, ids: &[i64]) -> QueryResult<HashMap<i64, TermPart>> {
    let rows: Vec<(i64, TermPart)> = contract_terms::table
        .filter(contract_terms::id_proposta.eq_any(ids))
        .order((contract_terms::id_proposta, contract_terms::sequencia.desc()))
        .distinct_on(contract_terms::id_proposta)
        .select((contract_terms::id_proposta, TermPart::as_select()))
        .load(conn)
        .await?;
    Ok(rows.into_iter().collect())
}
