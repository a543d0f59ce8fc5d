//! The notices of an unpaid premium (issue 67, Lei 15.040/2024 arts. 20–21): the domain's
//! `ArrearsStore`. A notice is opened once per contract and kind while the arrears lasts (a
//! partial unique index: two instances never send one twice), its deliveries and receipt written
//! with its history entry in one transaction, and it is closed when the contract is up to date
//! again (`PgBilling::move_status`), so that a later arrears starts over.

use crate::event_outbox::queue_notice;
use crate::pool::{PgPool, connection, query_error};
use crate::schema::{billing_notice_deliveries as deliveries, billing_notices as notices, products};
use crate::statement::statement;
use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Date, Integer, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::billing::BillingStatus;
use domain::billing::arrears::{
    ArrearsCase, ArrearsStore, Contact, FirstInstalment, NoticeDelivery, NoticeKind, NoticeStanding, Policyholder,
    UnpaidCharge,
};
use domain::hooks::payload::{NoticeChannelData, NoticeStandingFacts};
use domain::messaging::MessageStatus;
use domain::store::StoreError;
use domain::values::{Email, StoredValueError};
use domain::wire::timestamp;

#[derive(Clone)]
pub struct PgArrears {
    pool: PgPool,
}

impl PgArrears {
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }

    /// A product's policyholder (name, e-mail) when it is declared collective life (art. 21 §2),
    /// `Some(None)` when it is not; `None` for an unknown product.
    pub async fn collective_life(&self, product_code: i32) -> Result<Option<Option<(String, String)>>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let row: Option<(bool, Option<String>, Option<String>)> = products::table
            .filter(products::codigo_produto.eq(product_code))
            .select((
                products::seguro_coletivo_vida,
                products::estipulante_nome,
                products::estipulante_email,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(query_error)?;
        Ok(row.map(|(collective, name, email)| collective.then_some(name.zip(email)).flatten()))
    }

    /// Declares the product collective life with its policyholder, or not (`None`), for the
    /// contracts accepted from now on (each keeps its own); false for an unknown product.
    pub async fn set_collective_life(
        &self,
        product_code: i32,
        policyholder: Option<(&str, &Email)>,
    ) -> Result<bool, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let changed = diesel::update(products::table.filter(products::codigo_produto.eq(product_code)))
            .set((
                products::seguro_coletivo_vida.eq(policyholder.is_some()),
                products::estipulante_nome.eq(policyholder.map(|(name, _)| name)),
                products::estipulante_email.eq(policyholder.map(|(_, email)| email.as_str())),
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
    /// The contract's current certificate's number (decision 281).
    #[diesel(sql_type = Text)]
    certificado: String,
    #[diesel(sql_type = Text)]
    metodo: String,
    #[diesel(sql_type = Text)]
    situacao: String,
    #[diesel(sql_type = Timestamptz)]
    situacao_desde: DateTime<Utc>,
    #[diesel(sql_type = Text)]
    primeira_parcela: String,
    #[diesel(sql_type = Integer)]
    encerramento_dias: i32,
    #[diesel(sql_type = Bool)]
    primeira_falhou: bool,
    #[diesel(sql_type = Nullable<Integer>)]
    periodo: Option<i32>,
    #[diesel(sql_type = Nullable<Date>)]
    vencimento: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<BigInt>)]
    valor: Option<i64>,
    #[diesel(sql_type = Bool)]
    atraso_enviado: bool,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    atraso_recebido: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    atraso_frustrado: Option<DateTime<Utc>>,
    #[diesel(sql_type = Bool)]
    encerramento_enviado: bool,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    encerramento_recebido: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    encerramento_frustrado: Option<DateTime<Utc>>,
    #[diesel(sql_type = Text)]
    nome: String,
    #[diesel(sql_type = Nullable<Text>)]
    email: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    celular: Option<String>,
    #[diesel(sql_type = Bool)]
    coletivo_vida: bool,
    #[diesel(sql_type = Nullable<Text>)]
    estipulante_nome: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    estipulante_email: Option<String>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    encerramento_estipulante_em: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<BigInt>)]
    encerramento_id: Option<i64>,
}

impl TryFrom<CaseRow> for ArrearsCase {
    type Error = StoredValueError;

