//! The document's `refunds` part.

use crate::schema::refunds;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::refunds::correction::Correction;
use domain::refunds::{RefundChannel, RefundReason, RefundRecord};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The columns of a [`RefundPart`], in its order.
macro_rules! refund_columns {
    () => {
        (
            refunds::id,
            refunds::invoice_id,
            refunds::motivo,
            refunds::meio,
            refunds::amount_cents,
            refunds::nominal_cents,
            refunds::status,
            refunds::correcao,
            refunds::referencia,
            refunds::created_at,
            refunds::vence_em,
        )
    };
}
pub(crate) use refund_columns;

/// A refund as the read model keeps it: its row, columns by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable)]
pub(crate) struct RefundPart {
    pub id: String,
    pub invoice_id: Option<String>,
    pub motivo: String,
    pub meio: String,
    pub amount_cents: i64,
    /// `NULL`: the whole amount (a withdrawal's refund written by an instance older than
    /// migration 42).
    pub nominal_cents: Option<i64>,
    pub status: String,
    pub correcao: Option<serde_json::Value>,
    pub referencia: Option<String>,
    pub created_at: DateTime<Utc>,
    /// `None` in documents written before migration 58.
    #[serde(default)]
    pub vence_em: Option<NaiveDate>,
}

impl TryFrom<RefundPart> for RefundRecord {
    type Error = StoredValueError;

    fn try_from(r: RefundPart) -> Result<Self, StoredValueError> {
        let correction = r
            .correcao
            .map(|json| {
                serde_json::from_value::<Correction>(json.clone())
                    .map_err(|_| StoredValueError::new("refunds", "correcao", &json.to_string()))
            })
            .transpose()?;
        Ok(RefundRecord {
            reason: RefundReason::parse(&r.motivo)
                .ok_or_else(|| StoredValueError::new("refunds", "motivo", &r.motivo))?,
            channel: RefundChannel::parse(&r.meio).ok_or_else(|| StoredValueError::new("refunds", "meio", &r.meio))?,
            id: r.id,
            invoice_id: r.invoice_id,
            amount: r.amount_cents,
            nominal: r.nominal_cents.unwrap_or(r.amount_cents),
            status: r.status,
            correction,
            reference: r.referencia,
            // A refund to pay an instance older than migration 58 wrote: the default's days.
            due_on: r.vence_em.or_else(|| {
                (r.meio == RefundChannel::ToPay.as_str())
                    .then(|| domain::refunds::due_date(r.created_at, domain::refunds::DEFAULT_DUE_DAYS))
            }),
            created_at: r.created_at,
        })
    }
}

/// The refunds of `ids`, oldest first (a card's before the part of it to pay), by proposal id (one statement of the read model's pipeline).
pub(crate) async fn refunds_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, Vec<RefundPart>>> {
    let rows: Vec<(i64, RefundPart)> = refunds::table
        .filter(refunds::proposal_id.eq_any(ids))
        // A refund's platform part before what the finance team pays of it ('plataforma' sorts
        // after 'a_pagar').
        .order((
            refunds::proposal_id,
            refunds::created_at,
            refunds::meio.desc(),
            refunds::id,
        ))
        .select((refunds::proposal_id, refund_columns!()))
        .load(conn)
        .await?;
    let mut by_proposal: HashMap<i64, Vec<RefundPart>> = HashMap::new();
    for (proposal_id, part) in rows {
        by_proposal.entry(proposal_id).or_default().push(part);
    }
    Ok(by_proposal)
}
