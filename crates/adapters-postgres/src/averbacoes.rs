//! The averbações of payroll contracts (issue 67): the domain's `AverbacaoStore`. Each record
//! moves forward by compare-and-set in one transaction with its history entry, the billing's
//! first due date when the averbação became active before any charge, the proposal's document
//! and the end of the operation it was made under.

use crate::pool::{PgPool, connection, query_error};
use crate::read_model::write_documents;
use crate::schema::{averbacoes, contract_billings as billings};
use crate::statement::statement;
use crate::unit_of_work::operation_end::{OperationState, end_in};
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Int4, Nullable, Text};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::billing::averbacao::{Averbacao, AverbacaoCase, AverbacaoStatus, AverbacaoStore, ConsignmentRequest};
use domain::proposals::operations::OperationId;
use domain::store::StoreError;
use domain::values::{Cpf, ProposalStatus, SheetType, StoredValueError};

#[derive(Clone)]
pub struct PgAverbacoes {
    pool: PgPool,
}

impl PgAverbacoes {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

/// A payroll contract with its billing and averbação, as [`CASES`] reads it.
#[derive(QueryableByName)]
struct CaseRow {
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
    #[diesel(sql_type = Nullable<Text>)]
    tipo_folha: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    numero_folha: Option<String>,
    #[diesel(sql_type = Nullable<Int4>)]
    especie: Option<i32>,
    #[diesel(sql_type = BigInt)]
    valor: i64,
    #[diesel(sql_type = Date)]
    aceita_no_dia: NaiveDate,
    #[diesel(sql_type = Date)]
    primeiro_vencimento: NaiveDate,
    #[diesel(sql_type = Bool)]
    cobrada: bool,
    #[diesel(sql_type = Bool)]
    encerrada: bool,
    #[diesel(sql_type = Nullable<Text>)]
    id_externo: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    situacao: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    margem: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    motivo: Option<String>,
}

impl CaseRow {
    /// The case, or `None` for a contract whose stored payroll details no platform could read
    /// (a customer without a CPF, a payment without its number): logged, left to the back office.
    fn into_case(self) -> Result<Option<AverbacaoCase>, StoreError> {
        let (Ok(cpf), Some(number), Some(sheet_type)) = (
            Cpf::parse(&self.cpf),
            self.numero_folha,
            self.tipo_folha.as_deref().and_then(|t| SheetType::parse(t).ok()),
        ) else {
            tracing::warn!(
                proposal = self.id,
                "payroll contract without a CPF or payroll number: no averbação asked"
            );
            return Ok(None);
        };
        let current = match (self.situacao, self.id_externo) {
            (Some(status), id) => Some(Averbacao {
                // A discount moved from before the averbações has no platform id.
                id: id.unwrap_or_default(),
                status: AverbacaoStatus::parse(&status)
                    .ok_or_else(|| StoredValueError::new("averbacoes", "situacao", &status))?,
                margin_cents: self.margem,
                reason: self.motivo,
            }),
            (None, _) => None,
        };
        Ok(Some(AverbacaoCase {
            proposal_id: self.id,
            identifier: self.identificador.clone(),
            proposal_status: ProposalStatus::from_stored(&self.status, "proposals", "status")?,
            request: ConsignmentRequest {
                contract: self.identificador,
                cpf,
                name: self.nome_completo,
                sheet_type,
                number,
                specie: self.especie,
                monthly_amount_cents: self.valor,
            },
            accepted_on: self.aceita_no_dia,
            first_due: self.primeiro_vencimento,
            billed: self.cobrada,
            ended: self.encerrada,
            current,
        }))
    }
}

/// The payroll contracts with a billing, each with its averbação if it has one; the caller's
/// condition follows.
macro_rules! cases {
    ($condition:literal) => {
        concat!(
            "SELECT p.id, p.identificador, p.status, pc.cpf, pc.nome_completo, pp.tipo_folha, pp.numero_folha, \
             pp.especie, b.valor, (b.aceita_em AT TIME ZONE 'America/Sao_Paulo')::date AS aceita_no_dia, \
             b.primeiro_vencimento, b.proximo_periodo > 1 AS cobrada, b.encerrada_em IS NOT NULL AS encerrada, \
             a.id_externo, a.situacao, a.margem, a.motivo \
             FROM contract_billings b \
             JOIN proposals p ON p.id = b.id_proposta \
             JOIN proposal_customers pc ON pc.id_proposta = b.id_proposta \
             JOIN proposal_payments pp ON pp.id_proposta = b.id_proposta \
             LEFT JOIN averbacoes a ON a.id_proposta = b.id_proposta \
             WHERE b.metodo = 'DESCONTO EM FOLHA' AND ",
            $condition
        )
    };
}

statement! {
    AWAITING => CaseRow = cases!("b.encerrada_em IS NULL AND a.id_proposta IS NULL ORDER BY b.id_proposta LIMIT $1");
}
statement! {
    PENDING => CaseRow = cases!("a.situacao = 'pendente' ORDER BY b.id_proposta LIMIT $1");
}
statement! {
    TO_CANCEL => CaseRow = cases!("b.encerrada_em IS NOT NULL AND a.situacao IN ('pendente', 'ativa') \
         AND a.id_externo IS NOT NULL ORDER BY b.id_proposta LIMIT $1");
}
statement! {
    CASE_OF => CaseRow = cases!("p.identificador = $1");
}
statement! {
    /// The history entry of an averbação's move (`$1` the proposal, `$2` when, `$3` by whom,
    /// `$4` its id, `$5` the status before, `$6` after, `$7` the reason).
    HISTORY = "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes) \
         VALUES ($1, $2, $3, 'averbacao', jsonb_build_object( \
             'averbacao', jsonb_build_object('from', NULL, 'to', $4::text), \
             'situacao', jsonb_build_object('from', $5::text, 'to', $6::text)) \
             || CASE WHEN $7::text IS NULL THEN '{}'::jsonb \
                ELSE jsonb_build_object('motivo', jsonb_build_object('from', NULL, 'to', $7::text)) END)";
}

fn into_cases(rows: Vec<CaseRow>) -> Result<Vec<AverbacaoCase>, StoreError> {
    let mut cases = Vec::with_capacity(rows.len());
    for row in rows {
        cases.extend(row.into_case()?);
    }
    Ok(cases)
}

impl PgAverbacoes {
    async fn load(&self, statement: crate::statement::Statement, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<CaseRow> = statement
            .query()
            .bind::<BigInt, _>(limit)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        into_cases(rows)
    }
}

#[async_trait]
impl AverbacaoStore for PgAverbacoes {
    async fn awaiting_request(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError> {
        self.load(AWAITING, limit).await
    }

    async fn pending(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError> {
        self.load(PENDING, limit).await
    }

    async fn to_cancel(&self, limit: i64) -> Result<Vec<AverbacaoCase>, StoreError> {
        self.load(TO_CANCEL, limit).await
    }

    async fn case_of(&self, identifier: &str) -> Result<Option<AverbacaoCase>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<CaseRow> = CASE_OF
            .query()
            .bind::<Text, _>(identifier)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(CaseRow::into_case).transpose()?.flatten())
    }

