//! Refunds (issue 45): the domain's `RefundStore`. A refusal or a cancellation after the sale is
//! recorded with its move, its request's protocol, its refunds and the subscription's state in one
//! transaction; the refunds to pay are listed for the finance team and marked paid. Route 7 shows
//! every refund of a proposal: the read model's `refunds` part, read here.

use crate::customer_requests::insert_request;
use crate::ecommerce::store_state_in;
use crate::ledger::{InvoicesOf, record_card_invoices};
use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::read_model::parts::refunds::{RefundPart, refund_columns};
use crate::schema::{charges, proposals, refund_destinations, refunds};
use crate::statement::statement;
use crate::unit_of_work::change_error::ChangeError;
use crate::unit_of_work::status_change::apply_change;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::billing::ChargeStatus;
use domain::billing::pix::charge_txid;
use domain::proposals::lifecycle::StatusEvent;
use domain::proposals::operations::OperationId;
use domain::proposals::requests::Protocol;
use domain::proposals::settlement::LATE_REFUND_ACTOR;
use domain::refunds::destination::{AccountKind, PixKey, RefundDestination, TransferAccount};
use domain::refunds::plan::{PaidCharge, PaidPix};
use domain::refunds::ports::{LatePayment, MarkedPaid, RefundDestinationStore, RefundStore, RefundToPay, Settlement};
use domain::refunds::{PAID, RefundChannel, RefundRecord, TO_PAY};
use domain::signature::ChangeStatusError;
use domain::store::StoreError;
use domain::values::ProposalStatus;
use domain::values::{BankAccount, StoredValueError};

/// How a charge paid after its contract ended says it is to be given back (both rails write it),
/// and what it says once given back.
const TO_GIVE_BACK: &str = ": a devolver";
const GIVEN_BACK: &str = ": devolvida";

/// A paid charge's row as what was received: `valor_pago` is written by every rail's payment
/// since migration 51 (a paid charge without it was paid at its amount: the payroll report and the
/// bank's return require it), and `charges_paid` makes every paid charge carry when.
fn paid_charge(
    id: i64,
    due_amount: i64,
    received: Option<i64>,
    due: NaiveDate,
    paid_at: Option<DateTime<Utc>>,
    txid: Option<String>,
    e2e: Option<String>,
) -> Option<PaidCharge> {
    Some(PaidCharge {
        charge_id: id,
        received: received.unwrap_or(due_amount),
        due,
        paid_at: paid_at?,
        pix: e2e.map(|end_to_end_id| PaidPix {
            charge_id: id,
            txid: txid.unwrap_or_else(|| charge_txid(id)),
            end_to_end_id,
        }),
    })
}

#[derive(Clone)]
pub struct PgRefunds {
    pool: PgPool,
}

impl PgRefunds {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

/// A refund's correction as its `correcao` column keeps it.
fn correction_json(refund: &RefundRecord) -> QueryResult<Option<serde_json::Value>> {
    refund
        .correction
        .as_ref()
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))
}

