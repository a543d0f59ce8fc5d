//! The billing of accepted contracts (issue 46): the domain's `BillingStore`. A contract's billing
//! is written in the move into `APROVADO`'s transaction ([`on_status_change`]) and closed, its
//! open charges cancelled, in the move out of it; the run creates charges under claims
//! (`FOR UPDATE SKIP LOCKED` on the billings, a unique period per contract) and moves billing
//! statuses by compare-and-set. Each change queues its `COBRANCA_ALTERADA` and writes the
//! proposal's document in its own transaction; the history is the triggers'
//! (`migrations-repeatable/proposal_history_on_billing.sql`).

use crate::event_outbox::{facts_of, next_sequence, queue};
use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::schema::{charges, contract_billings as billings, products, proposals};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::billing::payroll::ReportedDiscount;
use domain::billing::ports::{BillingCheck, BillingStore, DiscountOutcome};
use domain::billing::{
    Billing, BillingStatus, CHARGES_SHOWN, Charge, ChargeStatus, DunningPolicy, brasilia_day, due_date, first_due_date,
};
use domain::hooks::payload;
use domain::proposals::lifecycle::StatusChange;
use domain::store::StoreError;
use domain::values::{EventKind, Flow, PaymentType, ProposalStatus, StoredValueError};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How many billings one transaction of the run claims.
const RUN_BATCH: i64 = 500;

/// Why a charge was cancelled when its contract left `APROVADO`.
const CONTRACT_ENDED: &str = "contrato encerrado";

#[derive(Clone)]
pub struct PgBilling {
    pool: PgPool,
}

