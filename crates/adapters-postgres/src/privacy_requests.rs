//! Data-subject requests in PostgreSQL: the domain's `SubjectRequestStore`, and the open and
//! overdue counts the metrics listener samples.

use crate::pool::{PgPool, connection, query_error};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::sql_types::{BigInt, Nullable, Text, Timestamptz};
use diesel::{OptionalExtension, QueryableByName};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::contract::formats::brasilia;
use domain::privacy::subject_requests::{
    AnswerOutcome, NewSubjectRequest, QueueFilter, RequestAnswer, RequestChannel, RequestKind, SentFile,
    SubjectRequest, SubjectRequestStore,
};
use domain::proposals::requests::Protocol;
use domain::store::StoreError;
use domain::values::StoredValueError;

#[derive(Clone)]
pub struct PgSubjectRequests {
    pool: PgPool,
}

impl PgSubjectRequests {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

macro_rules! columns {
    () => {
        "protocolo, cpf, tipo, canal, observacao, recebido_em, recebido_por, prazo, resposta, \
     respondido_em, respondido_por, arquivo_nome, arquivo_sha256, arquivo_bytes, arquivo_enviado_para"
    };
}

statement! {
    /// The request under the protocol `$1`.
    REQUEST => Row = concat!("SELECT ", columns!(), " FROM privacy_requests WHERE protocolo = $1");
}
statement! {
    /// The requests answered, latest first (`$1` how many).
    ANSWERED_QUEUE => Row = concat!(
        "SELECT ", columns!(), " FROM privacy_requests WHERE respondido_em IS NOT NULL \
         ORDER BY respondido_em DESC, protocolo LIMIT $1"
    );
}
statement! {
    /// The requests not yet answered, nearest deadline first (`$1` how many).
    OPEN_QUEUE => Row = concat!(
        "SELECT ", columns!(), " FROM privacy_requests WHERE respondido_em IS NULL ORDER BY prazo, protocolo LIMIT $1"
    );
}
#[derive(QueryableByName)]
pub(crate) struct Row {
    #[diesel(sql_type = Text)]
    pub(crate) protocolo: String,
    #[diesel(sql_type = Text)]
    cpf: String,
    #[diesel(sql_type = Text)]
    tipo: String,
    #[diesel(sql_type = Text)]
    canal: String,
    #[diesel(sql_type = Nullable<Text>)]
    observacao: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    recebido_em: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    recebido_por: String,
    #[diesel(sql_type = Timestamptz)]
    prazo: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Text>)]
    resposta: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    respondido_em: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Text>)]
    respondido_por: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    arquivo_nome: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    arquivo_sha256: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    arquivo_bytes: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    arquivo_enviado_para: Option<String>,
}

/// Files the request under a new protocol, in the caller's transaction (numbered with the
/// customer's requests, dated by the Brasília day it was received).
pub(crate) async fn file_in(
    conn: &mut AsyncPgConnection,
    request: &NewSubjectRequest,
    by: &str,
    received_at: DateTime<Utc>,
    deadline: DateTime<Utc>,
) -> Result<Row, diesel::result::Error> {
    statement! {
        INSERT_REQUEST => Row = concat!("INSERT INTO privacy_requests (protocolo, cpf, tipo, canal, observacao, recebido_em, recebido_por, prazo)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ", columns!());
    }
    statement! {
        NEXT_NUMBER => Number = "SELECT nextval('customer_request_numbers') AS n";
    }
    let day = received_at.with_timezone(&brasilia()).date_naive();
    let number: Number = NEXT_NUMBER.query().get_result(conn).await?;
    let protocol = Protocol::new(day, number.n);
    INSERT_REQUEST
        .query()
        .bind::<Text, _>(protocol.as_str())
        .bind::<Text, _>(request.cpf.as_str())
        .bind::<Text, _>(request.kind.code())
        .bind::<Text, _>(request.channel.code())
        .bind::<Nullable<Text>, _>(request.note.as_deref())
        .bind::<Timestamptz, _>(received_at)
        .bind::<Text, _>(by)
        .bind::<Timestamptz, _>(deadline)
        .get_result(conn)
        .await
}

pub(crate) fn request_of(row: Row) -> Result<SubjectRequest, StoreError> {
    let stored =
        |column: &'static str, value: &str| StoreError::from(StoredValueError::new("privacy_requests", column, value));
    let file = match (row.arquivo_nome, row.arquivo_sha256, row.arquivo_bytes) {
        (Some(name), Some(sha256), Some(bytes)) => Some(SentFile {
            name,
            sha256,
            bytes,
            sent_to: row.arquivo_enviado_para.unwrap_or_default(),
        }),
        _ => None,
    };
    let answer = match (row.resposta, row.respondido_em, row.respondido_por) {
        (Some(text), Some(at), Some(by)) => Some(RequestAnswer { text, at, by, file }),
        _ => None,
    };
    Ok(SubjectRequest {
        protocol: Protocol::parse(&row.protocolo).ok_or_else(|| stored("protocolo", &row.protocolo))?,
        kind: RequestKind::parse(&row.tipo).map_err(|_| stored("tipo", &row.tipo))?,
        channel: RequestChannel::parse(&row.canal).map_err(|_| stored("canal", &row.canal))?,
        cpf: row.cpf,
        note: row.observacao,
        received_at: row.recebido_em,
        received_by: row.recebido_por,
        deadline: row.prazo,
        answer,
    })
}

