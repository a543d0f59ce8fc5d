//! The certificates of accepted proposals (issue 45): the domain's `CertificateStore`. The move
//! into `APROVADO` writes that one is due (`unit_of_work::on_move::documents_due`, in the move's transaction); the
//! pass takes the undelivered ones under a lease (`FOR UPDATE SKIP LOCKED`), the first issued
//! PDF is kept, and the delivery is recorded.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{products, proposal_certificates as certificates};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::certificates::{CertificateStore, DeliveredDocument, DueCertificate, IssuedCertificate};
use domain::contract::certificate::{ContractEnded, IncompleteCover, ProductCover};
use domain::store::StoreError;

#[derive(Clone)]
pub struct PgCertificates {
    pool: PgPool,
}

impl PgCertificates {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

impl PgCertificates {
    /// Sets what a product's certificates say besides the proposal (`sales-api catalog cover`);
    /// answers false for an unknown product. The premium is the product's value.
    pub async fn set_cover(&self, product_code: i32, cover: &ProductCover) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::seguradora.eq(&cover.insurer),
                products::seguradora_cnpj.eq(&cover.insurer_cnpj),
                products::processo_susep.eq(&cover.susep_process),
                products::cobertura.eq(&cover.coverage),
                products::capital_segurado.eq(cover.capital),
                products::sac.eq(&cover.sac),
                products::ouvidoria.eq(&cover.ombudsman),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }
}

type CoverRow = (
    i32,
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<String>,
    crate::proposals::RulesColumns,
);

