//! The contract's ledger (issue 65, migration 57): the domain's `LedgerStore`. The entries are
//! written by the database's triggers in the transaction of the fact that causes them (a charge, a
//! card invoice, a refund); this module records the card invoices the platform reports paid,
//! reads a proposal's balances for its document, and compares the entries with the facts.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::ledger_checks;
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int8, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::ecommerce::PaidInvoice;
use domain::ledger::ports::{CheckSummary, CheckedBatch, LedgerStore};
use domain::ledger::{EntryKind, EntrySource, LedgerDrift};
use domain::store::StoreError;

/// Whose card invoices: a subscription's (by its platform id), or a proposal's latest
/// subscription's.
pub(crate) enum InvoicesOf<'a> {
    Subscription(&'a str),
    Proposal(i64),
}

/// A paid card invoice recorded once (`$1` its id, `$2` its amount, `$3` when paid) for the latest
/// subscription `$4` names (by its platform id) or `$5`'s (the proposal's); the other is null.
macro_rules! card_invoice {
    ($filter:literal) => {
        concat!(
            "INSERT INTO card_invoices (id_fatura, id_proposta, id_assinatura, valor, pago_em) \
             SELECT $1, s.proposal_id, s.platform_id, $2, $3 FROM subscriptions s WHERE ",
            $filter,
            " ORDER BY s.id DESC LIMIT 1 \
             ON CONFLICT (id_fatura) DO NOTHING RETURNING id_proposta"
        )
    };
}

statement! {
    INVOICE_OF_SUBSCRIPTION => ProposalId = card_invoice!("s.platform_id = $4 AND $5::int8 IS NULL");
}
statement! {
    INVOICE_OF_PROPOSAL => ProposalId =
        card_invoice!("s.proposal_id = $5 AND s.platform_id IS NOT NULL AND $4::text IS NULL");
}

/// Records the card invoices the platform reported paid, each once (the ledger enters it due and
/// received); answers the proposals that gained one.
pub(crate) async fn record_card_invoices(
    conn: &mut AsyncPgConnection,
    of: InvoicesOf<'_>,
    invoices: &[PaidInvoice],
    read_at: DateTime<Utc>,
) -> QueryResult<Vec<i64>> {
    let (statement, subscription, proposal) = match of {
        InvoicesOf::Subscription(id) => (INVOICE_OF_SUBSCRIPTION, Some(id), None),
        InvoicesOf::Proposal(id) => (INVOICE_OF_PROPOSAL, None, Some(id)),
    };
    let mut gained = Vec::new();
    for invoice in invoices {
        let proposal_id: Option<i64> = statement
            .query()
            .bind::<Text, _>(&invoice.invoice_id)
            .bind::<BigInt, _>(invoice.amount)
            .bind::<Timestamptz, _>(invoice.paid_at.unwrap_or(read_at))
            .bind::<Nullable<Text>, _>(subscription)
            .bind::<Nullable<Int8>, _>(proposal)
            .get_result::<ProposalId>(conn)
            .await
            .optional()?
            .map(|row| row.id_proposta);
        gained.extend(proposal_id);
    }
    Ok(gained)
}

#[derive(QueryableByName)]
struct ProposalId {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
}

