//! The billing of accepted contracts (issue 46): the domain's `BillingStore`. A contract's billing
//! is written in the move into `APROVADO`'s transaction (`unit_of_work::on_move::billing`) and closed, its
//! open charges cancelled, in the move out of it; the run creates charges under claims
//! (`FOR UPDATE SKIP LOCKED` on the billings, a unique period per contract) and moves billing
//! statuses by compare-and-set. Each change queues its `COBRANCA_ALTERADA` and writes the
//! proposal's document in its own transaction; the history is the triggers'
//! (`migrations-repeatable/proposal_history_on_billing.sql`).

use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::read_model::parts::billing::{BillingPart, ChargePart};
use crate::rows::stored;
use crate::schema::{
    averbacoes, billing_notices, charges, contract_billings as billings, contract_terms, products, proposals,
};
use crate::statement::statement;
use crate::unit_of_work::on_move::queue_charge_event;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::billing::averbacao::AverbacaoStatus;
use domain::billing::notice_kind::NoticeKind;
use domain::billing::payroll::ReportedDiscount;
use domain::billing::ports::{BillingCheck, BillingStore, DiscountOutcome};
use domain::billing::{Billing, BillingStatus, Charge, ChargeStatus, ProductBilling, due_date};
use domain::store::StoreError;
use domain::values::{PaymentType, StoredValueError};
use std::collections::HashMap;

diesel::define_sql_function! {
    /// A charge's first presentation: the one it has, else `at` (a retry is no new presentation).
    #[sql_name = "coalesce"]
    fn first_presented(
        presented: Nullable<diesel::sql_types::Timestamptz>,
        at: diesel::sql_types::Timestamptz,
    ) -> Nullable<diesel::sql_types::Timestamptz>;
}

/// How many billings one transaction of the run claims.
const RUN_BATCH: i64 = 500;

#[derive(Clone)]
pub struct PgBilling {
    pool: PgPool,
}

