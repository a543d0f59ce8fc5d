//! Signatures and status changes in PostgreSQL: the domain's `SignatureStore`.

use crate::event_outbox;
use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::read_model;
use crate::rows::stored;
use crate::schema::{
    proposal_notices, proposals, provider_signed_copies, removed_documents, sealed_documents, signature_callbacks,
    signature_parties as parties, signatures, signed_documents,
};
use crate::unit_of_work::change_error::ChangeError;
use crate::unit_of_work::status_change::{apply_change, events_of};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::privacy::notice::NoticesShown;
use domain::proposals::lifecycle::{StatusChange, StatusEvent};
use domain::signature::{
    ChangeStatusError, ExpiredSignature, PartyEventOutcome, PartyKeys, PartyRecord, PartyRole, ProviderEvent,
    ProviderEventKind, SealedDocument, SignatureState, SignatureStore, StoredEnvelope, accepts_party_events,
    status_after,
};
use domain::store::StoreError;
use domain::values::{PartyStatus, ProposalStatus, StoredValueError};

/// A party's stored role.
/// A party's event refused while an operation holds its proposal, told as a failure worth a retry
/// (`query_error` answers it as unavailable: the provider's callback gets a 503 and retries).
fn busy() -> DieselError {
    DieselError::DatabaseError(
        diesel::result::DatabaseErrorKind::SerializationFailure,
        Box::new("operação pendente na proposta: tente novamente".to_owned()),
    )
}

fn stored_role(role: &str) -> Result<PartyRole, StoredValueError> {
    PartyRole::parse(role).ok_or_else(|| StoredValueError::new("signature_parties", "role", role))
}

#[derive(Clone)]
pub struct PgSignatures {
    pool: PgPool,
}

