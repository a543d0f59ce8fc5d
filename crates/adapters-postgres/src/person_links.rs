//! The person's own links in PostgreSQL (`privacy_person_links`): the domain's `PersonLinkStore`.
//! A request link is spent in the transaction that files its request, so two clicks file one.

use crate::pool::{PgPool, connection, query_error};
use crate::privacy_requests::{file_in, request_of};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{BigInt, Bool, Nullable, Text, Timestamptz};
use diesel::{OptionalExtension, QueryableByName};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::privacy::consents::ConsentPurpose;
use domain::privacy::person_channel::{
    BY_THE_PERSON, LinkPurpose, NewPersonLink, PersonConsents, PersonLink, PersonLinkStore, StoredConsentRecord,
};
use domain::privacy::subject_requests::{NewSubjectRequest, SubjectRequest};
use domain::store::StoreError;
use domain::values::{Cpf, StoredValueError};

#[derive(Clone)]
pub struct PgPersonLinks {
    pool: PgPool,
}

impl PgPersonLinks {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

statement! {
    /// The addresses held for the CPF `$1`: its registrations' and its proposals' copies'.
    EMAILS_HELD => HeldEmail = "\
SELECT DISTINCT email FROM (
    SELECT email FROM customers WHERE cpf = $1 AND email IS NOT NULL
    UNION ALL
    SELECT pc.email FROM proposal_customers pc JOIN proposals p ON p.id = pc.id_proposta
    WHERE p.cpf_cliente = $1 AND pc.email IS NOT NULL) AS held";
}
statement! {
    ISSUED_SINCE => Count = "SELECT count(*) AS n FROM privacy_person_links WHERE cpf = $1 AND emitido_em >= $2";
}
statement! {
    ISSUE = "INSERT INTO privacy_person_links (token_sha256, cpf, finalidade, enviado_para, emitido_em, expira_em)
             VALUES ($1, $2, $3, $4, $5, $6)";
}
statement! {
    FIND => LinkRow = "SELECT id, cpf, finalidade, enviado_para, emitido_em, expira_em, usado_em
                       FROM privacy_person_links WHERE token_sha256 = $1";
}
statement! {
    /// Spends the link `$1` at `$2`, if unspent and unexpired then.
    SPEND => Count = "UPDATE privacy_person_links SET usado_em = $2
                      WHERE id = $1 AND usado_em IS NULL AND expira_em > $2 RETURNING id AS n";
}
statement! {
    RECORD_PROTOCOL = "UPDATE privacy_person_links SET protocolo = $2 WHERE id = $1";
}
statement! {
    CONSENTS => ConsentRow = "SELECT finalidade, concedido, registrado_em FROM privacy_consents WHERE cpf = $1 ORDER BY id";
}
statement! {
    BLOCKED => Blocked = "SELECT EXISTS (SELECT 1 FROM personal_data_blocks WHERE cpf = $1) AS blocked";
}

#[derive(QueryableByName)]
struct HeldEmail {
    #[diesel(sql_type = Text)]
    email: String,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct LinkRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    cpf: String,
    #[diesel(sql_type = Text)]
    finalidade: String,
    #[diesel(sql_type = Text)]
    enviado_para: String,
    #[diesel(sql_type = Timestamptz)]
    emitido_em: DateTime<Utc>,
    #[diesel(sql_type = Timestamptz)]
    expira_em: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    usado_em: Option<DateTime<Utc>>,
}

#[derive(QueryableByName)]
struct ConsentRow {
    #[diesel(sql_type = Text)]
    finalidade: String,
    #[diesel(sql_type = Bool)]
    concedido: bool,
    #[diesel(sql_type = Timestamptz)]
    registrado_em: DateTime<Utc>,
}

#[derive(QueryableByName)]
struct Blocked {
    #[diesel(sql_type = Bool)]
    blocked: bool,
}

fn stored(table: &'static str, column: &'static str, value: &str) -> StoreError {
    StoreError::from(StoredValueError::new(table, column, value))
}

fn link_of(row: LinkRow) -> Result<PersonLink, StoreError> {
    Ok(PersonLink {
        id: row.id,
        cpf: Cpf::parse(&row.cpf).map_err(|_| stored("privacy_person_links", "cpf", "(não é um CPF)"))?,
        purpose: LinkPurpose::parse(&row.finalidade)
            .map_err(|_| stored("privacy_person_links", "finalidade", &row.finalidade))?,
        sent_to: row.enviado_para,
        issued_at: row.emitido_em,
        expires_at: row.expira_em,
        used_at: row.usado_em,
    })
}

#[async_trait]
impl PersonLinkStore for PgPersonLinks {
    async fn emails_held(&self, cpf: &Cpf) -> Result<Vec<String>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<HeldEmail> = EMAILS_HELD
            .query()
            .bind::<Text, _>(cpf.as_str())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows.into_iter().map(|r| r.email).collect())
    }

    async fn issued_since(&self, cpf: &Cpf, since: DateTime<Utc>) -> Result<u32, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let count: Count = ISSUED_SINCE
            .query()
            .bind::<Text, _>(cpf.as_str())
            .bind::<Timestamptz, _>(since)
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(u32::try_from(count.n).unwrap_or(u32::MAX))
    }

    async fn issue(&self, link: &NewPersonLink) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        ISSUE
            .query()
            .bind::<Text, _>(&link.token_sha256)
            .bind::<Text, _>(link.cpf.as_str())
            .bind::<Text, _>(link.purpose.code())
            .bind::<Text, _>(&link.sent_to)
            .bind::<Timestamptz, _>(link.issued_at)
            .bind::<Timestamptz, _>(link.expires_at)
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn find(&self, token_sha256: &str) -> Result<Option<PersonLink>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<LinkRow> = FIND
            .query()
            .bind::<Text, _>(token_sha256)
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(link_of).transpose()
    }

    async fn file_request(
        &self,
        link_id: i64,
        request: &NewSubjectRequest,
        received_at: DateTime<Utc>,
        deadline: DateTime<Utc>,
    ) -> Result<Option<SubjectRequest>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| {
                let spent: Option<Count> = SPEND
                    .query()
                    .bind::<BigInt, _>(link_id)
                    .bind::<Timestamptz, _>(received_at)
                    .get_result(conn)
                    .await
                    .optional()?;
                if spent.is_none() {
                    return Ok(None);
                }
                let row = file_in(conn, request, BY_THE_PERSON, received_at, deadline).await?;
                RECORD_PROTOCOL
                    .query()
                    .bind::<BigInt, _>(link_id)
                    .bind::<Text, _>(&row.protocolo)
                    .execute(conn)
                    .await?;
                Ok::<_, diesel::result::Error>(Some(row))
            })
            .await
            .map_err(query_error)?;
        row.map(request_of).transpose()
    }

    async fn consents(&self, cpf: &Cpf) -> Result<PersonConsents, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<ConsentRow> = CONSENTS
            .query()
            .bind::<Text, _>(cpf.as_str())
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        let blocked: Blocked = BLOCKED
            .query()
            .bind::<Text, _>(cpf.as_str())
            .get_result(&mut conn)
            .await
            .map_err(query_error)?;
        let records = rows
            .into_iter()
            .map(|r| {
                Ok(StoredConsentRecord {
                    purpose: ConsentPurpose::parse(&r.finalidade)
                        .map_err(|_| stored("privacy_consents", "finalidade", &r.finalidade))?,
                    granted: r.concedido,
                    at: r.registrado_em,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(PersonConsents {
            blocked: blocked.blocked,
            records,
        })
    }
}
