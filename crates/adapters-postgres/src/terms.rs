//! The contracts' terms (issue 67, decision 270): the domain's `TermStore`. The first term is
//! written in the move into `APROVADO`'s transaction (`unit_of_work::on_move::term`); the pass
//! reads the running contracts near their term's end, opens each term's notice once (the
//! notices' partial unique index, as the arrears' are: two instances never send one twice), and
//! renews a contract in one transaction with its new certificate due, the notice closed and the
//! history entry (the term's primary key: two instances never renew one twice).

use crate::arrears::record_notice_deliveries;
use crate::event_outbox::queue_term_renewed;
use crate::pool::{PgPool, connection, query_error};
use crate::read_model;
use crate::schema::{
    billing_notices as notices, contract_terms, products, proposal_certificates as certificates, proposals,
};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Date, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::billing::arrears::{Contact, NoticeDelivery};
use domain::billing::notice_kind::NoticeKind;
use domain::billing::term::{ContractTerm, Renewal, TERM_ACTOR, TermCase, TermPolicy, TermStore};
use domain::certificates::DeliveredDocument;
use domain::contract::certificate::term_certificate_number;
use domain::store::StoreError;
use domain::values::{ProposalStatus, StoredValueError};

/// The term's notices, as stored.
const TERM_NOTICES: [&str; 2] = ["renovacao", "fim_vigencia"];

#[derive(Clone)]
pub struct PgTerms {
    pool: PgPool,
}

impl PgTerms {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

impl PgTerms {
    /// A product's term as the catalog holds it (`sales-api catalog term`); `None` for an
    /// unknown product.
    pub async fn policy(&self, product_code: i32) -> Result<Option<TermPolicy>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(i32, String)> = products::table
            .filter(products::codigo_produto.eq(product_code))
            .select((products::vigencia_meses, products::renovacao))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(crate::product_terms::term_policy).transpose()
    }

    /// Sets a product's term for the contracts accepted from now on (each keeps its own); false
    /// for an unknown product.
    pub async fn set_policy(&self, product_code: i32, policy: TermPolicy) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::vigencia_meses.eq(i32::try_from(policy.months).unwrap_or(i32::MAX)),
                products::renovacao.eq(policy.renewal.as_str()),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }
}

#[derive(QueryableByName)]
struct CaseRow {
    #[diesel(sql_type = BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    produto: String,
    /// The first term's certificate's number (none only for a contract accepted without one).
    #[diesel(sql_type = Nullable<Text>)]
    certificado: Option<String>,
    #[diesel(sql_type = Integer)]
    sequencia: i32,
    #[diesel(sql_type = Date)]
    inicio: NaiveDate,
    #[diesel(sql_type = Date)]
    fim: NaiveDate,
    #[diesel(sql_type = Integer)]
    meses: i32,
    #[diesel(sql_type = Text)]
    renovacao: String,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    renovada_em: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    avisado_em: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    nome: String,
    #[diesel(sql_type = Nullable<Text>)]
    email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    celular: Option<String>,
}

impl TryFrom<CaseRow> for TermCase {
    type Error = StoredValueError;

    fn try_from(r: CaseRow) -> Result<Self, StoredValueError> {
        let sequence = u32::try_from(r.sequencia)
            .map_err(|_| StoredValueError::new("contract_terms", "sequencia", &r.sequencia.to_string()))?;
        Ok(TermCase {
            proposal_id: r.id_proposta,
            // The term's certificate as stored (a term not yet renewed into: its first's, with
            // its term, as the renewal will number it).
            certificate: term_certificate_number(r.certificado.as_deref().unwrap_or(&r.identificador), sequence),
            identifier: r.identificador,
            product: r.produto,
            term: ContractTerm {
                sequence,
                start: r.inicio,
                end: r.fim,
                renewal: Renewal::parse(&r.renovacao)
                    .ok_or_else(|| StoredValueError::new("contract_terms", "renovacao", &r.renovacao))?,
                renewed_at: r.renovada_em,
            },
            months: u32::try_from(r.meses)
                .map_err(|_| StoredValueError::new("contract_terms", "meses", &r.meses.to_string()))?,
            noticed_at: r.avisado_em,
            contact: Contact {
                name: r.nome,
                email: r.email,
                cell_phone: r.celular,
            },
        })
    }
}

/// How many contracts one pass reads: the earliest ends first, the rest at the next pass.
const CASES_LIMIT: i64 = 1000;

