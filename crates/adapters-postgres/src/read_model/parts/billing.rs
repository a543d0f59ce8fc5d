//! The document's `billing` and `charges` parts: a contract's billing and its last charges.

use crate::schema::{charges, contract_billings as billings};
use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::Integer;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::{Billing, BillingStatus, CHARGES_SHOWN, Charge, ChargeStatus};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A charge as the read model keeps it: the row's columns by their names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable, Selectable)]
#[diesel(table_name = charges)]
pub(crate) struct ChargePart {
    pub periodo: i32,
    pub vencimento: NaiveDate,
    pub valor: i64,
    pub metodo: String,
    pub status: String,
    pub tentativas: i32,
    pub proxima_tentativa: Option<NaiveDate>,
    pub id_externo: Option<String>,
    pub motivo: Option<String>,
    pub pago_em: Option<DateTime<Utc>>,
    pub criada_em: DateTime<Utc>,
    pub alterada_em: DateTime<Utc>,
    /// Absent from documents built before migration 000059 (read as never presented until built
    /// again: the migration marks them).
    #[serde(default)]
    pub apresentada_em: Option<DateTime<Utc>>,
}

impl TryFrom<ChargePart> for Charge {
    type Error = StoredValueError;

    fn try_from(c: ChargePart) -> Result<Self, StoredValueError> {
        Ok(Charge {
            period: c.periodo,
            due_date: c.vencimento,
            amount: c.valor,
            method: c.metodo,
            status: ChargeStatus::from_stored(&c.status, "charges", "status")?,
            attempts: c.tentativas,
            presented_at: c.apresentada_em,
            next_attempt: c.proxima_tentativa,
            external_id: c.id_externo,
            reason: c.motivo,
            paid_at: c.pago_em,
            created_at: c.criada_em,
            updated_at: c.alterada_em,
        })
    }
}

/// A contract's billing status as the read model keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable, Selectable)]
#[diesel(table_name = billings)]
pub(crate) struct BillingPart {
    pub situacao: String,
    pub situacao_desde: DateTime<Utc>,
}

impl TryFrom<BillingPart> for Billing {
    type Error = StoredValueError;

    fn try_from(b: BillingPart) -> Result<Self, StoredValueError> {
        Ok(Billing {
            status: BillingStatus::from_stored(&b.situacao, "contract_billings", "situacao")?,
            since: b.situacao_desde,
        })
    }
}

/// The billing of each proposal of `ids` that has one: the read model's `billing` part.
pub(crate) async fn billings_of(conn: &mut &AsyncPgConnection, ids: &[i64]) -> QueryResult<HashMap<i64, BillingPart>> {
    let rows: Vec<(i64, BillingPart)> = billings::table
        .filter(billings::id_proposta.eq_any(ids))
        .select((billings::id_proposta, BillingPart::as_select()))
        .load(conn)
        .await?;
    Ok(rows.into_iter().collect())
}

/// The last [`CHARGES_SHOWN`] charges of each proposal of `ids`, oldest first: the read model's
/// `charges` part.
pub(crate) async fn charges_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, Vec<ChargePart>>> {
    // The window keeps each contract's last periods; the unique (contract, period) index serves it.
    let shown = i32::try_from(CHARGES_SHOWN).unwrap_or(i32::MAX);
    let rows: Vec<(i64, ChargePart)> = charges::table
        .filter(charges::id_proposta.eq_any(ids))
        .filter(
            charges::periodo.gt(sql::<Integer>(
                "coalesce((SELECT max(l.periodo) FROM charges l WHERE l.id_proposta = charges.id_proposta), 0) - ",
            )
            .bind::<Integer, _>(shown)),
        )
        .order((charges::id_proposta, charges::periodo))
        .select((charges::id_proposta, ChargePart::as_select()))
        .load(conn)
        .await?;
    let mut by_proposal: HashMap<i64, Vec<ChargePart>> = HashMap::new();
    for (proposal_id, part) in rows {
        by_proposal.entry(proposal_id).or_default().push(part);
    }
    Ok(by_proposal)
}
