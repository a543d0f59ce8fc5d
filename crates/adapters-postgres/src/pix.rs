//! Pix Automático's records (issue 46): the domain's `PixStore`. A contract's recurrence is
//! written with the end of the operation that made it; a charge's sending, payment or refusal is
//! applied under the charge's row lock only if it is still where the use case read it, with its
//! `COBRANCA_ALTERADA` event, its contract's document and (when sent under a claim) the end of
//! that operation, in one transaction.

use crate::billing::tell_changes;
use crate::pool::{PgPool, connection, query_error};
use crate::read_model::parts::billing::ChargePart;
use crate::read_model::write_documents;
use crate::schema::{charges, pix_recurrences as recurrences};
use crate::statement::statement;
use crate::unit_of_work::operation_end::OperationState;
use crate::unit_of_work::operation_end::{end_in, end_in_checked};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::billing::ChargeStatus;
use domain::billing::pix::{PayerAccount, Recurrence, RecurrenceStatus, charge_txid};
use domain::billing::pix_collection::{CANCELLED_READ_BACK_DAYS, ChargeOutcome, PixChargeDue, PixEnrolment, PixStore};
use domain::proposals::operations::OperationId;
use domain::store::StoreError;
use domain::values::{Cpf, PaymentType, ProposalStatus, StoredValueError};

#[derive(Clone)]
pub struct PgPix {
    pool: PgPool,
}

impl PgPix {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(QueryableByName)]
struct EnrolmentRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Text)]
    cpf: String,
    #[diesel(sql_type = Text)]
    nome_completo: String,
    #[diesel(sql_type = Text)]
    produto: String,
    #[diesel(sql_type = BigInt)]
    valor: i64,
    #[diesel(sql_type = Nullable<Text>)]
    ispb: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    agencia: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    conta: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    criado_em: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    registrada: bool,
}

impl EnrolmentRow {
    /// `None` for a customer whose CPF is no longer one (anonymised): nothing to create.
    fn into_enrolment(self) -> Result<Option<PixEnrolment>, StoreError> {
        let Ok(cpf) = Cpf::parse(&self.cpf) else {
            tracing::warn!(proposal = self.id, "Pix enrolment of a customer without a CPF skipped");
            return Ok(None);
        };
        let payer = match (self.ispb, self.conta) {
            (Some(ispb), Some(conta)) => Some(PayerAccount {
                ispb,
                agencia: self.agencia,
                conta,
            }),
            _ => None,
        };
        Ok(Some(PixEnrolment {
            proposal_id: self.id,
            identifier: self.identificador,
            status: ProposalStatus::from_stored(&self.status, "proposals", "status")?,
            debtor_cpf: cpf,
            debtor_name: self.nome_completo,
            product_name: self.produto,
            amount_cents: self.valor,
            payer,
            created_at: self.criado_em,
            recorded: self.registrada,
        }))
    }
}

macro_rules! enrolment {
    () => {
        "SELECT p.id, p.identificador, p.status, pc.cpf, pc.nome_completo, pr.nome AS produto, \
         p.valor, pp.ispb, pp.agencia, pp.conta, p.criado_em, \
         EXISTS (SELECT 1 FROM pix_recurrences r WHERE r.id_proposta = p.id) AS registrada \
     FROM proposals p \
     JOIN proposal_payments pp ON pp.id_proposta = p.id \
     JOIN proposal_customers pc ON pc.id_proposta = p.id \
     JOIN products pr ON pr.id = p.id_produto \
     WHERE p.tipo_pagamento = 'PIX AUTOMÁTICO' "
    };
}

#[derive(QueryableByName)]
struct ChargeRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    situacao_proposta: String,
    #[diesel(sql_type = Nullable<Text>)]
    id_rec: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    situacao_rec: Option<String>,
    #[diesel(sql_type = Date)]
    vencimento: NaiveDate,
    #[diesel(sql_type = BigInt)]
    valor: i64,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    id_externo: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    tentativas: i32,
    #[diesel(sql_type = Nullable<Date>)]
    proxima_tentativa: Option<NaiveDate>,
    #[diesel(sql_type = Text)]
    produto: String,
}

impl TryFrom<ChargeRow> for PixChargeDue {
    type Error = StoreError;