impl PgSignatures {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

async fn read_sealed(conn: &mut AsyncPgConnection, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError> {
    let row: Option<(Vec<u8>, String)> = sealed_documents::table
        .find(proposal_id)
        .select((sealed_documents::pdf, sealed_documents::sha256))
        .first(conn)
        .await
        .optional()
        .map_err(query_error)?;
    Ok(row.map(|(pdf, sha256)| SealedDocument { pdf, sha256 }))
}

async fn read_signed(conn: &mut AsyncPgConnection, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError> {
    let row: Option<(Vec<u8>, String)> = signed_documents::table
        .find(proposal_id)
        .select((signed_documents::pdf, signed_documents::sha256))
        .first(conn)
        .await
        .optional()
        .map_err(query_error)?;
    Ok(row.map(|(pdf, sha256)| SealedDocument { pdf, sha256 }))
}

#[async_trait]
impl SignatureStore for PgSignatures {
    async fn state(&self, proposal_id: i64) -> Result<Option<SignatureState>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(i64, Option<String>, Option<String>)> = signatures::table
            .filter(signatures::proposal_id.eq(proposal_id))
            .select((signatures::id, signatures::document_key, signatures::sign_url))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some((id, document_key, sign_url)) = row else {
            return Ok(None);
        };
        let rows: Vec<(String, String)> = parties::table
            .filter(parties::signature_id.eq(id))
            .select((parties::role, parties::request_key))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let key = |role: PartyRole| rows.iter().find(|(r, _)| r == role.as_str()).map(|(_, k)| k.clone());
        let keys = match (
            key(PartyRole::Client),
            key(PartyRole::Association),
            key(PartyRole::Federation),
            key(PartyRole::Enterprise),
        ) {
            (Some(client), Some(association), Some(federation), Some(enterprise)) => Some(PartyKeys {
                client,
                association,
                federation,
                enterprise,
            }),
            _ => None,
        };
        Ok(Some(SignatureState {
            id,
            document_key,
            keys,
            sign_url,
        }))
    }

    async fn seal(
        &self,
        proposal_id: i64,
        document: &SealedDocument,
        shown: &NoticesShown,
        changed_by: &str,
    ) -> Result<SealedDocument, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // The first seal wins, with what its document showed; a concurrent or repeated one reads
        // what it left.
        conn.transaction(async |conn| {
            let sealed = diesel::insert_into(sealed_documents::table)
                .values((
                    sealed_documents::proposal_id.eq(proposal_id),
                    sealed_documents::pdf.eq(&document.pdf),
                    sealed_documents::sha256.eq(&document.sha256),
                    sealed_documents::sealed_by.eq(changed_by),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if sealed == 1 {
                diesel::insert_into(proposal_notices::table)
                    .values((
                        proposal_notices::id_proposta.eq(proposal_id),
                        proposal_notices::aviso_versao.eq(shown.notice_version),
                        proposal_notices::aviso_sha256.eq(&shown.notice_sha256),
                        proposal_notices::termos_sha256.eq(&shown.terms_sha256),
                        proposal_notices::canal.eq(shown.channel.as_str()),
                        proposal_notices::modelo_versao.eq(&shown.template.version),
                        proposal_notices::modelo_sha256.eq(&shown.template.sha256),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
            }
            Ok::<_, diesel::result::Error>(())
        })
        .await
        .map_err(query_error)?;
        read_sealed(&mut conn, proposal_id)
            .await?
            .ok_or_else(|| StoreError::Unexpected("documento selado ausente após gravação".into()))
    }

    async fn sealed(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        read_sealed(&mut conn, proposal_id).await
    }

    async fn documents_removed(&self, proposal_id: i64) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::select(diesel::dsl::exists(
            removed_documents::table.filter(removed_documents::proposal_id.eq(proposal_id)),
        ))
        .get_result(&mut conn)
        .await
        .map_err(query_error)
    }

    async fn keep_signed(&self, proposal_id: i64, document: &SealedDocument) -> Result<SealedDocument, StoreError> {
        let mut conn = connection(&self.pool).await?;
        // As with the seal, the first wins: two completions at once keep one version.
        diesel::insert_into(signed_documents::table)
            .values((
                signed_documents::proposal_id.eq(proposal_id),
                signed_documents::pdf.eq(&document.pdf),
                signed_documents::sha256.eq(&document.sha256),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        read_signed(&mut conn, proposal_id)
            .await?
            .ok_or_else(|| StoreError::Unexpected("documento assinado ausente após gravação".into()))
    }

    async fn signed(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        read_signed(&mut conn, proposal_id).await
    }

    async fn keep_provider_copy(&self, document_key: &str, document: &SealedDocument) -> Result<bool, StoreError> {
        if names_no_row(document_key) {
            return Ok(false);
        }
        let mut conn = connection(&self.pool).await?;
        let known: i64 = signatures::table
            .filter(signatures::document_key.eq(document_key))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        if known == 0 {
            return Ok(false);
        }
        diesel::insert_into(provider_signed_copies::table)
            .values((
                provider_signed_copies::document_key.eq(document_key),
                provider_signed_copies::pdf.eq(&document.pdf),
                provider_signed_copies::sha256.eq(&document.sha256),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(true)
    }

    async fn provider_copy(&self, proposal_id: i64) -> Result<Option<SealedDocument>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(Vec<u8>, String)> = provider_signed_copies::table
            .inner_join(
                signatures::table.on(signatures::document_key.eq(provider_signed_copies::document_key.nullable())),
            )
            .filter(signatures::proposal_id.eq(proposal_id))
            .select((provider_signed_copies::pdf, provider_signed_copies::sha256))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(|(pdf, sha256)| SealedDocument { pdf, sha256 }))
    }

    async fn parties(&self, proposal_id: i64) -> Result<Vec<PartyRecord>, StoreError> {
        type Row = (
            String,
            String,
            Option<DateTime<Utc>>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<Row> = parties::table
            .inner_join(signatures::table)
            .filter(signatures::proposal_id.eq(proposal_id))
            .select((
                parties::role,
                parties::status,
                parties::signed_at,
                parties::ip,
                parties::user_agent,
                parties::authentication,
                parties::latitude,
                parties::longitude,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .map(
                |(role, status, signed_at, ip, user_agent, authentication, latitude, longitude)| {
                    Ok(PartyRecord {
                        role: stored_role(&role)?,
                        status: PartyStatus::from_stored(&status, "signature_parties", "status")?,
                        signed_at,
                        ip,
                        user_agent,
                        authentication,
                        latitude,
                        longitude,
                    })
                },
            )
            .collect()
    }

    async fn fill_party_evidence(&self, proposal_id: i64, party: &PartyRecord) -> Result<(), StoreError> {
        use diesel::dsl::sql;
        use diesel::sql_types::{Nullable, Text};
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let signature_ids = signatures::table
                .filter(signatures::proposal_id.eq(proposal_id))
                .select(signatures::id);
            // Only where the record had nothing: what a callback stored is never overwritten.
            diesel::update(
                parties::table
                    .filter(parties::signature_id.eq_any(signature_ids))
                    .filter(parties::role.eq(party.role.as_str())),
            )
            .set((
                parties::ip.eq(sql::<Nullable<Text>>("coalesce(ip, ")
                    .bind::<Nullable<Text>, _>(&party.ip)
                    .sql(")")),
                parties::user_agent.eq(sql::<Nullable<Text>>("coalesce(user_agent, ")
                    .bind::<Nullable<Text>, _>(&party.user_agent)
                    .sql(")")),
                parties::authentication.eq(sql::<Nullable<Text>>("coalesce(authentication, ")
                    .bind::<Nullable<Text>, _>(&party.authentication)
                    .sql(")")),
                parties::latitude.eq(sql::<Nullable<Text>>("coalesce(latitude, ")
                    .bind::<Nullable<Text>, _>(&party.latitude)
                    .sql(")")),
                parties::longitude.eq(sql::<Nullable<Text>>("coalesce(longitude, ")
                    .bind::<Nullable<Text>, _>(&party.longitude)
                    .sql(")")),
            ))
            .execute(conn)
            .await?;
            read_model::write_documents(conn, &[proposal_id]).await.map(drop)
        })
        .await
        .map_err(query_error)
    }

    async fn save_document(
        &self,
        proposal_id: i64,
        document_key: &str,
        deadline: DateTime<Utc>,
        changed_by: &str,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            diesel::insert_into(signatures::table)
                .values((
                    signatures::proposal_id.eq(proposal_id),
                    signatures::document_key.eq(document_key),
                    signatures::prazo_em.eq(deadline),
                    signatures::alterado_por.eq(changed_by),
                ))
                .on_conflict(signatures::proposal_id)
                .do_update()
                .set((
                    signatures::document_key.eq(document_key),
                    signatures::prazo_em.eq(deadline),
                    signatures::alterado_em.eq(diesel::dsl::now),
                ))
                .execute(conn)
                .await?;
            diesel::update(proposals::table.find(proposal_id))
                .set((
                    proposals::key_documento.eq(document_key),
                    proposals::alterado_por.eq(changed_by),
                    proposals::alterado_em.eq(diesel::dsl::now),
                ))
                .execute(conn)
                .await?;
            read_model::write_documents(conn, &[proposal_id]).await.map(drop)
        })
        .await
        .map_err(query_error)
    }

    async fn save_parties(
        &self,
        proposal_id: i64,
        keys: &PartyKeys,
        sign_url: &str,
        changed_by: &str,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let signature_id: i64 = diesel::update(signatures::table.filter(signatures::proposal_id.eq(proposal_id)))
                .set((
                    signatures::sign_url.eq(sign_url),
                    signatures::alterado_por.eq(changed_by),
                    signatures::alterado_em.eq(diesel::dsl::now),
                ))
                .returning(signatures::id)
                .get_result(conn)
                .await?;
            for role in PartyRole::ALL {
                diesel::insert_into(parties::table)
                    .values((
                        parties::signature_id.eq(signature_id),
                        parties::role.eq(role.as_str()),
                        parties::request_key.eq(keys.of(role)),
                    ))
                    .on_conflict((parties::signature_id, parties::role))
                    .do_update()
                    .set(parties::request_key.eq(keys.of(role)))
                    .execute(conn)
                    .await?;
            }
            diesel::update(proposals::table.find(proposal_id))
                .set((
                    proposals::key_assinatura_requisicao.eq(&keys.client),
                    proposals::alterado_por.eq(changed_by),
                    proposals::alterado_em.eq(diesel::dsl::now),
                ))
                .execute(conn)
                .await?;
            read_model::write_documents(conn, &[proposal_id]).await.map(drop)
        })
        .await
        .map_err(query_error)
    }

    async fn envelopes(&self, after: i64, limit: i64) -> Result<Vec<StoredEnvelope>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(i64, String, String, String)> = proposals::table
            .inner_join(signatures::table)
            .filter(proposals::id.gt(after))
            .filter(signatures::document_key.is_not_null())
            .order(proposals::id.asc())
            .limit(limit)
            .select((
                proposals::id,
                proposals::identificador,
                proposals::status,
                signatures::document_key.assume_not_null(),
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(|(proposal_id, identifier, status, envelope)| {
                Ok(StoredEnvelope {
                    proposal_id,
                    identifier,
                    status: ProposalStatus::from_stored(&status, "proposals", "status")?,
                    envelope,
                })
            })
            .collect::<Result<_, StoredValueError>>()?)
    }

    async fn expire_overdue(
        &self,
        now: DateTime<Utc>,
        limit: i64,
        changed_by: &str,
    ) -> Result<Vec<ExpiredSignature>, StoreError> {
        let awaiting = ProposalStatus::AwaitingSignature;
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| {
                // Claimed: another instance's pass skips these rows and takes others (or none).
                let due: Vec<(i64, String, Option<String>, Option<DateTime<Utc>>)> = proposals::table
                    .inner_join(signatures::table)
                    .filter(proposals::status.eq(awaiting.as_str()))
                    .filter(signatures::prazo_em.le(now))
                    .order(signatures::prazo_em.asc())
                    .limit(limit)
                    .select((
                        proposals::id,
                        proposals::identificador,
                        signatures::document_key,
                        signatures::prazo_em,
                    ))
                    .for_update()
                    .skip_locked()
                    .load(conn)
                    .await?;
                let mut expired = Vec::with_capacity(due.len());
                for (proposal_id, identifier, envelope, deadline) in due {
                    let change = StatusChange {
                        proposal_id,
                        from: awaiting,
                        to: ProposalStatus::Expired,
                        changed_by: changed_by.to_owned(),
                        reason_category: None,
                        reason: deadline
                            .map(|d| format!("Prazo de assinatura vencido em {}", d.format("%Y-%m-%dT%H:%M:%SZ"))),
                        at: now,
                        operation: None,
                    };
                    let event = match apply_change(conn, &change).await {
                        Ok(event) => event,
                        // A cancellation is closing it: it ends the proposal, or the next pass
                        // expires it. Nothing was written for it.
                        Err(ChangeError::Busy(_)) => continue,
                        Err(ChangeError::Db(e)) => return Err(e),
                        Err(ChangeError::Conflict(_) | ChangeError::OperationEnded) => {
                            return Err(DieselError::RollbackTransaction);
                        }
                    };
                    expired.push(ExpiredSignature {
                        identifier,
                        envelope,
                        event,
                    });
                }
                Ok(expired)
            })
            .await;
        result.map_err(query_error)
    }

    async fn change_status(&self, change: &StatusChange) -> Result<StatusEvent, ChangeStatusError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| apply_change(conn, change).await)
            .await
            .map_err(ChangeStatusError::from)
    }