    fn try_from(r: CaseRow) -> Result<Self, StoredValueError> {
        let standing = |sent: bool, received_at, frustrated_at| {
            sent.then_some(NoticeStanding {
                received_at,
                frustrated_at,
            })
        };
        Ok(ArrearsCase {
            proposal_id: r.id_proposta,
            certificate: r.certificado,
            identifier: r.identificador,
            product: r.produto,
            method: r.metodo,
            status: BillingStatus::from_stored(&r.situacao, "contract_billings", "situacao")?,
            since: r.situacao_desde,
            first_instalment: FirstInstalment::parse(&r.primeira_parcela)
                .ok_or_else(|| StoredValueError::new("contract_billings", "primeira_parcela", &r.primeira_parcela))?,
            end_days: u32::try_from(r.encerramento_dias).unwrap_or_default(),
            first_failed: r.primeira_falhou,
            oldest_unpaid: match (r.periodo, r.vencimento, r.valor) {
                (Some(period), Some(due_date), Some(amount)) => Some(UnpaidCharge {
                    period,
                    due_date,
                    amount,
                }),
                _ => None,
            },
            late_notice: standing(r.atraso_enviado, r.atraso_recebido, r.atraso_frustrado),
            end_warning: standing(
                r.encerramento_enviado,
                r.encerramento_recebido,
                r.encerramento_frustrado,
            ),
            contact: Contact {
                name: r.nome,
                email: r.email,
                cell_phone: r.celular,
            },
            // A collective life contract (art. 21 §2) with its product's policyholder; the
            // product's check keeps the name with the declaration.
            policyholder: r.coletivo_vida.then(|| Policyholder {
                name: r.estipulante_nome.unwrap_or_default(),
                email: r.estipulante_email,
                end_warning_at: r.encerramento_estipulante_em,
                end_warning_owed: r.encerramento_id.filter(|_| r.encerramento_estipulante_em.is_none()),
            }),
        })
    }
}

/// A notice's receipt (its earliest delivery, never before it was sent: a provider's clock may
/// run behind) or frustration (every delivery failed, or none was made), from its deliveries as
/// they stand.
const SETTLE_NOTICE: &str = "UPDATE billing_notices n SET \
     recebido_em = (SELECT CASE WHEN min(d.entregue_em) IS NOT NULL THEN greatest(min(d.entregue_em), n.criado_em) END \
         FROM billing_notice_deliveries d WHERE d.id_aviso = n.id), \
     frustrado_em = CASE WHEN NOT EXISTS (SELECT 1 FROM billing_notice_deliveries d \
         WHERE d.id_aviso = n.id AND d.status <> 'falhou') \
         THEN coalesce((SELECT max(d.falhou_em) FROM billing_notice_deliveries d WHERE d.id_aviso = n.id), $2) END \
     WHERE n.id = $1 RETURNING n.id_proposta, n.tipo, n.periodo, n.criado_em, n.recebido_em, n.frustrado_em";

#[derive(QueryableByName)]
struct SettledNotice {
    #[diesel(sql_type = BigInt)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    tipo: String,
    #[diesel(sql_type = Nullable<Integer>)]
    periodo: Option<i32>,
    #[diesel(sql_type = Timestamptz)]
    criado_em: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    recebido_em: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    frustrado_em: Option<DateTime<Utc>>,
}

/// The notice's standing written from its deliveries, in the caller's transaction.
async fn settle_notice(conn: &mut AsyncPgConnection, notice_id: i64, at: DateTime<Utc>) -> QueryResult<SettledNotice> {
    statement! {
        SETTLE => SettledNotice = SETTLE_NOTICE;
    }
    SETTLE
        .query()
        .bind::<BigInt, _>(notice_id)
        .bind::<Timestamptz, _>(at)
        .get_result(conn)
        .await
}

impl SettledNotice {
    /// Whether the notice's receipt or frustration is known now and was not before.
    fn newly_settled(&self, before: (Option<DateTime<Utc>>, Option<DateTime<Utc>>)) -> bool {
        (self.recebido_em, self.frustrado_em) != before && (self.recebido_em.is_some() || self.frustrado_em.is_some())
    }
}