    fn try_from(c: ChargeRow) -> Result<Self, StoreError> {
        let recurrence = match (c.id_rec, c.situacao_rec) {
            (Some(id_rec), Some(status)) => Some((
                id_rec,
                RecurrenceStatus::parse(&status)
                    .ok_or_else(|| StoredValueError::new("pix_recurrences", "status", &status))?,
            )),
            _ => None,
        };
        Ok(PixChargeDue {
            charge_id: c.id,
            proposal_id: c.id_proposta,
            identifier: c.identificador,
            proposal_status: ProposalStatus::from_stored(&c.situacao_proposta, "proposals", "status")?,
            recurrence,
            due: c.vencimento,
            amount_cents: c.valor,
            status: ChargeStatus::from_stored(&c.status, "charges", "status")?,
            sent: c.id_externo.is_some(),
            attempts: c.tentativas,
            next_attempt: c.proxima_tentativa,
            product_name: c.produto,
        })
    }
}

/// A Pix charge the service cancelled with its contract that the PSP reports settled.
const PAID_AFTER_THE_END: &str = "paga pelo Pix depois do encerramento do contrato: a devolver";

macro_rules! charge {
    () => {
        "SELECT c.id, c.id_proposta, p.identificador, p.status AS situacao_proposta, r.id_rec, \
         r.status AS situacao_rec, c.vencimento, c.valor, c.status, c.id_externo, c.tentativas, \
         c.proxima_tentativa, pr.nome AS produto \
     FROM charges c \
     JOIN contract_billings b ON b.id_proposta = c.id_proposta \
     JOIN proposals p ON p.id = c.id_proposta \
     JOIN products pr ON pr.id = p.id_produto \
     LEFT JOIN pix_recurrences r ON r.id_proposta = c.id_proposta \
     WHERE c.metodo = 'PIX AUTOMÁTICO' "
    };
}