/// The entries every fact of the proposals with ids in `($1, $2]` calls for, as the triggers
/// write them: the same rules, read from the facts as they stand (a charge paid after its
/// contract's end, as its motivo says, was cancelled first). A range, not a list of ids: each
/// table is read by one range scan (ten times faster over a million contracts, docs/performance.md).
macro_rules! facts {
    () => {
        "SELECT id_proposta, 'cobranca' AS origem, id::text AS id_origem, 'devido' AS tipo, valor FROM charges \
        WHERE id_proposta > $1 AND id_proposta <= $2 \
    UNION ALL SELECT id_proposta, 'cobranca', id::text, 'recebido', coalesce(valor_pago, valor) FROM charges \
        WHERE id_proposta > $1 AND id_proposta <= $2 AND status = 'paga' \
    UNION ALL SELECT id_proposta, 'cobranca', id::text, 'cancelado', valor FROM charges \
        WHERE id_proposta > $1 AND id_proposta <= $2 AND (status = 'cancelada' \
            OR (status = 'paga' AND motivo LIKE '%depois do encerramento do contrato%')) \
    UNION ALL SELECT id_proposta, 'fatura', id_fatura, 'devido', valor FROM card_invoices WHERE id_proposta > $1 AND id_proposta <= $2 \
    UNION ALL SELECT id_proposta, 'fatura', id_fatura, 'recebido', valor FROM card_invoices WHERE id_proposta > $1 AND id_proposta <= $2 \
    UNION ALL SELECT proposal_id, 'reembolso', id, CASE WHEN meio = 'a_pagar' THEN 'a_devolver' ELSE 'devolvido' END, \
        amount_cents FROM refunds WHERE proposal_id > $1 AND proposal_id <= $2 \
    UNION ALL SELECT proposal_id, 'reembolso', id, 'devolucao_paga', amount_cents FROM refunds \
        WHERE proposal_id > $1 AND proposal_id <= $2 AND meio = 'a_pagar' AND status = 'pago'"
    };
}

#[derive(QueryableByName)]
struct DriftRow {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    origem: String,
    #[diesel(sql_type = Text)]
    id_origem: String,
    #[diesel(sql_type = Text)]
    tipo: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    lancado: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    fato: Option<i64>,
}

statement! {
    /// Each entry of the proposals in `($1, $2]` against the one its fact calls for: those that differ.
    DRIFTS => DriftRow = concat!(
        "WITH facts AS (",
        facts!(),
        "), \
         entries AS (SELECT id_proposta, origem, id_origem, tipo, valor FROM ledger_entries WHERE id_proposta > $1 AND id_proposta <= $2) \
         SELECT coalesce(e.id_proposta, f.id_proposta) AS id_proposta, p.identificador, \
                coalesce(e.origem, f.origem) AS origem, coalesce(e.id_origem, f.id_origem) AS id_origem, \
                coalesce(e.tipo, f.tipo) AS tipo, e.valor AS lancado, f.valor AS fato \
         FROM entries e FULL JOIN facts f \
             ON e.origem = f.origem AND e.id_origem = f.id_origem AND e.tipo = f.tipo AND e.id_proposta = f.id_proposta \
         JOIN proposals p ON p.id = coalesce(e.id_proposta, f.id_proposta) \
         WHERE e.valor IS DISTINCT FROM f.valor \
         ORDER BY 1, 3, 4, 5"
    );
}

statement! {
    /// The facts of the proposals in `($1, $2]` whose entries are missing, entered now.
    MEND_FROM_FACTS = concat!(
        "WITH facts AS (",
        facts!(),
        ") \
         INSERT INTO ledger_entries (id_proposta, tipo, valor, origem, id_origem, trilho, ocorrido_em) \
         SELECT f.id_proposta, f.tipo, f.valor, f.origem, f.id_origem, 'RECONCILIAÇÃO', now() FROM facts f \
         WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e \
             WHERE e.origem = f.origem AND e.id_origem = f.id_origem AND e.tipo = f.tipo) \
         ON CONFLICT ON CONSTRAINT ledger_entries_once DO NOTHING"
    );
}

#[derive(QueryableByName)]
struct Batch {
    #[diesel(sql_type = BigInt)]
    contracts: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    last: Option<i64>,
}

#[derive(Clone)]
pub struct PgLedger {
    pool: PgPool,
}

