//! The document's `recurrence` part: the Pix Automático recurrence.

use crate::schema::pix_recurrences as recurrences;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::billing::pix::{RecurrenceStatus, RecurrenceView};
use domain::values::StoredValueError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The recurrence in a proposal's document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable, Selectable)]
#[diesel(table_name = recurrences)]
pub(crate) struct RecurrencePart {
    pub id_rec: String,
    pub status: String,
    pub pix_copia_e_cola: Option<String>,
}

impl TryFrom<RecurrencePart> for RecurrenceView {
    type Error = StoredValueError;

    fn try_from(r: RecurrencePart) -> Result<Self, StoredValueError> {
        Ok(RecurrenceView {
            status: RecurrenceStatus::parse(&r.status)
                .ok_or_else(|| StoredValueError::new("pix_recurrences", "status", &r.status))?,
            id_rec: r.id_rec,
            // The QR code is for the payer to authorise: shown only while they have not.
            pix_copia_e_cola: r.pix_copia_e_cola,
        })
    }
}

/// The recurrence of each proposal of `ids` that has one: the read model's `pix_recurrence` part.
pub(crate) async fn recurrences_of(
    conn: &mut &AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, RecurrencePart>> {
    let rows: Vec<(i64, RecurrencePart)> = recurrences::table
        .filter(recurrences::id_proposta.eq_any(ids))
        .select((recurrences::id_proposta, RecurrencePart::as_select()))
        .load(conn)
        .await?;
    Ok(rows.into_iter().collect())
}