impl PgBilling {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// A product's billing rules as the catalog holds them (`sales-api catalog billing`); `None`
    /// for an unknown product.
    pub async fn product_billing(&self, product_code: i32) -> Result<Option<ProductBilling>, StoreError> {
        type Row = (i32, Vec<Option<i32>>, i32, i32, String, i32);
        let mut conn = connection(&self.pool).await?;
        let row: Option<Row> = products::table
            .filter(products::codigo_produto.eq(product_code))
            .select((
                products::cobranca_primeiro_vencimento_dias,
                products::cobranca_retentativas_dias,
                products::cobranca_carencia_dias,
                products::cobranca_suspensao_dias,
                products::cobranca_primeira_parcela,
                products::cobranca_encerramento_dias,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some((first_due, retries, grace, suspension, first, end)) = row else {
            return Ok(None);
        };
        let retries: Vec<i64> = retries.into_iter().flatten().map(i64::from).collect();
        ProductBilling::new(
            (i64::from(first_due), &retries, i64::from(grace), i64::from(suspension)),
            &first,
            i64::from(end),
        )
        .map(Some)
        .map_err(|v| StoreError::Unavailable(format!("regras de cobrança do produto {product_code} inválidas: {v}")))
    }

    /// Sets a product's billing rules for the contracts accepted from now on (each keeps its
    /// own); false for an unknown product.
    pub async fn set_product_billing(&self, product_code: i32, rules: &ProductBilling) -> Result<bool, StoreError> {
        let days = |d: u32| i32::try_from(d).unwrap_or(i32::MAX);
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::cobranca_primeiro_vencimento_dias.eq(days(rules.policy.first_due_days)),
                products::cobranca_retentativas_dias.eq(rules
                    .policy
                    .retry_days
                    .iter()
                    .map(|d| Some(days(*d)))
                    .collect::<Vec<_>>()),
                products::cobranca_carencia_dias.eq(days(rules.policy.grace_days)),
                products::cobranca_suspensao_dias.eq(days(rules.policy.suspension_days)),
                products::cobranca_primeira_parcela.eq(rules.first_instalment.as_str()),
                products::cobranca_encerramento_dias.eq(days(rules.end_days)),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }
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
    /// The current term's end (none recorded: billed as before terms, decision 270).
    fim_vigencia: Option<NaiveDate>,
}

/// One claimed batch: the charges up to `horizon` of at most [`RUN_BATCH`] billings created, their
/// next period moved on, their events queued and their documents written. Answers how many
/// billings it claimed and how many charges it created.
async fn create_batch(
    conn: &mut AsyncPgConnection,
    horizon: NaiveDate,
    at: DateTime<Utc>,
) -> QueryResult<(usize, u64)> {
    statement! {
        ADVANCE_BILLINGS = "UPDATE contract_billings b SET proximo_periodo = n.periodo, proximo_vencimento = n.vencimento \
             FROM unnest($1::int8[], $2::int4[], $3::date[]) AS n (id, periodo, vencimento) WHERE b.id_proposta = n.id";
    }
    // A payroll contract is billed only under an active averbação (issue 67, decision 268).
    let payroll_registered = diesel::dsl::exists(
        averbacoes::table
            .filter(averbacoes::id_proposta.eq(billings::id_proposta))
            .filter(averbacoes::situacao.eq(AverbacaoStatus::Active.as_str())),
    );
    // No charge falls due on or after the current term's end: a renewal's next term lets the
    // next ones be created (decision 270).
    let term_end = contract_terms::table
        .filter(contract_terms::id_proposta.eq(billings::id_proposta))
        .select(diesel::dsl::max(contract_terms::fim))
        .single_value();
    let within_term = diesel::dsl::not(diesel::dsl::exists(
        contract_terms::table.filter(contract_terms::id_proposta.eq(billings::id_proposta)),
    ))
    .or(diesel::dsl::exists(
        contract_terms::table
            .filter(contract_terms::id_proposta.eq(billings::id_proposta))
            .filter(contract_terms::fim.gt(billings::proximo_vencimento)),
    ));
    let due: Vec<DueBilling> = billings::table
        .filter(billings::encerrada_em.is_null())
        .filter(billings::proximo_vencimento.le(horizon))
        .filter(within_term)
        .filter(
            billings::metodo
                .ne(PaymentType::PayrollDiscount.as_str())
                .or(payroll_registered),
        )
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
            term_end,
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
        let within = |due: NaiveDate| billing.fim_vigencia.is_none_or(|end| due < end);
        while due_date(billing.primeiro_vencimento, period) <= horizon
            && within(due_date(billing.primeiro_vencimento, period))
        {
            rows.push((
                charges::id_proposta.eq(billing.id_proposta),
                charges::periodo.eq(period as i32),
                charges::vencimento.eq(due_date(billing.primeiro_vencimento, period)),
                charges::valor.eq(billing.valor),
                charges::metodo.eq(billing.metodo.clone()),
                // A payroll discount is asked of the payroll with its charge, under its active
                // averbação; a debit is presented by its remessa, a Pix by its sending.
                charges::apresentada_em.eq((billing.metodo == PaymentType::PayrollDiscount.as_str()).then_some(at)),
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
    ADVANCE_BILLINGS
        .query()
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
    #[diesel(sql_type = Nullable<Date>)]
    aviso_desde: Option<NaiveDate>,
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
            notice_from: r.aviso_desde,
        })
    }
}

/// The day charge `c` is unpaid from, once presented: its due date or, presented later, the
/// Brasília day it was (decision 265).
macro_rules! payable_from {
    () => {
        "greatest(c.vencimento, (c.apresentada_em AT TIME ZONE 'America/Sao_Paulo')::date)"
    };
}

/// The check of the billings `$condition` selects (`b` the billing): the oldest day a presented
/// charge is unpaid from, and the day its open notice of lateness counts from (its receipt, or
/// its frustration; Lei 15.040 art. 20 §§1, 3).
macro_rules! check_statement {
    ($condition:expr) => {
        concat!(
            "SELECT b.id_proposta, p.identificador, b.situacao, b.carencia_dias, b.suspensao_dias, \
             (SELECT min(",
            payable_from!(),
            ") FROM charges c \
              WHERE c.id_proposta = b.id_proposta AND c.status IN ('aberta', 'falhou') \
                AND c.apresentada_em IS NOT NULL) AS mais_antiga, \
             (SELECT (coalesce(n.recebido_em, n.frustrado_em) AT TIME ZONE 'America/Sao_Paulo')::date \
              FROM billing_notices n WHERE n.id_proposta = b.id_proposta AND n.tipo = 'atraso' \
                AND n.fechado_em IS NULL) AS aviso_desde \
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
        statement! {
            CHECK_DUE => CheckRow = check_statement!(concat!(
                // `c.vencimento < $1` follows from the day payable and keeps the unpaid charges'
                // index (`charges_unpaid`) in use.
                "(b.situacao <> 'em_dia' OR b.id_proposta IN (SELECT c.id_proposta FROM charges c \
                 WHERE c.status IN ('aberta', 'falhou') AND c.vencimento < $1 AND c.apresentada_em IS NOT NULL AND ",
                payable_from!(),
                " < $1)) ORDER BY b.id_proposta"
            ));
        }
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<CheckRow> = CHECK_DUE
            .query()
            .bind::<Date, _>(today)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows.into_iter().map(BillingCheck::try_from).collect::<Result<_, _>>()?)
    }

    async fn check_of(&self, proposal_id: i64) -> Result<Option<BillingCheck>, StoreError> {
        statement! {
            CHECK_ONE => CheckRow = check_statement!("b.id_proposta = $1");
        }
        let mut conn = connection(&self.pool).await?;
        let row: Option<CheckRow> = CHECK_ONE
            .query()
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
            // Paid: the arrears' notices are closed, a later one starts over (art. 20 §1).
            if to == BillingStatus::UpToDate {
                diesel::update(billing_notices::table)
                    .filter(billing_notices::id_proposta.eq(proposal_id))
                    .filter(billing_notices::tipo.eq_any(NoticeKind::ARREARS.map(NoticeKind::as_str)))
                    .filter(billing_notices::fechado_em.is_null())
                    .set(billing_notices::fechado_em.eq(at))
                    .execute(conn)
                    .await?;
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