    /// Counts the resend and queues its `PROPOSTA_ENVIADA` (the sending after the first
    /// `reenvios`) in one transaction.
    async fn count_resend(&self, proposal_id: i64, max: i32, changed_by: &str) -> Result<Option<i32>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let counted: Option<(i32, DateTime<Utc>, String, Option<i64>, String, String)> =
                diesel::update(proposals::table.find(proposal_id))
                    .filter(proposals::reenvios.lt(max))
                    .set((
                        proposals::reenvios.eq(proposals::reenvios + 1),
                        proposals::reenvio_notificacao.eq(proposals::reenvio_notificacao + 1),
                        proposals::alterado_por.eq(changed_by),
                        proposals::alterado_em.eq(diesel::dsl::now),
                    ))
                    .returning((
                        proposals::reenvios,
                        proposals::alterado_em,
                        proposals::identificador,
                        proposals::id_parceiro,
                        proposals::fluxo,
                        proposals::tipo_envio,
                    ))
                    .get_result(conn)
                    .await
                    .optional()?;
            let Some((resends, at, identifier, partner_id, flow, shipping)) = counted else {
                return Ok(None);
            };
            let facts = event_outbox::facts_from(proposal_id, identifier, partner_id, &flow, &shipping)?;
            event_outbox::queue_sending(conn, &facts, resends + 1, changed_by, at).await?;
            read_model::write_documents(conn, &[proposal_id]).await?;
            Ok::<_, DieselError>(Some(resends))
        })
        .await
        .map_err(query_error)
    }

    async fn record_party_event(
        &self,
        event: &ProviderEvent,
        changed_by: &str,
    ) -> Result<PartyEventOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let result = conn
            .transaction(async |conn| {
                let party: Option<(i64, i64, String)> = parties::table
                    .inner_join(signatures::table)
                    .filter(parties::request_key.eq(&event.request_key))
                    .select((parties::signature_id, signatures::proposal_id, parties::role))
                    .first(conn)
                    .await
                    .optional()?;
                let Some((signature_id, proposal_id, role)) = party else {
                    return Ok(PartyEventOutcome::UnknownKey);
                };
                let status = match event.kind {
                    ProviderEventKind::Signed => PartyStatus::Signed,
                    ProviderEventKind::Refused | ProviderEventKind::Expired => PartyStatus::Refused,
                    // An envelope's event names no party (the use case keeps the provider's copy).
                    ProviderEventKind::Closed => return Ok(PartyEventOutcome::UnknownKey),
                };
                let fresh = diesel::insert_into(signature_callbacks::table)
                    .values(signature_callbacks::event_id.eq(&event.event_id))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if fresh == 0 {
                    return Ok(PartyEventOutcome::Duplicate);
                }
                // Lock the proposal, then decide with the domain's rules whether the event counts
                // and whether it moves the proposal.
                let current: String = proposals::table
                    .find(proposal_id)
                    .select(proposals::status)
                    .for_update()
                    .first(conn)
                    .await?;
                let current = stored(ProposalStatus::from_stored(&current, "proposals", "status"))?;
                // An operation holds the proposal (a cancellation closing the envelope, a send):
                // nothing of the event is recorded now, and the provider's retry finds it ended.
                match crate::unit_of_work::operation_end::admit_move(conn, proposal_id, None).await {
                    Ok(()) => {}
                    Err(ChangeError::Db(e)) => return Err(e),
                    Err(ChangeError::Busy(_) | ChangeError::Conflict(_) | ChangeError::OperationEnded) => {
                        return Err(busy());
                    }
                }
                if !accepts_party_events(current) {
                    // Seen (a repeat is a duplicate), and nothing else: the envelope was closed.
                    return Ok(PartyEventOutcome::Ignored { status: current });
                }
                diesel::update(parties::table.filter(parties::request_key.eq(&event.request_key)))
                    .set((
                        parties::status.eq(status.as_str()),
                        parties::signed_at.eq((status == PartyStatus::Signed).then_some(event.at)),
                        parties::latitude.eq(event.latitude.as_deref()),
                        parties::longitude.eq(event.longitude.as_deref()),
                        parties::ip.eq(event.ip.as_deref()),
                        parties::user_agent.eq(event.user_agent.as_deref()),
                        parties::authentication.eq(event.authentication.as_deref()),
                    ))
                    .execute(conn)
                    .await?;
                diesel::update(signatures::table.find(signature_id))
                    .set((
                        signatures::alterado_por.eq(changed_by),
                        signatures::alterado_em.eq(event.at),
                    ))
                    .execute(conn)
                    .await?;
                let facts = event_outbox::facts_of(conn, proposal_id).await?;
                event_outbox::queue_signature(conn, &facts, stored(stored_role(&role))?, status, event.at).await?;
                let statuses: Vec<String> = parties::table
                    .filter(parties::signature_id.eq(signature_id))
                    .select(parties::status)
                    .load(conn)
                    .await?;
                let statuses = statuses
                    .iter()
                    .map(|s| stored(PartyStatus::from_stored(s, "signature_parties", "status")))
                    .collect::<QueryResult<Vec<_>>>()?;
                let Some((to, _trigger)) = status_after(current, &statuses) else {
                    read_model::write_documents(conn, &[proposal_id]).await?;
                    return Ok(PartyEventOutcome::Recorded { moved_to: None });
                };
                // The move writes the document, with the party's status recorded above.
                let change = StatusChange {
                    proposal_id,
                    from: current,
                    to,
                    changed_by: changed_by.to_owned(),
                    reason_category: None,
                    reason: None,
                    at: event.at,
                    operation: None,
                };
                match apply_change(conn, &change).await {
                    Ok(_) => Ok(PartyEventOutcome::Recorded { moved_to: Some(to) }),
                    Err(ChangeError::Db(e)) => Err(e),
                    // An operation (a cancellation closing the envelope) is pending: the event is
                    // not recorded now, and the provider's retry finds the proposal settled.
                    Err(ChangeError::Busy(_)) => Err(busy()),
                    // Locked above: the status cannot have moved meanwhile.
                    Err(ChangeError::Conflict(_) | ChangeError::OperationEnded) => {
                        Err(DieselError::RollbackTransaction)
                    }
                }
            })
            .await;
        result.map_err(query_error)
    }

    async fn events(&self, proposal_id: i64) -> Result<Vec<StatusEvent>, StoreError> {
        events_of(&self.pool, proposal_id).await
    }

    async fn party_of_key(&self, request_key: &str) -> Result<Option<(String, PartyRole, PartyStatus)>, StoreError> {
        if names_no_row(request_key) {
            return Ok(None);
        }
        let mut conn = connection(&self.pool).await?;
        let row: Option<(String, String, String)> = parties::table
            .inner_join(signatures::table.inner_join(proposals::table))
            .filter(parties::request_key.eq(request_key))
            .select((proposals::identificador, parties::role, parties::status))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(|(identifier, role, status)| {
            Ok((
                identifier,
                stored_role(&role)?,
                PartyStatus::from_stored(&status, "signature_parties", "status")?,
            ))
        })
        .transpose()
    }
}