impl PgLedger {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

fn drift_of(row: DriftRow) -> Result<LedgerDrift, StoreError> {
    let kind = EntryKind::parse(&row.tipo)
        .ok_or_else(|| StoreError::Unexpected(format!("ledger_entries.tipo desconhecido: {}", row.tipo)))?;
    Ok(LedgerDrift {
        proposal_id: row.id_proposta,
        identifier: row.identificador,
        source: EntrySource {
            origin: row.origem,
            id: row.id_origem,
            kind,
        },
        ledger: row.lancado,
        fact: row.fato,
    })
}

#[async_trait]
impl LedgerStore for PgLedger {
    async fn check_batch(&self, after: i64, limit: i64, mend: bool) -> Result<CheckedBatch, StoreError> {
        statement! {
            SELECT_PROPOSALS => Batch = "SELECT count(*) AS contracts, max(id) AS last FROM \
                 (SELECT id FROM proposals WHERE id > $1 ORDER BY id LIMIT $2) batch";
        }
        let mut conn = connection(&self.pool).await?;
        // The batch: the next `limit` proposals by id, as the range they span.
        let (contracts, last): (i64, Option<i64>) = SELECT_PROPOSALS
            .query()
            .bind::<Int8, _>(after)
            .bind::<Int8, _>(limit)
            .get_result::<Batch>(&mut conn)
            .await
            .map(|b| (b.contracts, b.last))
            .map_err(query_error)?;
        let Some(last) = last else {
            return Ok(CheckedBatch::default());
        };
        let (drifts, entered) = conn
            .transaction(async |tx| {
                let drifts: Vec<DriftRow> = DRIFTS
                    .query()
                    .bind::<Int8, _>(after)
                    .bind::<Int8, _>(last)
                    .load(tx)
                    .await?;
                let entered = if mend && drifts.iter().any(|d| d.lancado.is_none()) {
                    let entered = MEND_FROM_FACTS
                        .query()
                        .bind::<Int8, _>(after)
                        .bind::<Int8, _>(last)
                        .execute(tx)
                        .await?;
                    let touched: Vec<i64> = drifts.iter().map(|d| d.id_proposta).collect();
                    crate::read_model::write_documents(tx, &touched).await?;
                    entered
                } else {
                    0
                };
                Ok::<_, diesel::result::Error>((drifts, entered))
            })
            .await
            .map_err(query_error)?;
        Ok(CheckedBatch {
            contracts: u64::try_from(contracts).unwrap_or(0),
            last: Some(last),
            drifts: drifts.into_iter().map(drift_of).collect::<Result<_, _>>()?,
            entered: entered as u64,
        })
    }

    async fn begin_daily_check(&self, day: NaiveDate, at: DateTime<Utc>) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let taken = diesel::insert_into(ledger_checks::table)
            .values((ledger_checks::dia.eq(day), ledger_checks::iniciada_em.eq(at)))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(taken == 1)
    }

    async fn finish_daily_check(
        &self,
        day: NaiveDate,
        summary: CheckSummary,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        diesel::update(ledger_checks::table.find(day))
            .set((
                ledger_checks::concluida_em.eq(at),
                ledger_checks::contratos.eq(count(summary.contracts)),
                ledger_checks::contratos_divergentes.eq(count(summary.drifted_contracts)),
                ledger_checks::lancamentos_inseridos.eq(count(summary.entered)),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}

/// The last finished nightly check's summary (the metrics' sample).
pub async fn last_ledger_check(pool: &PgPool) -> Result<Option<CheckSummary>, StoreError> {
    let mut conn = connection(pool).await?;
    let row: Option<(Option<i64>, Option<i64>, Option<i64>)> = ledger_checks::table
        .filter(ledger_checks::concluida_em.is_not_null())
        .order(ledger_checks::dia.desc())
        .select((
            ledger_checks::contratos,
            ledger_checks::contratos_divergentes,
            ledger_checks::lancamentos_inseridos,
        ))
        .first(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
    let count = |n: Option<i64>| u64::try_from(n.unwrap_or(0)).unwrap_or(0);
    Ok(row.map(|(contracts, drifted, entered)| CheckSummary {
        contracts: count(contracts),
        drifted_contracts: count(drifted),
        entered: count(entered),
    }))
}
