//! The document's `averbacao` part: the payroll discount's averbação.

use crate::schema::averbacoes;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::averbacao::{AverbacaoStatus, AverbacaoView};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The averbação in a proposal's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable, Selectable)]
#[diesel(table_name = averbacoes)]
pub(crate) struct AverbacaoPart {
    pub id_externo: Option<String>,
    pub situacao: String,
    pub margem: Option<i64>,
    pub motivo: Option<String>,
    pub solicitada_em: DateTime<Utc>,
    pub situacao_em: DateTime<Utc>,
}

impl TryFrom<AverbacaoPart> for AverbacaoView {
    type Error = StoredValueError;

    fn try_from(a: AverbacaoPart) -> Result<Self, StoredValueError> {
        Ok(AverbacaoView {
            status: AverbacaoStatus::parse(&a.situacao)
                .ok_or_else(|| StoredValueError::new("averbacoes", "situacao", &a.situacao))?,
            id: a.id_externo,
            margin_cents: a.margem,
            reason: a.motivo,
            requested_at: a.solicitada_em,
            updated_at: a.situacao_em,
        })
    }
}

/// The averbação of each proposal of `ids` that has one.
pub(crate) async fn averbacoes_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, AverbacaoPart>> {
    let rows: Vec<(i64, AverbacaoPart)> = averbacoes::table
        .filter(averbacoes::id_proposta.eq_any(ids))
        .select((averbacoes::id_proposta, AverbacaoPart::as_select()))
        .load(conn)
        .await?;
    Ok(rows.into_iter().collect())
}