/// The notice as its partners are told it (`AVISO_REGISTRADO`, decision 273): its standing and
/// every channel's delivery, queued in the caller's transaction.
async fn tell_notice(conn: &mut AsyncPgConnection, notice_id: i64, notice: &SettledNotice) -> QueryResult<()> {
    let channels: Vec<(String, String)> = deliveries::table
        .filter(deliveries::id_aviso.eq(notice_id))
        .order(deliveries::id.asc())
        .select((deliveries::canal, deliveries::status))
        .load(conn)
        .await?;
    let standing = NoticeStandingFacts {
        kind: notice.tipo.clone(),
        period: notice.periodo,
        sent_at: notice.criado_em,
        received_at: notice.recebido_em,
        frustrated_at: notice.frustrado_em,
        channels: channels
            .into_iter()
            .map(|(canal, status)| NoticeChannelData { canal, status })
            .collect(),
    };
    queue_notice(conn, notice.id_proposta, standing).await
}

/// A delivery's status as stored: its spelling, when it was delivered or failed, and why.
struct DeliveryColumns {
    status: &'static str,
    delivered: Option<DateTime<Utc>>,
    failed: Option<DateTime<Utc>>,
    reason: Option<String>,
}

impl DeliveryColumns {
    fn of(status: &MessageStatus) -> Self {
        let (status, delivered, failed, reason) = match status {
            MessageStatus::Accepted => ("enviado", None, None, None),
            MessageStatus::Delivered { at } => ("entregue", Some(*at), None, None),
            MessageStatus::Failed { at, reason } => {
                ("falhou", None, Some(*at), Some(reason.chars().take(200).collect()))
            }
        };
        Self {
            status,
            delivered,
            failed,
            reason,
        }
    }
}

/// The sampled count of the open notices of running contracts that no channel delivered
/// (`billing_notices_undelivered`): the customer's contacts to be checked.
pub async fn undelivered_notices(pool: &PgPool) -> Result<i64, StoreError> {
    let mut conn = connection(pool).await?;
    use crate::schema::{contract_billings as billings, proposals};
    // A contract billed here runs while its billing is open; one billed elsewhere (the shop's
    // card, whose term's notices are here too) while it is APROVADO.
    let billed = billings::table.filter(billings::id_proposta.eq(notices::id_proposta));
    let running = diesel::dsl::exists(billed.filter(billings::encerrada_em.is_null())).or(diesel::dsl::not(
        diesel::dsl::exists(billed),
    )
    .and(diesel::dsl::exists(
        proposals::table
            .filter(proposals::id.eq(notices::id_proposta))
            .filter(proposals::status.eq(domain::values::ProposalStatus::Approved.as_str())),
    )));
    notices::table
        .filter(notices::frustrado_em.is_not_null())
        .filter(notices::fechado_em.is_null())
        .filter(running)
        .count()
        .get_result(&mut conn)
        .await
        .map_err(query_error)
}