#[async_trait]
impl CertificateStore for PgCertificates {
    async fn accepted_at(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        certificates::table
            .find((proposal_id, kind.as_str(), 1))
            .select(certificates::aceita_em)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)
    }

    async fn cover(&self, product_id: i64) -> Result<Result<ProductCover, IncompleteCover>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: CoverRow = products::table
            .find(product_id)
            .select((
                products::codigo_produto,
                products::valor,
                products::seguradora,
                products::seguradora_cnpj,
                products::processo_susep,
                products::cobertura,
                products::capital_segurado,
                products::sac,
                products::ouvidoria,
                (
                    products::cobranca_carencia_dias,
                    products::cobranca_suspensao_dias,
                    products::cobranca_encerramento_dias,
                    products::cobranca_primeira_parcela,
                ),
            ))
            .first(&mut conn)
            .await
            .map_err(query_error)?;
        let (code, premium, insurer, cnpj, process, coverage, capital, sac, ombudsman, rules) = row;
        let payment = crate::proposals::payment_rules(rules)?;
        let mut missing = Vec::new();
        for (name, given) in [
            ("--insurer", insurer.is_some()),
            ("--insurer-cnpj", cnpj.is_some()),
            ("--susep-process", process.is_some()),
            ("--coverage", coverage.is_some()),
            ("--capital", capital.is_some()),
            ("--sac", sac.is_some()),
            ("--ombudsman", ombudsman.is_some()),
        ] {
            if !given {
                missing.push(name);
            }
        }
        Ok(match (insurer, cnpj, process, coverage, capital, sac, ombudsman) {
            (
                Some(insurer),
                Some(insurer_cnpj),
                Some(susep_process),
                Some(coverage),
                Some(capital),
                Some(sac),
                Some(ombudsman),
            ) => Ok(ProductCover {
                insurer,
                insurer_cnpj,
                susep_process,
                coverage,
                capital,
                premium,
                sac,
                ombudsman,
                payment,
            }),
            _ => Err(IncompleteCover { product: code, missing }),
        })
    }

    async fn issued(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
    ) -> Result<Option<IssuedCertificate>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(Option<Vec<u8>>, Option<String>, Option<DateTime<Utc>>)> = certificates::table
            .find((proposal_id, kind.as_str(), term_column(term)))
            .select((certificates::pdf, certificates::sha256, certificates::emitido_em))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(match row {
            Some((Some(pdf), Some(sha256), Some(issued_at))) => Some(IssuedCertificate { pdf, sha256, issued_at }),
            _ => None,
        })
    }

    async fn store_issued(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
        issued: &IssuedCertificate,
    ) -> Result<IssuedCertificate, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(
            certificates::table
                .filter(certificates::id_proposta.eq(proposal_id))
                .filter(certificates::tipo.eq(kind.as_str()))
                .filter(certificates::vigencia.eq(term_column(term)))
                .filter(certificates::pdf.is_null()),
        )
        .set((
            certificates::pdf.eq(&issued.pdf),
            certificates::sha256.eq(&issued.sha256),
            certificates::emitido_em.eq(issued.issued_at),
        ))
        .execute(&mut conn)
        .await
        .map_err(query_error)?;
        // Whoever stored first, the stored one.
        drop(conn);
        self.issued(proposal_id, kind, term)
            .await?
            .ok_or_else(|| StoreError::Unavailable(format!("{} da proposta {proposal_id} não gravado", kind.as_str())))
    }

    async fn take_undelivered(
        &self,
        now: DateTime<Utc>,
        lease: chrono::Duration,
        limit: i64,
    ) -> Result<Vec<DueCertificate>, StoreError> {
        statement! {
            LOCK_PROPOSAL_CERTIFICATES => DueRow = "WITH due AS (SELECT c.id_proposta, c.tipo, c.vigencia FROM proposal_certificates c \
                     WHERE c.enviado_em IS NULL AND c.retido_em IS NULL \
                       AND (c.reservado_ate IS NULL OR c.reservado_ate < $1) \
                     ORDER BY c.aceita_em LIMIT $3 FOR UPDATE SKIP LOCKED) \
                 UPDATE proposal_certificates c SET reservado_ate = $2 FROM due, proposals p \
                 WHERE c.id_proposta = due.id_proposta AND c.tipo = due.tipo AND c.vigencia = due.vigencia \
                   AND p.id = c.id_proposta \
                 RETURNING c.id_proposta, c.tipo, c.vigencia, p.identificador, c.aceita_em";
        }
        let mut conn = connection(&self.pool).await?;
        let rows = LOCK_PROPOSAL_CERTIFICATES
            .query()
            .bind::<diesel::sql_types::Timestamptz, _>(now)
            .bind::<diesel::sql_types::Timestamptz, _>(now + lease)
            .bind::<diesel::sql_types::BigInt, _>(limit)
            .load::<DueRow>(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                Some(DueCertificate {
                    kind: DeliveredDocument::parse(&row.tipo)?,
                    proposal_id: row.id_proposta,
                    identifier: row.identificador,
                    term: u32::try_from(row.vigencia).unwrap_or(1),
                    accepted_at: row.aceita_em,
                })
            })
            .collect())
    }

    async fn withhold(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
        why: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(
            certificates::table
                .filter(certificates::id_proposta.eq(proposal_id))
                .filter(certificates::tipo.eq(kind.as_str()))
                .filter(certificates::vigencia.eq(term_column(term)))
                .filter(certificates::enviado_em.is_null()),
        )
        .set((
            certificates::retido_em.eq(at),
            certificates::retido_motivo.eq(why.chars().take(200).collect::<String>()),
            certificates::reservado_ate.eq(None::<DateTime<Utc>>),
        ))
        .execute(&mut conn)
        .await
        .map_err(query_error)?;
        Ok(())
    }

    async fn ended(&self, proposal_id: i64) -> Result<Option<ContractEnded>, StoreError> {
        statement! {
            /// The contract's last move to `CANCELADO`, with its reason.
            ENDED => EndedRow = "SELECT at, changes -> 'motivo' ->> 'to' AS motivo FROM proposal_history \
                 WHERE proposal_id = $1 AND action = 'status' AND changes -> 'status' ->> 'to' = 'CANCELADO' \
                 ORDER BY at DESC LIMIT 1";
        }
        let mut conn = connection(&self.pool).await?;
        let row = ENDED
            .query()
            .bind::<diesel::sql_types::BigInt, _>(proposal_id)
            .get_result::<EndedRow>(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(|r| ContractEnded {
            at: r.at,
            reason: r.motivo,
        }))
    }

    async fn record_delivery(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
        to: &str,
        sha256: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(
            certificates::table
                .filter(certificates::id_proposta.eq(proposal_id))
                .filter(certificates::tipo.eq(kind.as_str()))
                .filter(certificates::vigencia.eq(term_column(term)))
                .filter(certificates::sha256.eq(sha256)),
        )
        .set((
            certificates::enviado_para.eq(to),
            certificates::enviado_em.eq(at),
            certificates::reservado_ate.eq(None::<DateTime<Utc>>),
        ))
        .execute(&mut conn)
        .await
        .map_err(query_error)?;
        Ok(())
    }
}

#[derive(QueryableByName)]
struct EndedRow {
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    at: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    motivo: Option<String>,
}

#[derive(QueryableByName)]
struct DueRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    tipo: String,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    vigencia: i32,
    #[diesel(sql_type = diesel::sql_types::Text)]
    identificador: String,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    aceita_em: DateTime<Utc>,
}

/// A term's number as the column keeps it.
fn term_column(term: u32) -> i32 {
    i32::try_from(term).unwrap_or(i32::MAX)
}