/// Records refunds of a proposal inside the caller's transaction (a withdrawal's under its
/// protocol, a refusal's without one).
pub(crate) async fn insert_refunds(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    protocol: Option<&Protocol>,
    records: &[RefundRecord],
) -> QueryResult<()> {
    for refund in records {
        let correction = correction_json(refund)?;
        diesel::insert_into(refunds::table)
            .values((
                refunds::id.eq(&refund.id),
                refunds::protocolo.eq(protocol.map(Protocol::as_str)),
                refunds::proposal_id.eq(proposal_id),
                refunds::invoice_id.eq(&refund.invoice_id),
                refunds::amount_cents.eq(refund.amount),
                refunds::nominal_cents.eq(Some(refund.nominal)),
                refunds::status.eq(&refund.status),
                refunds::motivo.eq(refund.reason.as_str()),
                refunds::meio.eq(refund.channel.as_str()),
                refunds::correcao.eq(correction),
                refunds::created_at.eq(refund.created_at),
                refunds::vence_em.eq(refund.due_on),
            ))
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// Records the correction of a late payment, paid with the refund it corrects (`atraso_de`),
/// inside the caller's transaction: the ledger enters it owed and paid back.
async fn insert_late_correction(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    corrects: &str,
    late: &RefundRecord,
    by: &str,
) -> QueryResult<()> {
    let correction = correction_json(late)?;
    diesel::insert_into(refunds::table)
        .values((
            refunds::id.eq(&late.id),
            refunds::proposal_id.eq(proposal_id),
            refunds::invoice_id.eq(&late.invoice_id),
            refunds::amount_cents.eq(late.amount),
            refunds::nominal_cents.eq(Some(late.nominal)),
            refunds::status.eq(PAID),
            refunds::motivo.eq(late.reason.as_str()),
            refunds::meio.eq(RefundChannel::ToPay.as_str()),
            refunds::correcao.eq(correction),
            refunds::created_at.eq(late.created_at),
            refunds::vence_em.eq(late.due_on),
            refunds::referencia.eq(&late.reference),
            refunds::pago_em.eq(late.created_at),
            refunds::pago_por.eq(by),
            refunds::atraso_de.eq(corrects),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

#[async_trait]
impl RefundStore for PgRefunds {
    async fn record_settlement(
        &self,
        settlement: &Settlement,
    ) -> Result<(StatusEvent, Option<Protocol>), ChangeStatusError> {
        let mut conn = connection(&self.pool).await?;
        let change = &settlement.change;
        let result = conn
            .transaction(async |conn| {
                let (event, protocol) = match &settlement.request {
                    Some(request) => {
                        let (event, protocol) = insert_request(conn, change, request).await?;
                        (event, Some(protocol))
                    }
                    None => (apply_change(conn, change).await?, None),
                };
                // What the card paid enters the ledger before what returns it (once: an event may
                // have entered it already).
                record_card_invoices(
                    conn,
                    InvoicesOf::Proposal(change.proposal_id),
                    &settlement.card_invoices,
                    change.at,
                )
                .await?;
                insert_refunds(conn, change.proposal_id, protocol.as_ref(), &settlement.refunds).await?;
                if let Some(subscription) = &settlement.subscription {
                    store_state_in(conn, subscription, change.at).await?;
                }
                // The move wrote the document before the refunds were in: once more with them.
                read_model::write_documents(conn, &[change.proposal_id]).await?;
                Ok::<_, ChangeError>((event, protocol))
            })
            .await;
        result.map_err(ChangeStatusError::from)
    }

    async fn paid_charges(&self, proposal_id: i64) -> Result<Vec<PaidCharge>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type Row = (
            i64,
            i64,
            Option<i64>,
            NaiveDate,
            Option<DateTime<Utc>>,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<Row> = charges::table
            .filter(charges::id_proposta.eq(proposal_id))
            .filter(charges::status.eq(ChargeStatus::Paid.as_str()))
            .order(charges::periodo)
            .select((
                charges::id,
                charges::valor,
                charges::valor_pago,
                charges::vencimento,
                charges::pago_em,
                charges::id_externo,
                charges::pix_e2e,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, due_amount, received, due, paid_at, txid, e2e)| {
                paid_charge(id, due_amount, received, due, paid_at, txid, e2e)
            })
            .collect())
    }

    async fn paid_after_end(&self, limit: i64) -> Result<Vec<LatePayment>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type Row = (
            i64,
            String,
            String,
            i64,
            i64,
            Option<i64>,
            NaiveDate,
            Option<DateTime<Utc>>,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<Row> = charges::table
            .inner_join(proposals::table.on(proposals::id.eq(charges::id_proposta)))
            .filter(charges::status.eq(ChargeStatus::Paid.as_str()))
            .filter(charges::motivo.like(format!("%{TO_GIVE_BACK}")))
            .order(charges::id)
            .limit(limit)
            .select((
                proposals::id,
                proposals::identificador,
                proposals::status,
                charges::id,
                charges::valor,
                charges::valor_pago,
                charges::vencimento,
                charges::pago_em,
                charges::id_externo,
                charges::pix_e2e,
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .filter_map(
                |(proposal_id, identifier, status, id, due_amount, received, due, paid_at, txid, e2e)| {
                    let charge = paid_charge(id, due_amount, received, due, paid_at, txid, e2e)?;
                    Some(
                        ProposalStatus::from_stored(&status, "proposals", "status").map(|status| LatePayment {
                            proposal_id,
                            identifier,
                            status,
                            charge,
                        }),
                    )
                },
            )
            .collect::<Result<_, StoredValueError>>()
            .map_err(StoreError::from)
    }

    async fn record_late_refund(
        &self,
        late: &LatePayment,
        records: &[RefundRecord],
        operation: OperationId,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        statement! {
            LOCK_PROPOSALS = "SELECT id FROM proposals WHERE id = $1 FOR NO KEY UPDATE";
        }
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |tx| {
            // The proposal first, then its charge: the order every writer of both keeps.
            LOCK_PROPOSALS
                .query()
                .bind::<diesel::sql_types::BigInt, _>(late.proposal_id)
                .execute(tx)
                .await?;
            let marked = diesel::update(
                charges::table
                    .find(late.charge.charge_id)
                    .filter(charges::status.eq(ChargeStatus::Paid.as_str()))
                    .filter(charges::motivo.like(format!("%{TO_GIVE_BACK}"))),
            )
            .set((
                charges::motivo.eq(
                    diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::Text>>(&format!(
                        "replace(motivo, '{TO_GIVE_BACK}', '{GIVEN_BACK}')"
                    )),
                ),
                charges::alterada_em.eq(at),
                charges::alterada_por.eq(LATE_REFUND_ACTOR),
            ))
            .execute(tx)
            .await?;
            if marked == 0 {
                crate::unit_of_work::operation_end::end_in_checked(tx, operation, "pagamento já devolvido", at).await?;
                return Ok(false);
            }
            insert_refunds(tx, late.proposal_id, None, records).await?;
            if !crate::unit_of_work::operation_end::end_in_checked(
                tx,
                operation,
                &format!("cobrança {} devolvida", late.charge.charge_id),
                at,
            )
            .await?
            {
                // The worker ended it first, with the same refunds: this rolls back.
                return Err(diesel::result::Error::RollbackTransaction);
            }
            read_model::write_documents(tx, &[late.proposal_id]).await?;
            Ok::<_, diesel::result::Error>(true)
        })
        .await
        .or_else(|e| match e {
            diesel::result::Error::RollbackTransaction => Ok(false),
            other => Err(query_error(other)),
        })
    }

    async fn to_pay(&self) -> Result<Vec<RefundToPay>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(String, RefundPart, Option<DestinationRow>)> = refunds::table
            .inner_join(proposals::table)
            .left_join(refund_destinations::table.on(refund_destinations::id_proposta.eq(refunds::proposal_id)))
            .filter(refunds::status.eq(TO_PAY))
            .order((refunds::created_at, refunds::id))
            .select((
                proposals::identificador,
                refund_columns!(),
                Option::<DestinationRow>::as_select(),
            ))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter()
            .map(|(identifier, part, destination)| {
                Ok(RefundToPay {
                    refund: part.try_into()?,
                    identifier,
                    destination: destination.map(RefundDestination::try_from).transpose()?,
                    late_correction: None,
                })
            })
            .collect::<Result<_, StoredValueError>>()
            .map_err(StoreError::from)
    }

    async fn find(&self, id: &str) -> Result<Option<RefundRecord>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let part: Option<RefundPart> = refunds::table
            .find(id)
            .select(refund_columns!())
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(part.map(RefundRecord::try_from).transpose()?)
    }

    async fn mark_paid(
        &self,
        id: &str,
        reference: &str,
        by: &str,
        at: DateTime<Utc>,
        late: Option<RefundRecord>,
    ) -> Result<MarkedPaid, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let found: Option<(i64, String, String, Option<String>)> = refunds::table
                .find(id)
                .select((
                    refunds::proposal_id,
                    refunds::meio,
                    refunds::status,
                    refunds::referencia,
                ))
                .for_update()
                .first(conn)
                .await
                .optional()?;
            let Some((proposal_id, channel, status, paid_reference)) = found else {
                return Ok(MarkedPaid::NotFound);
            };
            if channel != RefundChannel::ToPay.as_str() {
                return Ok(MarkedPaid::NotToPay);
            }
            if status == PAID {
                return Ok(MarkedPaid::AlreadyPaid {
                    reference: paid_reference.unwrap_or_default(),
                });
            }
            diesel::update(refunds::table.find(id))
                .set((
                    refunds::status.eq(PAID),
                    refunds::referencia.eq(reference),
                    refunds::pago_em.eq(at),
                    refunds::pago_por.eq(by),
                ))
                .execute(conn)
                .await?;
            if let Some(late) = &late {
                insert_late_correction(conn, proposal_id, id, late, by).await?;
            }
            read_model::write_documents(conn, &[proposal_id]).await?;
            Ok::<_, diesel::result::Error>(MarkedPaid::Marked)
        })
        .await
        .map_err(query_error)
    }

    async fn overdue_count(&self, today: NaiveDate) -> Result<i64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        refunds::table
            .filter(refunds::status.eq(TO_PAY))
            .filter(refunds::vence_em.lt(today))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(query_error)
    }
}

