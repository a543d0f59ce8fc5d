//! The certificates of accepted proposals (issue 45): the domain's `CertificateStore`. The move
//! into `APROVADO` writes that one is due (`unit_of_work::on_move::documents_due`, in the move's transaction); the
//! pass takes the undelivered ones under a lease (`FOR UPDATE SKIP LOCKED`), the first issued
//! PDF is kept, and the delivery is recorded.

use crate::pool::{PgPool, connection, query_error};
use crate::schema::{partner_brokers, partners, products, proposal_certificates as certificates};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::certificates::{CertificateStore, DeliveredDocument, DueCertificate, IssuedCertificate};
use domain::contract::certificate::{ContractEnded, IncompleteCover, ProductCover};
use domain::contract::insurance::{GeneralConditions, InsuranceLine};
use domain::contract::templates::TemplateStamp;
use domain::store::StoreError;

/// The columns `sales-api catalog cover` writes; an insurer's SUSEP code not given keeps the
/// stored one (diesel leaves a `None` field out of the UPDATE).
#[derive(AsChangeset)]
#[diesel(table_name = products)]
struct CoverChange<'a> {
    seguradora: &'a str,
    seguradora_cnpj: &'a str,
    processo_susep: &'a str,
    cobertura: &'a str,
    capital_segurado: i64,
    sac: &'a str,
    ouvidoria: &'a str,
    seguradora_codigo_susep: Option<&'a str>,
}

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
            .set(CoverChange {
                seguradora: &cover.insurer,
                seguradora_cnpj: &cover.insurer_cnpj,
                processo_susep: &cover.susep_process,
                cobertura: &cover.coverage,
                capital_segurado: cover.capital,
                sac: &cover.sac,
                ouvidoria: &cover.ombudsman,
                seguradora_codigo_susep: cover.insurer_susep_code.as_deref(),
            })
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }

    /// Sets a product's line for the IOF (`sales-api catalog cover --line`); false for an
    /// unknown product.
    pub async fn set_line(&self, product_code: i32, line: InsuranceLine) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |tx| {
            let product: Option<(i64, String)> = products::table
                .filter(products::codigo_produto.eq(product_code))
                .select((products::id, products::ramo_iof))
                .for_update()
                .first(tx)
                .await
                .optional()?;
            let Some((product_id, stored)) = product else {
                return Ok(false);
            };
            if stored != line.as_str() {
                diesel::update(products::table.find(product_id))
                    .set(products::ramo_iof.eq(line.as_str()))
                    .execute(tx)
                    .await?;
                // Route 7's premium split of every proposal of the product follows its line.
                crate::read_model::write_documents_showing(tx, crate::read_model::Shown::Product(product_id)).await?;
            }
            Ok::<_, diesel::result::Error>(true)
        })
        .await
        .map_err(query_error)
    }

    /// A product's general conditions after `change` (`Some`: stored), or `None` for an unknown
    /// product (`sales-api catalog conditions`).
    pub async fn general_conditions(
        &self,
        product_code: i32,
        change: Option<&GeneralConditions>,
    ) -> Result<Option<Option<GeneralConditions>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let product = products::table.filter(products::codigo_produto.eq(product_code));
        if let Some(c) = change {
            diesel::update(product)
                .set((
                    products::condicoes_versao.eq(&c.version),
                    products::condicoes_url.eq(&c.url),
                    products::condicoes_sha256.eq(&c.sha256),
                    products::condicoes_exclusoes.eq(&c.exclusions),
                    products::condicoes_carencias.eq(&c.waiting_periods),
                ))
                .execute(&mut conn)
                .await
                .map_err(query_error)?;
        }
        let stored: Option<crate::product_terms::ConditionsColumns> = product
            .select(crate::product_terms::CONDITIONS_COLUMNS)
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        let Some(stored) = stored else {
            return Ok(None);
        };
        Ok(Some(crate::product_terms::conditions_of(stored)))
    }

    /// Records (or with `None` removes) the SUSEP broker registration of the partner with this
    /// document; false for an unknown partner (`sales-api partners broker`).
    pub async fn set_broker_registration(
        &self,
        partner_document: &str,
        registration: Option<&str>,
        by: &str,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let Some(partner_id) = partners::table
            .filter(partners::cpf_cnpj.eq(partner_document))
            .select(partners::id)
            .first::<i64>(&mut conn)
            .await
            .optional()
            .map_err(query_error)?
        else {
            return Ok(false);
        };
        match registration {
            Some(registration) => {
                diesel::insert_into(partner_brokers::table)
                    .values((
                        partner_brokers::id_parceiro.eq(partner_id),
                        partner_brokers::registro_susep.eq(registration),
                        partner_brokers::alterado_por.eq(by),
                    ))
                    .on_conflict(partner_brokers::id_parceiro)
                    .do_update()
                    .set((
                        partner_brokers::registro_susep.eq(registration),
                        partner_brokers::alterado_por.eq(by),
                        partner_brokers::alterado_em.eq(diesel::dsl::now),
                    ))
                    .execute(&mut conn)
                    .await
                    .map_err(query_error)?;
            }
            None => {
                diesel::delete(partner_brokers::table.find(partner_id))
                    .execute(&mut conn)
                    .await
                    .map_err(query_error)?;
            }
        }
        Ok(true)
    }

    /// Sets a collective product's policyholder CNPJ and master policy (each `None` clears it);
    /// false for an unknown product.
    pub async fn set_master_policy(
        &self,
        product_code: i32,
        policyholder_cnpj: Option<&str>,
        master_policy: Option<&str>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::estipulante_cnpj.eq(policyholder_cnpj),
                products::apolice_mestre.eq(master_policy),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(changed > 0)
    }
}

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

    async fn cover(
        &self,
        product_id: i64,
        partner_document: Option<String>,
    ) -> Result<Result<ProductCover, IncompleteCover>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let facts = crate::product_terms::product_facts(&mut conn, product_id).await?;
        let registration = crate::product_terms::broker_registration(&mut conn, partner_document.as_deref()).await?;
        Ok(facts.cover.map(|cover| ProductCover {
            broker_registration: registration,
            ..cover
        }))
    }

    async fn issued(
        &self,
        proposal_id: i64,
        kind: DeliveredDocument,
        term: u32,
    ) -> Result<Option<IssuedCertificate>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        type Row = (
            Option<Vec<u8>>,
            Option<String>,
            Option<DateTime<Utc>>,
            Option<String>,
            Option<String>,
        );
        let row: Option<Row> = certificates::table
            .find((proposal_id, kind.as_str(), term_column(term)))
            .select((
                certificates::pdf,
                certificates::sha256,
                certificates::emitido_em,
                certificates::modelo_versao,
                certificates::modelo_sha256,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(match row {
            Some((Some(pdf), Some(sha256), Some(issued_at), version, template_sha256)) => Some(IssuedCertificate {
                pdf,
                sha256,
                issued_at,
                template: version
                    .zip(template_sha256)
                    .map(|(version, sha256)| TemplateStamp { version, sha256 }),
            }),
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
        let vigencia = term_column(term);
        conn.transaction(async |tx| {
            let stored = diesel::update(
                certificates::table
                    .filter(certificates::id_proposta.eq(proposal_id))
                    .filter(certificates::tipo.eq(kind.as_str()))
                    .filter(certificates::vigencia.eq(vigencia))
                    .filter(certificates::pdf.is_null()),
            )
            .set((
                certificates::pdf.eq(&issued.pdf),
                certificates::sha256.eq(&issued.sha256),
                certificates::emitido_em.eq(issued.issued_at),
                certificates::modelo_versao.eq(issued.template.as_ref().map(|t| &t.version)),
                certificates::modelo_sha256.eq(issued.template.as_ref().map(|t| &t.sha256)),
            ))
            .execute(tx)
            .await?;
            // Route 7 shows the certificate's issue (decision 281).
            if stored > 0 && kind == DeliveredDocument::Certificate {
                crate::read_model::write_documents(tx, &[proposal_id]).await?;
            }
            Ok::<_, diesel::result::Error>(())
        })
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
