//! The proposal's read model (migration 000022, decision 131): one stored document per proposal
//! holding everything route 7 answers, rebuilt by the database at the commit of every change to
//! its parts. Route 7, the console's proposal page and the documents read it by key; the
//! `check read-model` command recomputes every document from its parts and reports (or mends)
//! any that differ.
//!
//! The document keeps each stored row under its own key with its columns' names, so that it is
//! read with the same row types (and the same conversions into the domain) as the statement that
//! joins the parts.

use crate::pool::{PgPool, connection, names_no_row, query_error};
use crate::prepared::prepared;
use crate::replicas::ReadPools;
use crate::rows::{PartnerRow, PaymentRow, ProposalCustomerRow, ProposalRow};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Text};
use diesel_async::RunQueryDsl;
use domain::access::Scope;
use domain::proposals::model::{
    Flow, PaymentView, ProposalDetail, RepresentativeView, SignatureView, SubscriptionView,
};
use domain::signature::PartyRole;
use domain::store::StoreError;
use domain::values::{PartyStatus, StoredValueError};
use serde::Deserialize;

/// A proposal's stored document (`proposal_document()`, migration 000022).
#[derive(Debug, Deserialize)]
pub(crate) struct ProposalDocument {
    proposal: ProposalRow,
    product: ProductPart,
    motivation: String,
    customer: ProposalCustomerRow,
    partner: Option<PartnerRow>,
    representative: Option<RepresentativePart>,
    payment: Option<PaymentRow>,
    signature: Option<SignaturePart>,
    /// Absent from documents written before migration 000030 (read while it rewrites them).
    #[serde(default)]
    subscription: Option<SubscriptionPart>,
}

/// The proposal's latest subscription known to the payment platform.
#[derive(Debug, Clone, Deserialize, Queryable)]
pub(crate) struct SubscriptionPart {
    pub platform_id: String,
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub latest_invoice_status: Option<String>,
}

impl From<SubscriptionPart> for SubscriptionView {
    fn from(s: SubscriptionPart) -> Self {
        SubscriptionView {
            id: s.platform_id,
            status: s.status,
            current_period_end: s.current_period_end,
            latest_invoice_status: s.latest_invoice_status,
        }
    }
}

#[derive(Debug, Deserialize)]
struct ProductPart {
    nome: String,
    codigo_produto: i32,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RepresentativePart {
    pub cpf: Option<String>,
    pub email: String,
    pub name: Option<String>,
    pub video_attendance_token: Option<String>,
}

impl From<RepresentativePart> for RepresentativeView {
    fn from(r: RepresentativePart) -> Self {
        RepresentativeView {
            cpf: r.cpf,
            email: r.email,
            name: r.name,
            video_attendance_token: r.video_attendance_token,
        }
    }
}

/// The proposal's signature envelope with its parties.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct SignaturePart {
    pub id: i64,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
    pub parties: Vec<PartyPart>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct PartyPart {
    pub role: String,
    pub request_key: String,
    pub status: String,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
}

impl TryFrom<SignaturePart> for SignatureView {
    type Error = StoredValueError;

    /// The four parties' keys and statuses; where they signed is the client's.
    fn try_from(s: SignaturePart) -> Result<Self, StoredValueError> {
        let party = |role: PartyRole| s.parties.iter().find(|p| p.role == role.as_str());
        let status = |role: PartyRole| {
            party(role)
                .map(|p| PartyStatus::from_stored(&p.status, "signature_parties", "status"))
                .transpose()
        };
        let key = |role: PartyRole| party(role).map(|p| p.request_key.clone());
        let client = party(PartyRole::Client);
        Ok(SignatureView {
            id: s.id,
            client_key: key(PartyRole::Client),
            association_key: key(PartyRole::Association),
            federation_key: key(PartyRole::Federation),
            enterprise_key: key(PartyRole::Enterprise),
            client_status: status(PartyRole::Client)?,
            association_status: status(PartyRole::Association)?,
            federation_status: status(PartyRole::Federation)?,
            enterprise_status: status(PartyRole::Enterprise)?,
            latitude: client.and_then(|p| p.latitude.clone()),
            longitude: client.and_then(|p| p.longitude.clone()),
            changed_by: s.alterado_por,
            created_at: s.criado_em,
            updated_at: s.alterado_em,
        })
    }
}

/// The parts of a proposal as one detail, whether read from its document or joined afresh.
pub(crate) struct DetailParts {
    pub proposal: ProposalRow,
    pub product_name: String,
    pub product_code: i32,
    pub motivation: String,
    pub customer: ProposalCustomerRow,
    pub partner: Option<PartnerRow>,
    pub representative: Option<RepresentativePart>,
    pub payment: Option<PaymentRow>,
    pub signature: Option<SignaturePart>,
    pub subscription: Option<SubscriptionPart>,
}

impl TryFrom<DetailParts> for ProposalDetail {
    type Error = StoredValueError;