#[async_trait]
impl RefundDestinationStore for PgRefunds {
    async fn record(
        &self,
        proposal_id: i64,
        destination: &RefundDestination,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = DestinationRow::from(destination);
        let values = (
            refund_destinations::id_proposta.eq(proposal_id),
            refund_destinations::tipo.eq(&row.tipo),
            refund_destinations::tipo_chave.eq(&row.tipo_chave),
            refund_destinations::chave.eq(&row.chave),
            refund_destinations::banco.eq(&row.banco),
            refund_destinations::agencia.eq(&row.agencia),
            refund_destinations::conta.eq(&row.conta),
            refund_destinations::tipo_conta.eq(&row.tipo_conta),
            refund_destinations::registrado_por.eq(by),
            refund_destinations::registrado_em.eq(at),
        );
        diesel::insert_into(refund_destinations::table)
            .values(values)
            .on_conflict(refund_destinations::id_proposta)
            .do_update()
            .set(values)
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}

/// The sampled count of refunds to pay past their due date (`refunds_to_pay_overdue`).
pub async fn refunds_overdue(pool: &PgPool, today: NaiveDate) -> Result<i64, StoreError> {
    PgRefunds::new(pool.clone()).overdue_count(today).await
}

/// A contract's refund destination as stored.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable)]
#[diesel(table_name = refund_destinations)]
pub(crate) struct DestinationRow {
    pub tipo: String,
    pub tipo_chave: Option<String>,
    pub chave: Option<String>,
    pub banco: Option<String>,
    pub agencia: Option<String>,
    pub conta: Option<String>,
    pub tipo_conta: Option<String>,
}

impl From<&RefundDestination> for DestinationRow {
    fn from(destination: &RefundDestination) -> Self {
        match destination {
            RefundDestination::Pix(key) => Self {
                tipo: destination.kind().to_owned(),
                tipo_chave: Some(key.kind().to_owned()),
                chave: Some(key.as_str().to_owned()),
                banco: None,
                agencia: None,
                conta: None,
                tipo_conta: None,
            },
            RefundDestination::Account(TransferAccount { account, kind }) => Self {
                tipo: destination.kind().to_owned(),
                tipo_chave: None,
                chave: None,
                banco: Some(account.bank.clone()),
                agencia: Some(account.agency.clone()),
                conta: Some(account.account.clone()),
                tipo_conta: Some(kind.as_str().to_owned()),
            },
        }
    }
}

impl TryFrom<DestinationRow> for RefundDestination {
    type Error = StoredValueError;

    /// Read back through the rules that took it: a row no rule would take is reported, not paid.
    fn try_from(row: DestinationRow) -> Result<Self, StoredValueError> {
        let bad = |column: &'static str, value: &str| StoredValueError::new("refund_destinations", column, value);
        match (
            row.tipo.as_str(),
            row.chave,
            row.banco,
            row.agencia,
            row.conta,
            row.tipo_conta,
        ) {
            ("pix", Some(key), ..) => PixKey::parse(&key)
                .map(RefundDestination::Pix)
                .map_err(|_| bad("chave", &key)),
            ("conta", None, Some(bank), Some(agency), Some(number), Some(kind)) => {
                let mut v = domain::validation::Violations::new();
                let account = BankAccount::parse(&mut v, "", Some(&bank), Some(&agency), Some(&number), None)
                    .ok_or_else(|| bad("conta", &number))?;
                let kind = AccountKind::parse(&kind).map_err(|_| bad("tipo_conta", &kind))?;
                Ok(RefundDestination::Account(TransferAccount { account, kind }))
            }
            (other, ..) => Err(bad("tipo", other)),
        }
    }
}
