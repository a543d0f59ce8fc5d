//! The CGU's list of politically exposed persons in force (issue 70, migration 77): each load
//! recorded in `kyc_pep_imports`, the entries of the last one in `kyc_pep_entries`, replaced
//! whole in one transaction (a sale screened meanwhile reads the old list or the new one, never
//! half of either).

use crate::pool::{PgPool, connection, query_error};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::QueryableByName;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::kyc::pep_list::{PepEntry, PepImport, PepList, PepListStore};
use domain::store::StoreError;

/// The entries written per statement: a month's file (about 150,000 people) in some thirty.
const ROWS_PER_INSERT: usize = 5_000;

statement! {
    /// The load's record (`$1` the file's name, `$2` its SHA-256, `$3`–`$5` the counts, `$6` who).
    RECORD_IMPORT => Recorded = "INSERT INTO kyc_pep_imports (arquivo, sha256, linhas_lidas, pessoas, recusadas, importada_por)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, importada_em";
}
statement! {
    /// The list in force goes whole.
    CLEAR = "DELETE FROM kyc_pep_entries";
}
statement! {
    /// A slice of the new list, as columns.
    INSERT_ENTRIES = "INSERT INTO kyc_pep_entries (id_importacao, cpf_meio, nome, nome_chave, sigla_funcao, descricao_funcao,
                                  nivel_funcao, orgao, inicio_exercicio, fim_exercicio, fim_carencia)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::date[], $10::date[], $11::date[])";
}

#[derive(QueryableByName)]
struct Recorded {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Timestamptz)]
    importada_em: DateTime<Utc>,
}

#[derive(Clone)]
pub struct PgPepList {
    pool: PgPool,
}

impl PgPepList {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }
}

fn column<T>(entries: &[PepEntry], value: impl Fn(&PepEntry) -> T) -> Vec<T> {
    entries.iter().map(value).collect()
}

#[async_trait]
impl PepListStore for PgPepList {
    async fn replace(&self, list: &PepList, source: &str, sha256: &str, by: &str) -> Result<PepImport, StoreError> {
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        let mut conn = connection(&self.pool).await?;
        let recorded = conn
            .transaction(async |conn| {
                let recorded: Recorded = RECORD_IMPORT
                    .query()
                    .bind::<Text, _>(source)
                    .bind::<Text, _>(sha256)
                    .bind::<Integer, _>(count(list.lines_read()))
                    .bind::<Integer, _>(count(list.entries.len()))
                    .bind::<Integer, _>(count(list.refused.len()))
                    .bind::<Text, _>(by)
                    .get_result(conn)
                    .await?;
                CLEAR.query().execute(conn).await?;
                for slice in list.entries.chunks(ROWS_PER_INSERT) {
                    INSERT_ENTRIES
                        .query()
                        .bind::<BigInt, _>(recorded.id)
                        .bind::<Array<Text>, _>(column(slice, |e| e.cpf_middle.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.name.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.name_key.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.role_acronym.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.role.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.role_level.clone()))
                        .bind::<Array<Text>, _>(column(slice, |e| e.body.clone()))
                        .bind::<Array<Date>, _>(column(slice, |e| e.started_on))
                        .bind::<Array<Nullable<Date>>, _>(column::<Option<NaiveDate>>(slice, |e| e.ended_on))
                        .bind::<Array<Nullable<Date>>, _>(column::<Option<NaiveDate>>(slice, |e| e.exposed_until))
                        .execute(conn)
                        .await?;
                }
                Ok::<_, diesel::result::Error>(recorded)
            })
            .await
            .map_err(query_error)?;
        Ok(PepImport {
            id: recorded.id,
            source: source.to_owned(),
            sha256: sha256.to_owned(),
            lines_read: list.lines_read(),
            entries: list.entries.len(),
            refused: list.refused.len(),
            imported_at: recorded.importada_em,
            imported_by: by.to_owned(),
        })
    }
}