#[async_trait]
impl PixStore for PgPix {
    async fn open_at_psp(&self, proposal_id: i64) -> Result<(Option<String>, Vec<String>), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let id_rec: Option<String> = recurrences::table
            .find(proposal_id)
            .filter(
                recurrences::status.eq_any([RecurrenceStatus::Criada.as_str(), RecurrenceStatus::Aprovada.as_str()]),
            )
            .select(recurrences::id_rec)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let txids: Vec<Option<String>> = charges::table
            .filter(charges::id_proposta.eq(proposal_id))
            .filter(charges::metodo.eq(PaymentType::PixAutomatic.as_str()))
            .filter(charges::status.eq_any([ChargeStatus::Open.as_str(), ChargeStatus::Failed.as_str()]))
            .filter(charges::id_externo.is_not_null())
            .order(charges::periodo)
            .select(charges::id_externo)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok((id_rec, txids.into_iter().flatten().collect()))
    }

    async fn awaiting_recurrence(&self, limit: i64) -> Result<Vec<PixEnrolment>, StoreError> {
        statement! {
            DUE_ENROLMENTS => EnrolmentRow = concat!(enrolment!(), " AND p.status IN ('EM ANÁLISE', 'APROVADO') \
             AND NOT EXISTS (SELECT 1 FROM pix_recurrences r WHERE r.id_proposta = p.id) \
             ORDER BY p.id LIMIT $1");
        }
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<EnrolmentRow> = DUE_ENROLMENTS
            .query()
            .bind::<BigInt, _>(limit)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let mut found = Vec::new();
        for row in rows {
            found.extend(row.into_enrolment()?);
        }
        Ok(found)
    }

    async fn enrolment(&self, identifier: &str) -> Result<Option<PixEnrolment>, StoreError> {
        statement! {
            ENROLMENT_OF => EnrolmentRow = concat!(enrolment!(), " AND p.identificador = $1");
        }
        let mut conn = connection(&self.pool).await?;
        let row: Option<EnrolmentRow> = ENROLMENT_OF
            .query()
            .bind::<Text, _>(identifier)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        match row {
            Some(row) => row.into_enrolment(),
            None => Ok(None),
        }
    }

    async fn record_recurrence(
        &self,
        operation: OperationId,
        proposal_id: i64,
        recurrence: &Recurrence,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let outcome = format!("recorrência {} {}", recurrence.id_rec, recurrence.status);
        conn.transaction(async |tx| {
            diesel::insert_into(recurrences::table)
                .values((
                    recurrences::id_proposta.eq(proposal_id),
                    recurrences::id_rec.eq(&recurrence.id_rec),
                    recurrences::status.eq(recurrence.status.as_str()),
                    recurrences::pix_copia_e_cola.eq(&recurrence.pix_copia_e_cola),
                    recurrences::id_solic_rec.eq(recurrence.confirmation_requests.last()),
                    recurrences::motivo.eq(&recurrence.ended_because),
                    recurrences::criada_em.eq(at),
                    recurrences::alterada_em.eq(at),
                    recurrences::alterada_por.eq(domain::billing::pix_collection::PIX_ACTOR),
                ))
                .on_conflict_do_nothing()
                .execute(tx)
                .await?;
            end_in(tx, operation, OperationState::Done, &outcome, at).await?;
            write_documents(tx, &[proposal_id]).await.map(drop)
        })
        .await
        .map_err(query_error)
    }

    async fn update_recurrence(
        &self,
        recurrence: &Recurrence,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<bool>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |tx| {
            let Some((proposal_id, status)) = recurrences::table
                .filter(recurrences::id_rec.eq(&recurrence.id_rec))
                .select((recurrences::id_proposta, recurrences::status))
                .for_update()
                .first::<(i64, String)>(tx)
                .await
                .optional()?
            else {
                return Ok(None);
            };
            if status == recurrence.status.as_str() {
                return Ok(Some(false));
            }
            // Once approved, the QR code has done its work: nobody should pay it again.
            let copia_e_cola = recurrence
                .pix_copia_e_cola
                .clone()
                .filter(|_| recurrence.status == RecurrenceStatus::Criada);
            diesel::update(recurrences::table.find(proposal_id))
                .set((
                    recurrences::status.eq(recurrence.status.as_str()),
                    recurrences::pix_copia_e_cola.eq(copia_e_cola),
                    recurrences::motivo.eq(&recurrence.ended_because),
                    recurrences::alterada_em.eq(at),
                    recurrences::alterada_por.eq(by),
                ))
                .execute(tx)
                .await?;
            write_documents(tx, &[proposal_id]).await?;
            Ok(Some(true))
        })
        .await
        .map_err(query_error)
    }

    async fn charges_to_send(&self, today: NaiveDate, limit: i64) -> Result<Vec<PixChargeDue>, StoreError> {
        statement! {
            DUE_CHARGES => ChargeRow = concat!(charge!(), " AND b.encerrada_em IS NULL AND c.status IN ('aberta', 'falhou') \
             AND ((c.status = 'aberta' AND c.id_externo IS NULL AND c.vencimento <= $1::date + 10) \
                  OR (c.status = 'falhou' AND c.proxima_tentativa IS NOT NULL)) \
             ORDER BY c.vencimento, c.id LIMIT $2");
        }
        let mut conn = connection(&self.pool).await?;
        // The window opens 10 days before the due date; a failed one waits for its retry.
        let rows: Vec<ChargeRow> = DUE_CHARGES
            .query()
            .bind::<Date, _>(today)
            .bind::<BigInt, _>(limit)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter().map(PixChargeDue::try_from).collect()
    }

    async fn to_reconcile(
        &self,
        settled_before: Option<NaiveDate>,
        limit: i64,
    ) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let recurrences: Vec<String> = match settled_before {
            Some(_) => Vec::new(),
            None => recurrences::table
                .inner_join(crate::schema::proposals::table)
                .filter(
                    recurrences::status
                        .eq_any([RecurrenceStatus::Criada.as_str(), RecurrenceStatus::Aprovada.as_str()]),
                )
                .filter(
                    crate::schema::proposals::status
                        .eq_any([ProposalStatus::InAnalysis.as_str(), ProposalStatus::Approved.as_str()]),
                )
                .order(recurrences::id_proposta)
                .limit(limit)
                .select(recurrences::id_rec)
                .load(&mut conn)
                .await
                .map_err(query_error)?,
        };
        // The sent charges awaiting their settlement (the index of the unsettled Pix charges), and
        // those cancelled lately with their contract, which a PSP may have settled anyway.
        let mut sent = charges::table
            .filter(charges::metodo.eq(PaymentType::PixAutomatic.as_str()))
            .filter(charges::status.eq(ChargeStatus::Open.as_str()).or(
                charges::status.eq(ChargeStatus::Cancelled.as_str()).and(
                    charges::alterada_em.gt(chrono::Utc::now() - chrono::Duration::days(CANCELLED_READ_BACK_DAYS)),
                ),
            ))
            .filter(charges::id_externo.is_not_null())
            .into_boxed();
        if let Some(day) = settled_before {
            sent = sent.filter(
                diesel::dsl::sql::<diesel::sql_types::Bool>("coalesce(proxima_tentativa, vencimento) < ")
                    .bind::<Date, _>(day),
            );
        }
        let txids: Vec<Option<String>> = sent
            .order(charges::vencimento)
            .limit(limit)
            .select(charges::id_externo)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok((recurrences, txids.into_iter().flatten().collect()))
    }

    async fn recurrence_status(&self, id_rec: &str) -> Result<Option<RecurrenceStatus>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let status: Option<String> = recurrences::table
            .filter(recurrences::id_rec.eq(id_rec))
            .select(recurrences::status)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(status.as_deref().and_then(RecurrenceStatus::parse))
    }

    async fn charge(&self, charge_id: i64) -> Result<Option<PixChargeDue>, StoreError> {
        statement! {
            CHARGE_OF => ChargeRow = concat!(charge!(), " AND c.id = $1");
        }
        let mut conn = connection(&self.pool).await?;
        let row: Option<ChargeRow> = CHARGE_OF
            .query()
            .bind::<BigInt, _>(charge_id)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(PixChargeDue::try_from).transpose()
    }

    async fn record_charge(
        &self,
        charge_id: i64,
        expected: ChargeStatus,
        outcome: &ChargeOutcome,
        operation: Option<OperationId>,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        statement! {
            LOCK_PROPOSALS = "SELECT p.id FROM proposals p JOIN charges c ON c.id_proposta = p.id WHERE c.id = $1 \
                     FOR NO KEY UPDATE OF p";
        }
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |tx| {
            // One lock order with a contract's end (its move locks the proposal, then closing its
            // billing locks the charges): the proposal first, then the charge. Taken the other way
            // round, a notification and a cancellation at once deadlocked.
            LOCK_PROPOSALS.query().bind::<BigInt, _>(charge_id).execute(tx).await?;
            let found = diesel::update(charges::table.find(charge_id))
                .filter(charges::status.eq(expected.as_str()))
                .filter(charges::metodo.eq(PaymentType::PixAutomatic.as_str()));
            let changed: Option<(i64, ChargePart)> = match outcome {
                ChargeOutcome::Sent { attempts, settles_on } => found
                    .set((
                        charges::status.eq(ChargeStatus::Open.as_str()),
                        charges::id_externo.eq(charge_txid(charge_id)),
                        // Presented by its first sending (decision 265); a retry keeps that day.
                        charges::apresentada_em.eq(crate::billing::first_presented(charges::apresentada_em, at)),
                        charges::tentativas.eq(*attempts),
                        // A retry's day is when it is tried again; a first attempt settles on the due date.
                        charges::proxima_tentativa.eq((*attempts > 1).then_some(*settles_on)),
                        charges::motivo.eq(None::<String>),
                        charges::alterada_em.eq(at),
                        charges::alterada_por.eq(by),
                    ))
                    .returning((charges::id_proposta, ChargePart::as_returning()))
                    .get_result(tx)
                    .await
                    .optional()?,
                ChargeOutcome::Paid {
                    end_to_end_id,
                    amount_cents,
                    at: paid_at,
                } => found
                    .set((
                        charges::status.eq(ChargeStatus::Paid.as_str()),
                        charges::pago_em.eq(Some(*paid_at)),
                        charges::valor_pago.eq(Some(*amount_cents)),
                        charges::pix_e2e.eq(Some(end_to_end_id)),
                        charges::proxima_tentativa.eq(None::<NaiveDate>),
                        charges::motivo.eq((expected == ChargeStatus::Cancelled).then_some(PAID_AFTER_THE_END)),
                        charges::alterada_em.eq(at),
                        charges::alterada_por.eq(by),
                    ))
                    .returning((charges::id_proposta, ChargePart::as_returning()))
                    .get_result(tx)
                    .await
                    .optional()?,
                ChargeOutcome::Failed { reason, next_attempt } => found
                    .set((
                        charges::status.eq(ChargeStatus::Failed.as_str()),
                        charges::proxima_tentativa.eq(*next_attempt),
                        charges::motivo.eq(Some(reason.chars().take(200).collect::<String>())),
                        charges::alterada_em.eq(at),
                        charges::alterada_por.eq(by),
                    ))
                    .returning((charges::id_proposta, ChargePart::as_returning()))
                    .get_result(tx)
                    .await
                    .optional()?,
            };
            let Some(changed) = changed else {
                // Moved meanwhile (a notification, another instance): what was asked is recorded.
                if let Some(operation) = operation {
                    end_in_checked(tx, operation, "cobrança já registrada", at).await?;
                }
                return Ok(false);
            };
            if let Some(operation) = operation {
                // The worker may have ended it first: then it recorded the same, and this rolls back.
                if !end_in_checked(tx, operation, &format!("cobrança {charge_id}"), at).await? {
                    return Err(diesel::result::Error::RollbackTransaction);
                }
            }
            tell_changes(tx, vec![changed], at).await?;
            Ok(true)
        })
        .await
        .or_else(|e| match e {
            diesel::result::Error::RollbackTransaction => Ok(false),
            other => Err(query_error(other)),
        })
    }
}