#[derive(QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[async_trait]
impl SubjectRequestStore for PgSubjectRequests {
    async fn file(
        &self,
        request: &NewSubjectRequest,
        by: &str,
        received_at: DateTime<Utc>,
        deadline: DateTime<Utc>,
    ) -> Result<SubjectRequest, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row = conn
            .transaction(async |conn| file_in(conn, request, by, received_at, deadline).await)
            .await
            .map_err(query_error)?;
        request_of(row)
    }

    async fn find(&self, protocol: &Protocol) -> Result<Option<SubjectRequest>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<Row> = REQUEST
            .query()
            .bind::<Text, _>(protocol.as_str())
            .get_result(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        row.map(request_of).transpose()
    }

    async fn queue(&self, filter: QueueFilter, limit: i64) -> Result<Vec<SubjectRequest>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let statement = match filter {
            QueueFilter::Open => OPEN_QUEUE,
            QueueFilter::Answered => ANSWERED_QUEUE,
        };
        let rows: Vec<Row> = statement
            .query()
            .bind::<BigInt, _>(limit)
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        rows.into_iter().map(request_of).collect()
    }

    async fn answer(&self, protocol: &Protocol, answer: &RequestAnswer) -> Result<AnswerOutcome, StoreError> {
        statement! {
            ANSWER_ONCE => Row = concat!("UPDATE privacy_requests SET resposta = $2, respondido_em = $3, respondido_por = $4,
                         arquivo_nome = $5, arquivo_sha256 = $6, arquivo_bytes = $7, arquivo_enviado_para = $8
                     WHERE protocolo = $1 AND respondido_em IS NULL RETURNING ", columns!());
        }
        let mut conn = connection(&self.pool).await?;
        let file = answer.file.as_ref();
        let (answered, found): (Option<Row>, Option<Row>) = conn
            .transaction(async |conn| {
                // Answered only once: the first answer stands; a second finds it recorded.
                let answered: Option<Row> = ANSWER_ONCE
                    .query()
                    .bind::<Text, _>(protocol.as_str())
                    .bind::<Text, _>(&answer.text)
                    .bind::<Timestamptz, _>(answer.at)
                    .bind::<Text, _>(&answer.by)
                    .bind::<Nullable<Text>, _>(file.map(|f| f.name.as_str()))
                    .bind::<Nullable<Text>, _>(file.map(|f| f.sha256.as_str()))
                    .bind::<Nullable<BigInt>, _>(file.map(|f| f.bytes))
                    .bind::<Nullable<Text>, _>(file.map(|f| f.sent_to.as_str()))
                    .get_result(conn)
                    .await
                    .optional()?;
                let found = match answered {
                    Some(_) => None,
                    None => REQUEST
                        .query()
                        .bind::<Text, _>(protocol.as_str())
                        .get_result(conn)
                        .await
                        .optional()?,
                };
                Ok::<_, diesel::result::Error>((answered, found))
            })
            .await
            .map_err(query_error)?;
        Ok(match (answered, found) {
            (Some(row), _) => AnswerOutcome::Answered(request_of(row)?),
            (None, Some(row)) => AnswerOutcome::AlreadyAnswered(request_of(row)?),
            (None, None) => AnswerOutcome::NotFound,
        })
    }
}

/// The unanswered requests, and those of them past their deadline at the database's now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SubjectRequestLevels {
    pub open: i64,
    pub overdue: i64,
}

#[derive(QueryableByName)]
struct Levels {
    #[diesel(sql_type = BigInt)]
    open: i64,
    #[diesel(sql_type = BigInt)]
    overdue: i64,
}

/// For the metrics listener (`privacy_requests_open`, `privacy_requests_overdue`).
pub async fn subject_request_levels(pool: &PgPool) -> Result<SubjectRequestLevels, StoreError> {
    statement! {
        SELECT_PRIVACY_REQUESTS => Levels = "SELECT count(*) AS open, count(*) FILTER (WHERE prazo < now()) AS overdue
             FROM privacy_requests WHERE respondido_em IS NULL";
    }
    let mut conn = connection(pool).await?;
    let levels: Levels = SELECT_PRIVACY_REQUESTS
        .query()
        .get_result(&mut conn)
        .await
        .map_err(query_error)?;
    Ok(SubjectRequestLevels {
        open: levels.open,
        overdue: levels.overdue,
    })
}