impl PgBilling {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

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

pub(crate) fn stored<T>(value: Result<T, StoredValueError>) -> QueryResult<T> {
    value.map_err(|e| diesel::result::Error::DeserializationError(e.to_string().into()))
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

/// In a status move's transaction: entering `APROVADO` starts the billing of a partner's contract
/// paid by debit or payroll discount, with its product's policy as it is now; leaving it closes
/// the billing and cancels its open charges, each with its event.
pub(crate) async fn on_status_change(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    if change.to == ProposalStatus::Approved {
        start(conn, change).await
    } else if change.from == ProposalStatus::Approved {
        close(conn, change).await
    } else {
        Ok(())
    }
}

type PolicyRow = (String, Option<String>, i64, i32, Vec<Option<i32>>, i32, i32);

async fn start(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    let row: Option<PolicyRow> = proposals::table
        .inner_join(products::table)
        .filter(proposals::id.eq(change.proposal_id))
        .select((
            proposals::fluxo,
            proposals::tipo_pagamento,
            proposals::valor,
            products::cobranca_primeiro_vencimento_dias,
            products::cobranca_retentativas_dias,
            products::cobranca_carencia_dias,
            products::cobranca_suspensao_dias,
        ))
        .first(conn)
        .await
        .optional()?;
    let Some((flow, method, amount, first_due_days, retry_days, grace_days, suspension_days)) = row else {
        return Ok(());
    };
    let billed_here =
        flow == Flow::Partner.as_str() && method.as_deref().is_some_and(|m| PaymentType::parse(m).is_ok());
    let Some(method) = method.filter(|_| billed_here) else {
        return Ok(());
    };
    let policy = DunningPolicy {
        first_due_days: u32::try_from(first_due_days).unwrap_or(10),
        ..DunningPolicy::default()
    };
    let first_due = first_due_date(brasilia_day(change.at), &policy);
    diesel::insert_into(billings::table)
        .values((
            billings::id_proposta.eq(change.proposal_id),
            billings::metodo.eq(&method),
            billings::valor.eq(amount),
            billings::aceita_em.eq(change.at),
            billings::primeiro_vencimento.eq(first_due),
            billings::proximo_vencimento.eq(first_due),
            billings::retentativas_dias.eq(retry_days),
            billings::carencia_dias.eq(grace_days),
            billings::suspensao_dias.eq(suspension_days),
            billings::situacao_desde.eq(change.at),
            billings::situacao_por.eq(&change.changed_by),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    if method == PaymentType::AccountDebit.as_str() {
        crate::debits::authorize(conn, change.proposal_id, change.at).await?;
    }
    Ok(())
}

async fn close(conn: &mut AsyncPgConnection, change: &StatusChange) -> QueryResult<()> {
    let closed = diesel::update(billings::table.find(change.proposal_id))
        .filter(billings::encerrada_em.is_null())
        .set(billings::encerrada_em.eq(change.at))
        .returning(BillingPart::as_returning())
        .get_result(conn)
        .await
        .optional()?;
    let Some(billing) = closed else {
        return Ok(());
    };
    let cancelled: Vec<ChargePart> = diesel::update(charges::table)
        .filter(charges::id_proposta.eq(change.proposal_id))
        // Every unpaid charge, open or failed for good, ends with its contract (decision 249).
        .filter(charges::status.eq_any([ChargeStatus::Open.as_str(), ChargeStatus::Failed.as_str()]))
        .set((
            charges::status.eq(ChargeStatus::Cancelled.as_str()),
            charges::motivo.eq(CONTRACT_ENDED),
            charges::proxima_tentativa.eq(None::<NaiveDate>),
            charges::alterada_em.eq(change.at),
            charges::alterada_por.eq(&change.changed_by),
        ))
        .returning(ChargePart::as_returning())
        .get_results(conn)
        .await?;
    let billing = stored(Billing::try_from(billing))?;
    for charge in cancelled {
        let charge = stored(Charge::try_from(charge))?;
        queue_charge_event(conn, change.proposal_id, Some(&charge), &billing, change.at).await?;
    }
    Ok(())
}

/// `COBRANCA_ALTERADA` for one proposal, in the caller's transaction.
pub(crate) async fn queue_charge_event(
    conn: &mut AsyncPgConnection,
    proposal_id: i64,
    charge: Option<&Charge>,
    billing: &Billing,
    at: DateTime<Utc>,
) -> QueryResult<()> {
    let facts = facts_of(conn, proposal_id).await?;
    let (sequence, _) = next_sequence(conn, proposal_id, EventKind::ChargeChanged).await?;
    let body = payload::charge_changed(&facts.identifier, charge, billing, at, sequence);
    queue(conn, EventKind::ChargeChanged, None, &body, facts.audience).await
}

/// `COBRANCA_ALTERADA` for each changed charge, with its contract's billing as it stands, and the
/// documents of the contracts written: in the caller's transaction. Answers the contracts.
pub(crate) async fn tell_changes(
    conn: &mut AsyncPgConnection,
    changed: Vec<(i64, ChargePart)>,
    at: DateTime<Utc>,
) -> QueryResult<Vec<i64>> {
    let mut touched: Vec<i64> = Vec::new();
    for (proposal_id, part) in changed {
        let billing: BillingPart = billings::table
            .find(proposal_id)
            .select(BillingPart::as_select())
            .first(conn)
            .await?;
        let billing = stored(Billing::try_from(billing))?;
        let charge = stored(Charge::try_from(part))?;
        queue_charge_event(conn, proposal_id, Some(&charge), &billing, at).await?;
        if !touched.contains(&proposal_id) {
            touched.push(proposal_id);
        }
    }
    for chunk in touched.chunks(1000) {
        read_model::write_documents(conn, chunk).await?;
    }
    Ok(touched)
}

/// A billing the run claimed, with what its next charges need.
#[derive(Debug, Queryable)]
struct DueBilling {
    id_proposta: i64,
    metodo: String,
    valor: i64,
    primeiro_vencimento: NaiveDate,
    proximo_periodo: i32,
    situacao: String,
    situacao_desde: DateTime<Utc>,
}

/// One claimed batch: the charges up to `horizon` of at most [`RUN_BATCH`] billings created, their
/// next period moved on, their events queued and their documents written. Answers how many
/// billings it claimed and how many charges it created.
async fn create_batch(
    conn: &mut AsyncPgConnection,
    horizon: NaiveDate,
    at: DateTime<Utc>,
) -> QueryResult<(usize, u64)> {
    let due: Vec<DueBilling> = billings::table
        .filter(billings::encerrada_em.is_null())
        .filter(billings::proximo_vencimento.le(horizon))
        .order(billings::proximo_vencimento.asc())
        .limit(RUN_BATCH)
        .select((
            billings::id_proposta,
            billings::metodo,
            billings::valor,
            billings::primeiro_vencimento,
            billings::proximo_periodo,
            billings::situacao,
            billings::situacao_desde,
        ))
        .for_update()
        .skip_locked()
        .load(conn)
        .await?;
    let claimed = due.len();
    let mut rows = Vec::new();
    let (mut ids, mut next_periods, mut next_dues) = (Vec::new(), Vec::new(), Vec::new());
    for billing in &due {
        let mut period = u32::try_from(billing.proximo_periodo).unwrap_or(1);
        while due_date(billing.primeiro_vencimento, period) <= horizon {
            rows.push((
                charges::id_proposta.eq(billing.id_proposta),
                charges::periodo.eq(period as i32),
                charges::vencimento.eq(due_date(billing.primeiro_vencimento, period)),
                charges::valor.eq(billing.valor),
                charges::metodo.eq(billing.metodo.clone()),
                charges::criada_em.eq(at),
                charges::alterada_em.eq(at),
                charges::alterada_por.eq(domain::billing::RUN_ACTOR),
            ));
            period += 1;
        }
        ids.push(billing.id_proposta);
        next_periods.push(period as i32);
        next_dues.push(due_date(billing.primeiro_vencimento, period));
    }
    if claimed == 0 {
        return Ok((0, 0));
    }
    // A period created already (the run interrupted after its insert, never before its update:
    // one transaction) is kept as it is.
    let created: Vec<(i64, ChargePart)> = diesel::insert_into(charges::table)
        .values(rows)
        .on_conflict((charges::id_proposta, charges::periodo))
        .do_nothing()
        .returning((charges::id_proposta, ChargePart::as_returning()))
        .get_results(conn)
        .await?;
    diesel::sql_query(
        "UPDATE contract_billings b SET proximo_periodo = n.periodo, proximo_vencimento = n.vencimento \
         FROM unnest($1, $2, $3) AS n (id, periodo, vencimento) WHERE b.id_proposta = n.id",
    )
    .bind::<Array<BigInt>, _>(&ids)
    .bind::<Array<Integer>, _>(&next_periods)
    .bind::<Array<Date>, _>(&next_dues)
    .execute(conn)
    .await?;
    let states: HashMap<i64, (&str, DateTime<Utc>)> = due
        .iter()
        .map(|b| (b.id_proposta, (b.situacao.as_str(), b.situacao_desde)))
        .collect();
    let mut touched = Vec::new();
    for (proposal_id, part) in &created {
        let Some((status, since)) = states.get(proposal_id) else {
            continue;
        };
        let billing = Billing {
            status: stored(BillingStatus::from_stored(status, "contract_billings", "situacao"))?,
            since: *since,
        };
        let charge = stored(Charge::try_from(part.clone()))?;
        queue_charge_event(conn, *proposal_id, Some(&charge), &billing, at).await?;
        if touched.last() != Some(proposal_id) {
            touched.push(*proposal_id);
        }
    }
    read_model::write_documents(conn, &touched).await?;
    Ok((claimed, created.len() as u64))
}

#[derive(QueryableByName)]
struct CheckRow {
    #[diesel(sql_type = BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    situacao: String,
    #[diesel(sql_type = Nullable<Date>)]
    mais_antiga: Option<NaiveDate>,
    #[diesel(sql_type = Integer)]
    carencia_dias: i32,
    #[diesel(sql_type = Integer)]
    suspensao_dias: i32,
}

impl TryFrom<CheckRow> for BillingCheck {
    type Error = StoredValueError;

    fn try_from(r: CheckRow) -> Result<Self, StoredValueError> {
        Ok(BillingCheck {
            proposal_id: r.id_proposta,
            identifier: r.identificador,
            status: BillingStatus::from_stored(&r.situacao, "contract_billings", "situacao")?,
            oldest_unpaid_due: r.mais_antiga,
            grace_days: u32::try_from(r.carencia_dias).unwrap_or_default(),
            suspension_days: u32::try_from(r.suspensao_dias).unwrap_or_default(),
        })
    }
}

/// The check of the billings `$condition` selects (`b` the billing): the oldest unpaid due date.
macro_rules! check_statement {
    ($condition:literal) => {
        concat!(
            "SELECT b.id_proposta, p.identificador, b.situacao, b.carencia_dias, b.suspensao_dias, \
             (SELECT min(c.vencimento) FROM charges c \
              WHERE c.id_proposta = b.id_proposta AND c.status IN ('aberta', 'falhou')) AS mais_antiga \
             FROM contract_billings b JOIN proposals p ON p.id = b.id_proposta \
             WHERE b.encerrada_em IS NULL AND ",
            $condition
        )
    };
}

#[async_trait]
impl BillingStore for PgBilling {
    async fn create_due(&self, horizon: NaiveDate, at: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let mut created = 0;
        loop {
            let (claimed, made) = conn
                .transaction(async |conn| create_batch(conn, horizon, at).await)
                .await
                .map_err(query_error)?;
            created += made;
            // A short batch: nothing left due, or the rest is another instance's.
            if claimed < RUN_BATCH as usize {
                return Ok(created);
            }
        }
    }

    async fn to_judge(&self, today: NaiveDate) -> Result<Vec<BillingCheck>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<CheckRow> = diesel::sql_query(check_statement!(
            "(b.situacao <> 'em_dia' OR b.id_proposta IN (SELECT c.id_proposta FROM charges c \
             WHERE c.status IN ('aberta', 'falhou') AND c.vencimento < $1)) ORDER BY b.id_proposta"
        ))
        .bind::<Date, _>(today)
        .load(&mut conn)
        .await
        .map_err(query_error)?;
        Ok(rows.into_iter().map(BillingCheck::try_from).collect::<Result<_, _>>()?)
    }

    async fn check_of(&self, proposal_id: i64) -> Result<Option<BillingCheck>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<CheckRow> = diesel::sql_query(check_statement!("b.id_proposta = $1"))
            .bind::<BigInt, _>(proposal_id)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(BillingCheck::try_from).transpose()?)
    }

    async fn move_status(
        &self,
        proposal_id: i64,
        from: BillingStatus,
        to: BillingStatus,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let moved = diesel::update(billings::table.find(proposal_id))
                .filter(billings::situacao.eq(from.as_str()))
                .filter(billings::encerrada_em.is_null())
                .set((
                    billings::situacao.eq(to.as_str()),
                    billings::situacao_desde.eq(at),
                    billings::situacao_por.eq(by),
                ))
                .execute(conn)
                .await?;
            if moved == 0 {
                return Ok(false);
            }
            let billing = Billing { status: to, since: at };
            queue_charge_event(conn, proposal_id, None, &billing, at).await?;
            read_model::write_documents(conn, &[proposal_id]).await?;
            Ok(true)
        })
        .await
        .map_err(query_error)
    }

    async fn record_discount(
        &self,
        discount: &ReportedDiscount,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<DiscountOutcome, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let month_end = discount
                .month
                .checked_add_months(chrono::Months::new(1))
                .unwrap_or(NaiveDate::MAX);
            let found: Option<i64> = charges::table
                .inner_join(billings::table.inner_join(proposals::table))
                .filter(proposals::identificador.eq(&discount.identifier))
                .filter(charges::vencimento.ge(discount.month))
                .filter(charges::vencimento.lt(month_end))
                .select(charges::id)
                .first(conn)
                .await
                .optional()?;
            let Some(id) = found else {
                return Ok(DiscountOutcome::NotFound);
            };
            // The charge's row lock orders two readings of one report: the second finds it paid.
            let (proposal_id, method, status, amount): (i64, String, String, i64) = charges::table
                .find(id)
                .select((charges::id_proposta, charges::metodo, charges::status, charges::valor))
                .for_update()
                .first(conn)
                .await?;
            if method != PaymentType::PayrollDiscount.as_str() {
                return Ok(DiscountOutcome::NotPayroll { method });
            }
            let status = stored(ChargeStatus::from_stored(&status, "charges", "status"))?;
            match status {
                ChargeStatus::Paid => return Ok(DiscountOutcome::AlreadyPaid),
                ChargeStatus::Open => {}
                other => return Ok(DiscountOutcome::NotOpen { status: other }),
            }
            if amount != discount.amount {
                return Ok(DiscountOutcome::AmountDiffers { expected: amount });
            }
            // Paid on the day the employer discounted it, from the start of that Brasília day.
            let paid_at = discount
                .discounted_on
                .and_time(NaiveTime::MIN)
                .and_local_timezone(domain::contract::formats::brasilia())
                .single()
                .map_or(at, |t| t.with_timezone(&Utc));
            let charge: ChargePart = diesel::update(charges::table.find(id))
                .set((
                    charges::status.eq(ChargeStatus::Paid.as_str()),
                    charges::pago_em.eq(paid_at),
                    charges::valor_pago.eq(discount.amount),
                    charges::proxima_tentativa.eq(None::<NaiveDate>),
                    charges::alterada_em.eq(at),
                    charges::alterada_por.eq(by),
                ))
                .returning(ChargePart::as_returning())
                .get_result(conn)
                .await?;
            tell_changes(conn, vec![(proposal_id, charge)], at).await?;
            Ok(DiscountOutcome::Paid { proposal_id })
        })
        .await
        .map_err(query_error)
    }
}
