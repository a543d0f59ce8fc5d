//! `check read-model`: every document built again and compared with the stored one (reported, or
//! mended), and the built documents the tests compare.

#[cfg(feature = "testing")]
use super::reads::{DOCUMENT, StoredDocument};
use super::*;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::prepared::prepared;
use crate::statement::statement;
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::proposals::model::ProposalDetail;
use domain::store::StoreError;
use std::collections::HashMap;

/// What `check read-model` found: how many proposals it compared, the identifiers of those whose
/// stored document differs from the one their parts make now (missing, stale or left over), and
/// how many it rewrote (only when asked to repair).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadModelReport {
    pub checked: u64,
    pub drifted: Vec<String>,
    pub repaired: u64,
}

#[derive(QueryableByName)]
struct Listed {
    #[diesel(sql_type = Int8)]
    id: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
}

/// Builds every proposal's document again and compares it with the stored one (missing, stale,
/// marked by the guard, left over or unreadable: drifted); with `repair`, rewrites each batch's
/// drifted documents in one transaction.
pub async fn check_read_model(pool: &PgPool, repair: bool) -> Result<ReadModelReport, StoreError> {
    statement! {
        SELECT_PROPOSAL_READ_MODEL_STALE => StoredRow = "SELECT id_proposta, identificador, fluxo, id_parceiro, documento::text AS documento, \
                     EXISTS (SELECT 1 FROM proposal_read_model_stale s WHERE s.id_proposta = m.id_proposta) AS stale \
                 FROM proposal_read_models m WHERE id_proposta = ANY($1)";
    }
    statement! {
        SELECT_PROPOSALS => Listed = "SELECT id, identificador FROM proposals WHERE id > $1 ORDER BY id LIMIT $2";
    }
    let mut conn = connection(pool).await?;
    let conn: &mut AsyncPgConnection = &mut conn;
    let mut report = ReadModelReport::default();
    let mut after = 0_i64;
    loop {
        let batch: Vec<Listed> = prepared(SELECT_PROPOSALS, |q| {
            q.bind::<Int8, _>(after).bind::<Int8, _>(CHECK_BATCH)
        })
        .load(conn)
        .await
        .map_err(query_error)?;
        let Some(last) = batch.last() else { break };
        after = last.id;
        report.checked += batch.len() as u64;
        let ids: Vec<i64> = batch.iter().map(|p| p.id).collect();
        let built = build_documents(conn, &ids).await.map_err(query_error)?;
        let stored: Vec<StoredRow> = prepared(SELECT_PROPOSAL_READ_MODEL_STALE, |q| q.bind::<Array<Int8>, _>(&ids))
            .load(conn)
            .await
            .map_err(query_error)?;
        let stored: HashMap<i64, StoredRow> = stored.into_iter().map(|row| (row.id_proposta, row)).collect();
        let (drifted, identifiers): (Vec<i64>, Vec<String>) = batch
            .into_iter()
            .filter(|p| match (stored.get(&p.id), built.get(&p.id)) {
                (Some(row), Some(document)) => !row.matches(document),
                (None, None) => false,
                _ => true,
            })
            .map(|p| (p.id, p.identificador))
            .unzip();
        if repair && !drifted.is_empty() {
            conn.transaction(async |tx| write_documents(tx, &drifted).await.map(drop))
                .await
                .map_err(query_error)?;
            report.repaired += drifted.len() as u64;
        }
        report.drifted.extend(identifiers);
    }
    Ok(report)
}

/// Builds the document of the proposal with this identifier from its parts now, as its stored
/// document must read (the read model's tests compare the two).
pub async fn built_detail(pool: &PgPool, identifier: &str) -> Result<Option<ProposalDetail>, StoreError> {
    if names_no_row(identifier) {
        return Ok(None);
    }
    let mut conn = connection(pool).await?;
    let Some(id) = id_of(&mut conn, identifier).await? else {
        return Ok(None);
    };
    let mut built = build_documents(&mut conn, &[id]).await.map_err(query_error)?;
    Ok(built.remove(&id).map(ProposalDetail::try_from).transpose()?)
}

/// The stored document of the proposal with this identifier, and the one its parts build now,
/// each as JSON: the read-model tests compare their keys (a statement that writes a document
/// itself, as route 5's does, must write the keys [`ProposalDocument`] keeps, no more).
#[cfg(feature = "testing")]
pub async fn stored_and_built_json(
    pool: &PgPool,
    identifier: &str,
) -> Result<Option<(serde_json::Value, serde_json::Value)>, StoreError> {
    let mut conn = connection(pool).await?;
    let Some(id) = id_of(&mut conn, identifier).await? else {
        return Ok(None);
    };
    let stored: Option<StoredDocument> = prepared(DOCUMENT, |q| q.bind::<Text, _>(identifier))
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
    let mut built = build_documents(&mut conn, &[id]).await.map_err(query_error)?;
    let (Some(stored), Some(built)) = (stored, built.remove(&id)) else {
        return Ok(None);
    };
    let unexpected = |error: serde_json::Error| StoreError::Unexpected(error.to_string());
    Ok(Some((
        serde_json::from_str(&stored.documento).map_err(unexpected)?,
        serde_json::to_value(&built).map_err(unexpected)?,
    )))
}