#[async_trait]
impl TermStore for PgTerms {
    async fn cases(&self, today: NaiveDate) -> Result<Vec<TermCase>, StoreError> {
        statement! {
            CASES => CaseRow = "SELECT t.id_proposta, p.identificador, pr.nome AS produto, \
                 c.numero AS certificado, t.sequencia, t.inicio, t.fim, t.meses, \
                 t.renovacao, t.renovada_em, n.criado_em AS avisado_em, \
                 coalesce(pc.nome_social, pc.nome_completo) AS nome, pc.email, pc.celular \
                 FROM contract_terms t \
                 JOIN proposals p ON p.id = t.id_proposta \
                 JOIN products pr ON pr.id = p.id_produto \
                 JOIN proposal_customers pc ON pc.id_proposta = t.id_proposta \
                 LEFT JOIN proposal_certificates c ON c.id_proposta = t.id_proposta AND c.tipo = 'certificado' \
                     AND c.vigencia = 1 \
                 LEFT JOIN billing_notices n ON n.id_proposta = t.id_proposta AND n.vigencia = t.sequencia \
                     AND n.tipo IN ('renovacao', 'fim_vigencia') \
                 WHERE p.status = $2::text AND t.fim <= $1::date + $3::int4 \
                   AND NOT EXISTS (SELECT 1 FROM contract_terms later WHERE later.id_proposta = t.id_proposta \
                       AND later.sequencia > t.sequencia) \
                 ORDER BY t.fim, t.id_proposta LIMIT $4::int8";
        }
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<CaseRow> = CASES
            .query()
            .bind::<Date, _>(today)
            .bind::<Text, _>(ProposalStatus::Approved.as_str())
            .bind::<Integer, _>(domain::billing::term::NOTICE_DAYS_BEFORE_END as i32)
            .bind::<BigInt, _>(CASES_LIMIT)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows.into_iter().map(TermCase::try_from).collect::<Result<_, _>>()?)
    }

    async fn open_notice(
        &self,
        proposal_id: i64,
        sequence: u32,
        kind: NoticeKind,
        at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(notices::table)
            .values((
                notices::id_proposta.eq(proposal_id),
                notices::tipo.eq(kind.as_str()),
                notices::vigencia.eq(Some(i32::try_from(sequence).unwrap_or(i32::MAX))),
                notices::criado_em.eq(at),
            ))
            .on_conflict_do_nothing()
            .returning(notices::id)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)
    }

    async fn record_deliveries(
        &self,
        notice_id: i64,
        deliveries: &[NoticeDelivery],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        record_notice_deliveries(&self.pool, notice_id, deliveries, at).await
    }

    async fn renew(&self, proposal_id: i64, next: &ContractTerm, at: DateTime<Utc>) -> Result<bool, StoreError> {
        statement! {
            TERM_HISTORY = "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes) \
                 VALUES ($1, $2, $3, 'vigencia', jsonb_build_object( \
                     'vigencia', jsonb_build_object('from', $4::int4, 'to', $5::int4), \
                     'fim', jsonb_build_object('from', $6::text, 'to', $7::text)))";
        }
        let sequence = i32::try_from(next.sequence).unwrap_or(i32::MAX);
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            // The proposal's row lock: a renewal and an end of the same contract never cross.
            let status: String = proposals::table
                .find(proposal_id)
                .select(proposals::status)
                .for_update()
                .first(conn)
                .await?;
            if status != ProposalStatus::Approved.as_str() {
                return Ok(false);
            }
            let previous: Option<(i32, NaiveDate)> = contract_terms::table
                .find((proposal_id, sequence - 1))
                .select((contract_terms::meses, contract_terms::fim))
                .first(conn)
                .await
                .optional()?;
            let Some((months, previous_end)) = previous else {
                return Ok(false);
            };
            let written = diesel::insert_into(contract_terms::table)
                .values((
                    contract_terms::id_proposta.eq(proposal_id),
                    contract_terms::sequencia.eq(sequence),
                    contract_terms::inicio.eq(next.start),
                    contract_terms::fim.eq(next.end),
                    contract_terms::meses.eq(months),
                    contract_terms::renovacao.eq(next.renewal.as_str()),
                    contract_terms::renovada_em.eq(at),
                    contract_terms::criada_em.eq(at),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if written == 0 {
                return Ok(false);
            }
            diesel::update(notices::table)
                .filter(notices::id_proposta.eq(proposal_id))
                .filter(notices::tipo.eq_any(TERM_NOTICES))
                .filter(notices::fechado_em.is_null())
                .set(notices::fechado_em.eq(at))
                .execute(conn)
                .await?;
            // The new term's certificate is due, numbered from the first's (decision 281): its
            // number and its term; a contract whose first certificate is missing takes the next
            // of its product's sequence.
            let first: Option<(DateTime<Utc>, Option<String>)> = certificates::table
                .find((proposal_id, DeliveredDocument::Certificate.as_str(), 1))
                .select((certificates::aceita_em, certificates::numero))
                .first(conn)
                .await
                .optional()?;
            let (accepted_at, first_number) = first.unzip();
            let first_number = match first_number.flatten() {
                Some(number) => number,
                None => crate::certificate_numbers::next_certificate_number(conn, proposal_id).await?,
            };
            diesel::insert_into(certificates::table)
                .values((
                    certificates::id_proposta.eq(proposal_id),
                    certificates::tipo.eq(DeliveredDocument::Certificate.as_str()),
                    certificates::vigencia.eq(sequence),
                    certificates::aceita_em.eq(accepted_at.unwrap_or(at)),
                    certificates::numero.eq(term_certificate_number(&first_number, next.sequence)),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            TERM_HISTORY
                .query()
                .bind::<BigInt, _>(proposal_id)
                .bind::<Timestamptz, _>(at)
                .bind::<Text, _>(TERM_ACTOR)
                .bind::<Integer, _>(sequence - 1)
                .bind::<Integer, _>(sequence)
                .bind::<Text, _>(previous_end.to_string())
                .bind::<Text, _>(next.end.to_string())
                .execute(conn)
                .await?;
            queue_term_renewed(
                conn,
                proposal_id,
                &ContractTerm {
                    renewed_at: Some(at),
                    ..*next
                },
            )
            .await?;
            read_model::write_documents(conn, &[proposal_id]).await?;
            Ok(true)
        })
        .await
        .map_err(query_error)
    }
}