/// Records a notice's deliveries, its receipt (the earliest delivered) or its frustration, and its
/// history entry, in one transaction: the arrears' notices and the term's alike.
pub(crate) async fn record_notice_deliveries(
    pool: &PgPool,
    notice_id: i64,
    sent: &[NoticeDelivery],
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    statement! {
        NOTICE_HISTORY = "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes) \
             VALUES ($1, $2, $3, 'aviso_cobranca', jsonb_build_object( \
                 'aviso', jsonb_build_object('from', NULL, 'to', $4::text), \
                 'periodo', jsonb_build_object('from', NULL, 'to', $5::int4), \
                 'canais', jsonb_build_object('from', NULL, 'to', $6::text)))";
    }
    let mut conn = connection(pool).await?;
    conn.transaction(async |conn| {
        for delivery in sent {
            let DeliveryColumns {
                status,
                delivered,
                failed,
                reason,
            } = DeliveryColumns::of(&delivery.status);
            diesel::insert_into(deliveries::table)
                .values((
                    deliveries::id_aviso.eq(notice_id),
                    deliveries::canal.eq(&delivery.channel),
                    deliveries::destino.eq(delivery.destination.chars().take(120).collect::<String>()),
                    deliveries::id_externo.eq(&delivery.external_id),
                    deliveries::status.eq(status),
                    deliveries::motivo.eq(reason),
                    deliveries::enviado_em.eq(at),
                    deliveries::entregue_em.eq(delivered),
                    deliveries::falhou_em.eq(failed),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
        }
        let notice = settle_notice(conn, notice_id, at).await?;
        let channels = sent
            .iter()
            .map(|d| format!("{} {}", d.channel, DeliveryColumns::of(&d.status).status))
            .collect::<Vec<_>>()
            .join(", ");
        NOTICE_HISTORY
            .query()
            .bind::<BigInt, _>(notice.id_proposta)
            .bind::<Timestamptz, _>(at)
            .bind::<Text, _>(domain::billing::arrears::ARREARS_ACTOR)
            .bind::<Text, _>(&notice.tipo)
            .bind::<Nullable<Integer>, _>(notice.periodo)
            .bind::<Text, _>(if channels.is_empty() {
                "nenhum".to_owned()
            } else {
                channels
            })
            .execute(conn)
            .await?;
        tell_notice(conn, notice_id, &notice).await?;
        tracing::debug!(
            received = notice.recebido_em.is_some(),
            frustrated = notice.frustrado_em.is_some(),
            "notice recorded"
        );
        Ok(())
    })
    .await
    .map_err(query_error)
}

#[async_trait]
impl ArrearsStore for PgArrears {
    async fn cases(&self) -> Result<Vec<ArrearsCase>, StoreError> {
        statement! {
            CASES => CaseRow = "SELECT b.id_proposta, p.identificador, pr.nome AS produto, \
                 coalesce((SELECT c.numero FROM proposal_certificates c WHERE c.id_proposta = b.id_proposta \
                     AND c.tipo = 'certificado' ORDER BY c.vigencia DESC LIMIT 1), p.identificador) AS certificado, \
                 b.metodo, b.situacao, \
                 b.situacao_desde, b.primeira_parcela, b.encerramento_dias, \
                 EXISTS (SELECT 1 FROM charges f WHERE f.id_proposta = b.id_proposta AND f.periodo = 1 \
                     AND f.status = 'falhou' AND f.proxima_tentativa IS NULL) AS primeira_falhou, \
                 u.periodo, u.vencimento, u.valor, \
                 la.id IS NOT NULL AS atraso_enviado, la.recebido_em AS atraso_recebido, \
                 la.frustrado_em AS atraso_frustrado, \
                 ew.id IS NOT NULL AS encerramento_enviado, ew.recebido_em AS encerramento_recebido, \
                 ew.frustrado_em AS encerramento_frustrado, \
                 coalesce(pc.nome_social, pc.nome_completo) AS nome, pc.email, pc.celular, \
                 b.coletivo_vida, pr.estipulante_nome, pr.estipulante_email, \
                 ew.estipulante_em AS encerramento_estipulante_em, ew.id AS encerramento_id \
                 FROM contract_billings b \
                 JOIN proposals p ON p.id = b.id_proposta \
                 JOIN products pr ON pr.id = p.id_produto \
                 JOIN proposal_customers pc ON pc.id_proposta = b.id_proposta \
                 LEFT JOIN LATERAL (SELECT c.periodo, c.vencimento, c.valor FROM charges c \
                     WHERE c.id_proposta = b.id_proposta AND c.status IN ('aberta', 'falhou') \
                       AND c.apresentada_em IS NOT NULL ORDER BY c.vencimento LIMIT 1) u ON true \
                 LEFT JOIN billing_notices la ON la.id_proposta = b.id_proposta AND la.tipo = 'atraso' \
                     AND la.fechado_em IS NULL \
                 LEFT JOIN billing_notices ew ON ew.id_proposta = b.id_proposta AND ew.tipo = 'aviso_encerramento' \
                     AND ew.fechado_em IS NULL \
                 WHERE b.encerrada_em IS NULL AND (b.situacao <> 'em_dia' OR b.id_proposta IN ( \
                     SELECT f.id_proposta FROM charges f WHERE f.status = 'falhou' AND f.periodo = 1 \
                       AND f.proxima_tentativa IS NULL)) \
                 ORDER BY b.id_proposta";
        }
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<CaseRow> = CASES.query().load(&mut conn).await.map_err(query_error)?;
        Ok(rows.into_iter().map(ArrearsCase::try_from).collect::<Result<_, _>>()?)
    }

    async fn open_notice(
        &self,
        proposal_id: i64,
        kind: NoticeKind,
        charge: Option<UnpaidCharge>,
        at: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::insert_into(notices::table)
            .values((
                notices::id_proposta.eq(proposal_id),
                notices::tipo.eq(kind.as_str()),
                notices::periodo.eq(charge.as_ref().map(|c| c.period)),
                notices::vencimento.eq(charge.as_ref().map(|c| c.due_date)),
                notices::valor.eq(charge.as_ref().map(|c| c.amount)),
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
        sent: &[NoticeDelivery],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        record_notice_deliveries(&self.pool, notice_id, sent, at).await
    }

    async fn awaiting_receipt(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let mut conn = connection(&self.pool).await?;
        let rows: Vec<(i64, Option<String>)> = deliveries::table
            .filter(deliveries::status.eq("enviado"))
            .filter(deliveries::id_externo.is_not_null())
            .order(deliveries::id.asc())
            .limit(1000)
            .select((deliveries::id, deliveries::id_externo))
            .load(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, external)| Some((id, external?)))
            .collect())
    }

    async fn record_policyholder_notice(
        &self,
        notice_id: i64,
        destination: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut conn = connection(&self.pool).await?;
        diesel::update(notices::table.find(notice_id))
            .filter(notices::estipulante_em.is_null())
            .set((
                notices::estipulante_em.eq(at),
                notices::estipulante_destino.eq(destination),
            ))
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
        Ok(())
    }

    async fn record_receipt(&self, delivery_id: i64, status: &MessageStatus) -> Result<(), StoreError> {
        statement! {
            RECEIPT_HISTORY = "INSERT INTO proposal_history (proposal_id, at, changed_by, action, changes) \
                 VALUES ($1, $2, $3, 'aviso_recebimento', jsonb_strip_nulls(jsonb_build_object( \
                     'aviso', jsonb_build_object('from', NULL, 'to', $4::text), \
                     'recebido_em', CASE WHEN $5::text IS NOT NULL THEN jsonb_build_object('from', NULL, 'to', $5::text) END, \
                     'frustrado_em', CASE WHEN $6::text IS NOT NULL THEN jsonb_build_object('from', NULL, 'to', $6::text) END)))";
        }
        let DeliveryColumns {
            status: stored_status,
            delivered,
            failed,
            reason,
        } = DeliveryColumns::of(status);
        let mut conn = connection(&self.pool).await?;
        conn.transaction(async |conn| {
            let notice: Option<i64> = diesel::update(deliveries::table.find(delivery_id))
                .filter(deliveries::status.eq("enviado"))
                .set((
                    deliveries::status.eq(stored_status),
                    deliveries::entregue_em.eq(delivered),
                    deliveries::falhou_em.eq(failed),
                    deliveries::motivo.eq(reason),
                ))
                .returning(deliveries::id_aviso)
                .get_result(conn)
                .await
                .optional()?;
            if let (Some(notice_id), Some(at)) = (notice, delivered.or(failed)) {
                let before: (Option<DateTime<Utc>>, Option<DateTime<Utc>>) = notices::table
                    .find(notice_id)
                    .select((notices::recebido_em, notices::frustrado_em))
                    .for_update()
                    .first(conn)
                    .await?;
                let notice = settle_notice(conn, notice_id, at).await?;
                if notice.newly_settled(before) {
                    // The day the law's periods count from, on the timeline and to the partners.
                    RECEIPT_HISTORY
                        .query()
                        .bind::<BigInt, _>(notice.id_proposta)
                        .bind::<Timestamptz, _>(at)
                        .bind::<Text, _>(domain::billing::arrears::ARREARS_ACTOR)
                        .bind::<Text, _>(&notice.tipo)
                        // As the answers write an instant (UTC, milliseconds).
                        .bind::<Nullable<Text>, _>(notice.recebido_em.map(timestamp))
                        .bind::<Nullable<Text>, _>(notice.frustrado_em.map(timestamp))
                        .execute(conn)
                        .await?;
                    tell_notice(conn, notice_id, &notice).await?;
                }
            }
            Ok(())
        })
        .await
        .map_err(query_error)
    }
}