    fn try_from(d: DetailParts) -> Result<Self, StoredValueError> {
        let (customer, address) = d.customer.into_views();
        Ok(ProposalDetail {
            proposal: d.proposal.try_into()?,
            product_name: d.product_name,
            product_code: d.product_code,
            motivation: d.motivation,
            representative: d.representative.map(Into::into),
            customer,
            address: Some(address),
            partner: d.partner.map(Into::into),
            signature: d.signature.map(SignatureView::try_from).transpose()?,
            payment: d.payment.map(PaymentView::try_from).transpose()?,
            subscription: d.subscription.map(Into::into),
        })
    }
}

impl From<ProposalDocument> for DetailParts {
    fn from(d: ProposalDocument) -> Self {
        DetailParts {
            proposal: d.proposal,
            product_name: d.product.nome,
            product_code: d.product.codigo_produto,
            motivation: d.motivation,
            customer: d.customer,
            partner: d.partner,
            representative: d.representative,
            payment: d.payment,
            signature: d.signature,
            subscription: d.subscription,
        }
    }
}

#[derive(QueryableByName)]
struct StoredDocument {
    #[diesel(sql_type = Text)]
    documento: String,
}

// One statement per scope, each kept prepared: the document by its unique identifier.
const DOCUMENT: &str = "SELECT documento::text AS documento FROM proposal_read_models WHERE identificador = $1";
const PARTNER_DOCUMENT: &str = "SELECT documento::text AS documento FROM proposal_read_models \
     WHERE identificador = $1 AND id_parceiro = $2 AND fluxo = $3";
const FLOW_DOCUMENT: &str =
    "SELECT documento::text AS documento FROM proposal_read_models WHERE identificador = $1 AND fluxo = $2";

/// The document as the domain's detail: a document that does not read as one is an internal
/// error naming the proposal (the check command finds and mends it).
pub(crate) fn detail_of(identifier: &str, document: &str) -> Result<ProposalDetail, StoreError> {
    let parsed: ProposalDocument = serde_json::from_str(document).map_err(|error| {
        tracing::error!(%error, "documento de leitura ilegível");
        StoreError::Unexpected(format!(
            "documento de leitura ilegível da proposta {identifier}: {error}"
        ))
    })?;
    Ok(ProposalDetail::try_from(DetailParts::from(parsed))?)
}

/// Route 7's read: one row by key, within the caller's scope.
pub(crate) async fn read_detail(
    reads: &ReadPools,
    identifier: &str,
    scope: Scope,
) -> Result<Option<ProposalDetail>, StoreError> {
    if names_no_row(identifier) {
        return Ok(None);
    }
    let found: Option<StoredDocument> = reads
        .read_existing(|mut conn| async move {
            match scope {
                Scope::Partner { partner_id, .. } => {
                    prepared(PARTNER_DOCUMENT, |q| {
                        q.bind::<Text, _>(identifier)
                            .bind::<Int8, _>(partner_id)
                            .bind::<Text, _>(Flow::Partner.as_str())
                    })
                    .get_result(&mut conn)
                    .await
                }
                Scope::Ecommerce => {
                    prepared(FLOW_DOCUMENT, |q| {
                        q.bind::<Text, _>(identifier).bind::<Text, _>(Flow::Ecommerce.as_str())
                    })
                    .get_result(&mut conn)
                    .await
                }
                Scope::Everything => {
                    prepared(DOCUMENT, |q| q.bind::<Text, _>(identifier))
                        .get_result(&mut conn)
                        .await
                }
            }
            .optional()
            .map_err(query_error)
        })
        .await?;
    found.map(|stored| detail_of(identifier, &stored.documento)).transpose()
}

/// What `check read-model` found: how many proposals it compared, the identifiers of those whose
/// stored document differs from the one their parts make now (missing, stale or left over), and
/// how many it rewrote (only when asked to repair).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadModelReport {
    pub checked: u64,
    pub drifted: Vec<String>,
    pub repaired: u64,
}

/// Proposals compared per statement: each batch is one short read, so that a check of millions
/// of proposals never holds one long snapshot.
const CHECK_BATCH: i64 = 2_000;

#[derive(QueryableByName)]
struct Compared {
    #[diesel(sql_type = Int8)]
    id: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    drifted: bool,
}

/// Recomputes every proposal's document from its parts and compares it with the stored one
/// (and the stored row's key, flow and partner with the proposal's); with `repair`, rewrites each
/// batch's drifted documents in one statement.
pub async fn check_read_model(pool: &PgPool, repair: bool) -> Result<ReadModelReport, StoreError> {
    let mut conn = connection(pool).await?;
    let mut report = ReadModelReport::default();
    let mut after = 0_i64;
    loop {
        let batch: Vec<Compared> = prepared(
            "SELECT p.id, p.identificador, \
                 (m.documento IS DISTINCT FROM proposal_document(p.id) \
                  OR (m.id_proposta IS NOT NULL AND (m.identificador, m.fluxo, m.id_parceiro) \
                      IS DISTINCT FROM (p.identificador, p.fluxo, p.id_parceiro))) AS drifted \
             FROM proposals p LEFT JOIN proposal_read_models m ON m.id_proposta = p.id \
             WHERE p.id > $1 ORDER BY p.id LIMIT $2",
            |q| q.bind::<Int8, _>(after).bind::<Int8, _>(CHECK_BATCH),
        )
        .load(&mut conn)
        .await
        .map_err(query_error)?;
        let Some(last) = batch.last() else { break };
        after = last.id;
        report.checked += batch.len() as u64;
        let (ids, identifiers): (Vec<i64>, Vec<String>) = batch
            .into_iter()
            .filter(|c| c.drifted)
            .map(|c| (c.id, c.identificador))
            .unzip();
        if repair && !ids.is_empty() {
            // One statement (one transaction) rewrites the batch's drifted documents.
            prepared(
                "SELECT write_proposal_read_model(id) FROM unnest($1::int8[]) AS id",
                |q| q.bind::<Array<Int8>, _>(&ids),
            )
            .execute(&mut conn)
            .await
            .map_err(query_error)?;
            report.repaired += ids.len() as u64;
        }
        report.drifted.extend(identifiers);
    }
    Ok(report)
}
