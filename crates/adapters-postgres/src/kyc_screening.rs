//! The screening's PostgreSQL side (issue 70, migration 78): the PEP list in force searched for a
//! sale's customer, the CPF statuses kept for the configured time, and development's answers of
//! the CPF's status, set per CPF, so that every instance answers alike.

use crate::pep_list::PgPepList;
use crate::pool::{PgPool, connection, query_error};
use crate::prepared::prepared;
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::sql_types::{Date, Nullable, Text, Timestamptz};
use diesel::{OptionalExtension, QueryableByName};
use diesel_async::RunQueryDsl;
use domain::kyc::cpf_status::{CpfSituation, CpfStatus, CpfStatusCache, CpfStatusUnavailable, SandboxCpfAnswer};
use domain::kyc::screening::{PepLookup, PepMatch};
use domain::store::StoreError;
use domain::values::{Cpf, StoredValueError};

statement! {
    /// The entries of the list in force for one person (`$1` the six CPF digits, `$2` the name's
    /// key), still exposed on `$3`: one probe of `kyc_pep_entries_match`.
    PEP_EXPOSED => PepRow = "SELECT descricao_funcao, orgao, fim_carencia FROM kyc_pep_entries \
     WHERE cpf_meio = $1 AND nome_chave = $2 AND (fim_carencia IS NULL OR fim_carencia >= $3) \
     ORDER BY inicio_exercicio DESC";
}
statement! {
    /// The status of `$1` asked at or after `$2`.
    FRESH_STATUS => StatusRow = "SELECT situacao FROM kyc_cpf_status WHERE cpf = $1 AND consultado_em >= $2";
}
statement! {
    /// The status of `$1` asked at `$3` is `$2` (the last answer wins).
    KEEP_STATUS = "INSERT INTO kyc_cpf_status (cpf, situacao, consultado_em) VALUES ($1, $2, $3) \
     ON CONFLICT (cpf) DO UPDATE SET situacao = EXCLUDED.situacao, consultado_em = EXCLUDED.consultado_em \
     WHERE kyc_cpf_status.consultado_em <= EXCLUDED.consultado_em";
}
statement! {
    /// Development's answer for `$1`, if one was set.
    SANDBOX_ANSWER => AnswerRow = "SELECT resposta FROM kyc_sandbox_cpf_status WHERE cpf = $1";
}
statement! {
    /// Development's answer for `$1` set to `$2`, and the status kept of it forgotten, so that the
    /// next sale asks again.
    SET_SANDBOX_ANSWER = "WITH forgotten AS (DELETE FROM kyc_cpf_status WHERE cpf = $1) \
     INSERT INTO kyc_sandbox_cpf_status (cpf, resposta, definida_em) VALUES ($1, $2, now()) \
     ON CONFLICT (cpf) DO UPDATE SET resposta = EXCLUDED.resposta, definida_em = EXCLUDED.definida_em";
}

#[derive(QueryableByName)]
struct PepRow {
    #[diesel(sql_type = Text)]
    descricao_funcao: String,
    #[diesel(sql_type = Text)]
    orgao: String,
    #[diesel(sql_type = Nullable<Date>)]
    fim_carencia: Option<NaiveDate>,
}

#[derive(QueryableByName)]
struct StatusRow {
    #[diesel(sql_type = Text)]
    situacao: String,
}

#[derive(QueryableByName)]
struct AnswerRow {
    #[diesel(sql_type = Text)]
    resposta: String,
}

#[async_trait]
impl PepLookup for PgPepList {
    async fn exposed(&self, cpf_middle: &str, name_key: &str, on: NaiveDate) -> Result<Vec<PepMatch>, StoreError> {
        let mut conn = connection(self.pool()).await?;
        let rows: Vec<PepRow> = prepared(PEP_EXPOSED, |q| {
            q.bind::<Text, _>(cpf_middle)
                .bind::<Text, _>(name_key)
                .bind::<Date, _>(on)
        })
        .load(&mut conn)
        .await
        .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .map(|r| PepMatch {
                role: r.descricao_funcao,
                body: r.orgao,
                exposed_until: r.fim_carencia,
            })
            .collect())
    }
}

/// The CPF statuses kept (`kyc_cpf_status`).
#[derive(Clone)]
pub struct PgCpfStatusCache {
    pool: PgPool,
}

impl PgCpfStatusCache {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

fn situation_of(text: &str, table: &'static str, column: &'static str) -> Result<CpfSituation, StoredValueError> {
    CpfSituation::parse(text).ok_or_else(|| StoredValueError::new(table, column, text))
}

#[async_trait]
impl CpfStatusCache for PgCpfStatusCache {
    async fn fresh(&self, cpf: &Cpf, since: DateTime<Utc>) -> Result<Option<CpfSituation>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<StatusRow> = prepared(FRESH_STATUS, |q| {
            q.bind::<Text, _>(cpf.as_str()).bind::<Timestamptz, _>(since)
        })
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(query_error)?;
        Ok(row
            .map(|r| situation_of(&r.situacao, "kyc_cpf_status", "situacao"))
            .transpose()?)
    }

    async fn keep(&self, cpf: &Cpf, situation: CpfSituation, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        prepared(KEEP_STATUS, |q| {
            q.bind::<Text, _>(cpf.as_str())
                .bind::<Text, _>(situation.as_str())
                .bind::<Timestamptz, _>(at)
        })
        .execute(&mut conn)
        .await
        .map_err(query_error)?;
        Ok(())
    }
}

/// Development's Consulta CPF: what `POST /sandbox/kyc/cpf/{cpf}` set for a CPF, `REGULAR` for
/// every other (so that the tests and clients written before the screening go on), and no answer
/// at all for a CPF set `INDISPONIVEL` (the provider down).
#[derive(Clone)]
pub struct PgSandboxCpfStatus {
    pool: PgPool,
}

impl PgSandboxCpfStatus {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// Sets what the sandbox answers for `cpf`, and forgets the status kept of it.
    pub async fn set(&self, cpf: &Cpf, answer: SandboxCpfAnswer) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        SET_SANDBOX_ANSWER
            .query()
            .bind::<Text, _>(cpf.as_str())
            .bind::<Text, _>(answer.as_str())
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }
}

#[async_trait]
impl CpfStatus for PgSandboxCpfStatus {
    async fn situation(&self, cpf: &Cpf) -> Result<CpfSituation, CpfStatusUnavailable> {
        let unavailable = |e: StoreError| CpfStatusUnavailable(e.to_string());
        let mut conn = connection(&self.pool).await.map_err(unavailable)?;
        let row: Option<AnswerRow> = prepared(SANDBOX_ANSWER, |q| q.bind::<Text, _>(cpf.as_str()))
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(|e| unavailable(query_error(e)))?;
        match row.map(|r| SandboxCpfAnswer::parse(&r.resposta)) {
            None => Ok(CpfSituation::Regular),
            Some(Some(SandboxCpfAnswer::Situation(situation))) => Ok(situation),
            Some(Some(SandboxCpfAnswer::Unavailable)) => Err(CpfStatusUnavailable(
                "sandbox: consulta indisponível para este CPF".to_owned(),
            )),
            Some(None) => Err(CpfStatusUnavailable("sandbox: resposta gravada ilegível".to_owned())),
        }
    }
}
