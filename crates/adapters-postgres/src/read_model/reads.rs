//! Route 7's read: the stored document by key, in the caller's scope, mended from the tables when
//! it is marked stale.

use super::*;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::prepared::prepared;
use crate::replicas::ReadPools;
use crate::schema::proposal_read_models;
use crate::statement::statement;
use diesel::prelude::*;
use diesel::sql_types::{Int8, Nullable, Text};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::access::Scope;
use domain::proposals::model::{Flow, ProposalDetail};
use domain::store::StoreError;
use domain::values::ProposalStatus;

#[derive(QueryableByName)]
pub(super) struct StoredDocument {
    #[diesel(sql_type = Text)]
    pub(super) documento: String,
    /// Marked by the guard: a write that skipped the service changed a part since it was written.
    #[diesel(sql_type = diesel::sql_types::Bool)]
    pub(super) stale: bool,
}

// One statement per scope, each kept prepared: the document by its unique identifier, and
// whether it is marked (an index probe of a table that is nearly always empty).
statement! {
    pub(super) DOCUMENT => StoredDocument = "SELECT documento::text AS documento, \
     EXISTS (SELECT 1 FROM proposal_read_model_stale s WHERE s.id_proposta = m.id_proposta) AS stale \
     FROM proposal_read_models m WHERE identificador = $1";
}

statement! {
    PARTNER_DOCUMENT => StoredDocument = "SELECT documento::text AS documento, \
     EXISTS (SELECT 1 FROM proposal_read_model_stale s WHERE s.id_proposta = m.id_proposta) AS stale \
     FROM proposal_read_models m WHERE identificador = $1 AND id_parceiro = $2 AND fluxo = $3 AND NOT bloqueado";
}

statement! {
    FLOW_DOCUMENT => StoredDocument = "SELECT documento::text AS documento, \
     EXISTS (SELECT 1 FROM proposal_read_model_stale s WHERE s.id_proposta = m.id_proposta) AS stale \
     FROM proposal_read_models m WHERE identificador = $1 AND fluxo = $2 AND NOT bloqueado";
}

// A held person's contract in force (decision 284): blocked, yet its seller still serves it.
// Probed only when the scoped read found nothing, so route 7's own read stays one statement.
statement! {
    HELD_CONTRACT_DOCUMENT => StoredDocument = "SELECT documento::text AS documento, \
     EXISTS (SELECT 1 FROM proposal_read_model_stale s WHERE s.id_proposta = m.id_proposta) AS stale \
     FROM proposal_read_models m WHERE identificador = $1 AND fluxo = $2 \
     AND ($3::int8 IS NULL OR id_parceiro = $3) AND bloqueado AND documento -> 'proposal' ->> 'status' = $4";
}

/// The document as the domain's detail: a document that does not read as one is an internal
/// error naming the proposal (the check command finds and mends it).
pub(crate) fn detail_of(identifier: &str, document: &str) -> Result<ProposalDetail, StoreError> {
    let parsed: ProposalDocument = serde_json::from_str(document).map_err(|error| {
        tracing::error!(%error, "documento de leitura ilegível");
        StoreError::Unexpected(format!(
            "documento de leitura ilegível da proposta {identifier}: {error}"
        ))
    })?;
    Ok(ProposalDetail::try_from(parsed)?)
}

