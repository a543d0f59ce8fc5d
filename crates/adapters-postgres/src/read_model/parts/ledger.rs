//! The document's `ledger` part: the balances of the proposal's money.

use crate::schema::ledger_entries;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::ledger::{EntryKind, LedgerBalance};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The document's `ledger` part: the balances, in cents (absent when all are zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct LedgerPart {
    pub due: i64,
    pub received: i64,
    pub refunded: i64,
    pub owed_back: i64,
}

impl LedgerPart {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl From<LedgerBalance> for LedgerPart {
    fn from(b: LedgerBalance) -> Self {
        LedgerPart {
            due: b.due,
            received: b.received,
            refunded: b.refunded,
            owed_back: b.owed_back,
        }
    }
}

impl From<LedgerPart> for LedgerBalance {
    fn from(p: LedgerPart) -> Self {
        LedgerBalance {
            due: p.due,
            received: p.received,
            refunded: p.refunded,
            owed_back: p.owed_back,
        }
    }
}

/// The balances of `ids` from their entries, by proposal (the read model's part).
pub(crate) async fn ledgers_of(conn: &mut &AsyncPgConnection, ids: &[i64]) -> QueryResult<HashMap<i64, LedgerPart>> {
    let rows: Vec<(i64, String, Option<i64>)> = ledger_entries::table
        .filter(ledger_entries::id_proposta.eq_any(ids))
        .group_by((ledger_entries::id_proposta, ledger_entries::tipo))
        .select((
            ledger_entries::id_proposta,
            ledger_entries::tipo,
            diesel::dsl::sql::<Nullable<BigInt>>("sum(valor)::bigint"),
        ))
        .load(conn)
        .await?;
    let mut totals: HashMap<i64, Vec<(EntryKind, i64)>> = HashMap::new();
    for (proposal_id, kind, total) in rows {
        let kind = EntryKind::parse(&kind).ok_or_else(|| {
            diesel::result::Error::DeserializationError(format!("ledger_entries.tipo desconhecido: {kind}").into())
        })?;
        totals.entry(proposal_id).or_default().push((kind, total.unwrap_or(0)));
    }
    Ok(totals
        .into_iter()
        .map(|(id, totals)| (id, LedgerBalance::from_totals(totals).into()))
        .collect())
}