    async fn record(
        &self,
        proposal_id: i64,
        averbacao: &Averbacao,
        first_due: Option<NaiveDate>,
        operation: Option<OperationId>,
        by: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let status = averbacao.status.as_str();
        let outcome = format!("averbação {} {status}", averbacao.id);
        let external_id = Some(averbacao.id.as_str()).filter(|id| !id.is_empty());
        conn.transaction(async |tx| {
            let before: Option<String> = averbacoes::table
                .find(proposal_id)
                .select(averbacoes::situacao)
                .for_update()
                .first(tx)
                .await
                .optional()?;
            let moves = match before.as_deref().map(AverbacaoStatus::parse) {
                None => true,
                Some(Some(from)) => from.may_become(averbacao.status),
                Some(None) => false,
            };
            if moves {
                diesel::insert_into(averbacoes::table)
                    .values((
                        averbacoes::id_proposta.eq(proposal_id),
                        averbacoes::id_externo.eq(external_id),
                        averbacoes::situacao.eq(status),
                        averbacoes::margem.eq(averbacao.margin_cents),
                        averbacoes::motivo.eq(&averbacao.reason),
                        averbacoes::solicitada_em.eq(at),
                        averbacoes::situacao_em.eq(at),
                        averbacoes::alterada_por.eq(by),
                    ))
                    .on_conflict(averbacoes::id_proposta)
                    .do_update()
                    .set((
                        averbacoes::id_externo.eq(external_id),
                        averbacoes::situacao.eq(status),
                        averbacoes::margem.eq(averbacao.margin_cents),
                        averbacoes::motivo.eq(&averbacao.reason),
                        averbacoes::situacao_em.eq(at),
                        averbacoes::alterada_por.eq(by),
                    ))
                    .execute(tx)
                    .await?;
                if let Some(first_due) = first_due {
                    // Only while no charge exists: a charge made keeps the dates it was made on.
                    diesel::update(
                        billings::table
                            .find(proposal_id)
                            .filter(billings::proximo_periodo.eq(1)),
                    )
                    .set((
                        billings::primeiro_vencimento.eq(first_due),
                        billings::proximo_vencimento.eq(first_due),
                    ))
                    .execute(tx)
                    .await?;
                }
                HISTORY
                    .query()
                    .bind::<BigInt, _>(proposal_id)
                    .bind::<diesel::sql_types::Timestamptz, _>(at)
                    .bind::<Text, _>(by)
                    .bind::<Text, _>(&averbacao.id)
                    .bind::<Nullable<Text>, _>(before.as_deref())
                    .bind::<Text, _>(status)
                    .bind::<Nullable<Text>, _>(averbacao.reason.as_deref())
                    .execute(tx)
                    .await?;
                write_documents(tx, &[proposal_id]).await?;
            }
            if let Some(operation) = operation {
                end_in(tx, operation, OperationState::Done, &outcome, at).await?;
            }
            Ok::<_, diesel::result::Error>(moves)
        })
        .await
        .map_err(query_error)
    }
}

/// The days a payroll contract may wait for its averbação before the gauge counts it: the
/// platforms answer within a few working days (the sandbox keeps one pending for five).
pub const AVERBACAO_WAIT_DAYS: u64 = 5;

/// The running payroll contracts nothing is discounted for, as sampled for the metrics: their
/// averbação refused (the back office decides with the customer, decision 268), or not active
/// [`AVERBACAO_WAIT_DAYS`] after the acceptance (not asked, or pending at the platform or, with
/// none wired, at the back office).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AverbacaoLevels {
    pub refused: i64,
    pub overdue: i64,
}

/// The sampled [`AverbacaoLevels`] at `now` (`averbacoes_refused`, `averbacoes_overdue`).
pub async fn averbacao_levels(pool: &PgPool, now: DateTime<Utc>) -> Result<AverbacaoLevels, StoreError> {
    let mut conn = connection(pool).await?;
    let running = || {
        billings::table
            .left_join(averbacoes::table)
            .filter(billings::metodo.eq(domain::values::PaymentType::PayrollDiscount.as_str()))
            .filter(billings::encerrada_em.is_null())
    };
    let status = averbacoes::situacao.nullable();
    let refused = running()
        .filter(status.eq(AverbacaoStatus::Refused.as_str()))
        .count()
        .get_result(&mut conn)
        .await
        .map_err(query_error)?;
    let waited_since = now - chrono::Days::new(AVERBACAO_WAIT_DAYS);
    let overdue = running()
        .filter(billings::aceita_em.le(waited_since))
        .filter(status.is_null().or(status.eq(AverbacaoStatus::Pending.as_str())))
        .count()
        .get_result(&mut conn)
        .await
        .map_err(query_error)?;
    Ok(AverbacaoLevels { refused, overdue })
}