/// Route 7's read: one row by key, within the caller's scope. A document the guard marked, or a
/// proposal without one (both left by a write that skipped the service), is built now from its
/// parts and written on the primary (`mend`) before it is answered.
pub(crate) async fn read_detail(
    primary: &PgPool,
    reads: &ReadPools,
    identifier: &str,
    scope: Scope,
) -> Result<Option<ProposalDetail>, StoreError> {
    if names_no_row(identifier) {
        return Ok(None);
    }
    let found: Option<StoredDocument> = reads
        .read_existing(|mut conn| async move {
            match scope {
                Scope::Partner { partner_id, .. } => {
                    prepared(PARTNER_DOCUMENT, |q| {
                        q.bind::<Text, _>(identifier)
                            .bind::<Int8, _>(partner_id)
                            .bind::<Text, _>(Flow::Partner.as_str())
                    })
                    .get_result(&mut conn)
                    .await
                }
                Scope::Ecommerce => {
                    prepared(FLOW_DOCUMENT, |q| {
                        q.bind::<Text, _>(identifier).bind::<Text, _>(Flow::Ecommerce.as_str())
                    })
                    .get_result(&mut conn)
                    .await
                }
                Scope::Everything => {
                    prepared(DOCUMENT, |q| q.bind::<Text, _>(identifier))
                        .get_result(&mut conn)
                        .await
                }
            }
            .optional()
            .map_err(query_error)
        })
        .await?;
    let found = match found {
        Some(found) => Some(found),
        None => held_contract(reads, identifier, scope).await?,
    };
    match found {
        Some(stored) if !stored.stale => detail_of(identifier, &stored.documento).map(Some),
        _ => mend(primary, identifier, scope).await,
    }
}

/// A seller's contract in force whose person is blocked under a legal hold: the block keeps the
/// person from every new use, not the contract from its service (LGPD art. 16, I keeps it for
/// the contract's own obligations; decision 284).
async fn held_contract(
    reads: &ReadPools,
    identifier: &str,
    scope: Scope,
) -> Result<Option<StoredDocument>, StoreError> {
    let (flow, partner) = match scope {
        Scope::Partner { partner_id, .. } => (Flow::Partner, Some(partner_id)),
        Scope::Ecommerce => (Flow::Ecommerce, None),
        Scope::Everything => return Ok(None),
    };
    reads
        .read_existing(|mut conn| async move {
            prepared(HELD_CONTRACT_DOCUMENT, |q| {
                q.bind::<Text, _>(identifier)
                    .bind::<Text, _>(flow.as_str())
                    .bind::<Nullable<Int8>, _>(partner)
                    .bind::<Text, _>(ProposalStatus::Approved.as_str())
            })
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)
        })
        .await
}

/// Writes the document of the proposal with this identifier as its parts are now, and answers
/// it within the caller's scope (the scope is the proposal's, as the stored row's keys say).
async fn mend(primary: &PgPool, identifier: &str, scope: Scope) -> Result<Option<ProposalDetail>, StoreError> {
    let mut conn = connection(primary).await?;
    let Some(id) = id_of(&mut conn, identifier).await? else {
        return Ok(None);
    };
    let written = conn
        .transaction(async |tx| write_documents(tx, &[id]).await)
        .await
        .map_err(query_error)?;
    let Some(document) = written
        .into_iter()
        .find(|(written_id, _)| *written_id == id)
        .map(|(_, d)| d)
    else {
        return Ok(None);
    };
    let p = &document.proposal;
    // A person's data blocked under a legal hold is the back office's only, but for a contract
    // in force, which its seller still serves (decision 284).
    let blocked = !matches!(scope, Scope::Everything)
        && p.status != ProposalStatus::Approved.as_str()
        && diesel::select(diesel::dsl::exists(
            proposal_read_models::table
                .filter(proposal_read_models::id_proposta.eq(id))
                .filter(proposal_read_models::bloqueado),
        ))
        .get_result::<bool>(&mut conn)
        .await
        .map_err(query_error)?;
    let visible = !blocked
        && match scope {
            Scope::Partner { partner_id, .. } => p.id_parceiro == Some(partner_id) && p.fluxo == Flow::Partner.as_str(),
            Scope::Ecommerce => p.fluxo == Flow::Ecommerce.as_str(),
            Scope::Everything => true,
        };
    tracing::info!("documento de leitura marcado reescrito na leitura");
    Ok(visible.then(|| ProposalDetail::try_from(document)).transpose()?)
}
