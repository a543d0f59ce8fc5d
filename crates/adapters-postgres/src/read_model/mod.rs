//! The proposal's read model (decision 131, defined in Rust since decision 168): one stored
//! document per proposal holding everything route 7 answers. Route 7, the console's proposal page
//! and the documents read it by key.
//!
//! The document is defined here, once: [`build_documents`] reads a proposal's parts and
//! [`ProposalDocument`] is what it stores. Every write that changes a part calls
//! [`write_documents`] in its own transaction, before it commits; `check read-model` builds every
//! document again with the same function and reports (or mends) any stored one that differs.
//!
//! The document keeps each stored row under its own key with its columns' names, so that it is
//! read with the same row types (and the same conversions into the domain) as the statement that
//! joins the parts.

mod check;
pub(crate) mod declaration;
pub(crate) mod parts;
mod reads;

#[cfg(feature = "testing")]
pub use check::stored_and_built_json;
pub use check::{ReadModelReport, built_detail, check_read_model};
pub(crate) use declaration::{new_document, refreshed_documents};
pub(crate) use parts::kyc::new_kyc_json;
pub(crate) use reads::read_detail;

use crate::pool::query_error;
use crate::prepared::prepared;
use crate::rows::{PartnerRow, PaymentRow, ProposalCustomerRow, ProposalRow};
use crate::schema::{proposals, signature_parties, signatures, subscriptions};
use crate::statement::statement;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Int8, Jsonb, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use domain::proposals::model::{PaymentView, ProposalDetail, RepresentativeView, SignatureView, SubscriptionView};
use domain::signature::PartyRole;
use domain::stamp::ChangeStamp;
use domain::store::StoreError;
use domain::values::{PartyStatus, StoredValueError};
use parts::acceptance::{AcceptancePart, acceptances_of};
use parts::averbacao::{AverbacaoPart, averbacoes_of};
use parts::billing::{BillingPart, ChargePart, billings_of, charges_of};
use parts::certificate::{CertificatePart, certificates_of};
use parts::ledger::{LedgerPart, ledgers_of};
use parts::pix::{RecurrencePart, recurrences_of};
use parts::refunds::{RefundPart, refunds_of};
use parts::term::{TermPart, terms_of};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Proposals compared (or written) per statement: each batch is one short read, so that a check
/// of millions of proposals never holds one long snapshot.
pub(crate) const CHECK_BATCH: i64 = 2_000;
/// A proposal's stored document: its parts, each stored row under its own key.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProposalDocument {
    proposal: ProposalRow,
    product: ProductPart,
    motivation: String,
    customer: ProposalCustomerRow,
    partner: Option<PartnerRow>,
    representative: Option<RepresentativePart>,
    payment: Option<PaymentRow>,
    /// Absent until the proposal is sent for signature (null in documents written before
    /// decision 262).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signature: Option<SignaturePart>,
    /// Absent until the payment platform knows a subscription (and from documents written before
    /// migration 000030; null in those written before decision 262).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subscription: Option<SubscriptionPart>,
    /// The acceptance clock, from the entry in `EM ANÁLISE` (migration 000040): absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    acceptance: Option<AcceptancePart>,
    /// Every refund, oldest first (migration 000042): absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    refunds: Vec<RefundPart>,
    /// The contract's billing status, from its acceptance (migration 000051): absent before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    billing: Option<BillingPart>,
    /// The contract's last charges, oldest first (migration 000051): absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    charges: Vec<ChargePart>,
    /// The `PIX AUTOMÁTICO` contract's recurrence (migration 000054): absent before its creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pix_recurrence: Option<RecurrencePart>,
    /// The `DESCONTO EM FOLHA` contract's averbação (migration 000061): absent before its request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    averbacao: Option<AverbacaoPart>,
    /// The contract's current term (migration 000062): absent before the acceptance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    term: Option<TermPart>,
    /// The contract's balances from its ledger (migration 000057): absent while all are zero.
    #[serde(default, skip_serializing_if = "LedgerPart::is_empty")]
    ledger: LedgerPart,
    /// The beneficiaries route 5 wrote (migration 000069): null when none was named, absent from
    /// documents written before.
    #[serde(default)]
    beneficiaries: Option<Vec<BeneficiaryPart>>,
    /// The contract's current certificate (migration 000071): absent before the acceptance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    certificate: Option<CertificatePart>,
    /// The customer's due diligence (migration 000078), written with the proposal: null when the
    /// screening called for none, absent from documents written before.
    #[serde(default)]
    kyc: Option<parts::kyc::KycPart>,
}

/// A beneficiary as `proposal_beneficiaries` keeps it (route 5 writes the array).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct BeneficiaryPart {
    pub nome: String,
    pub cpf: Option<String>,
    pub data_nascimento: Option<chrono::NaiveDate>,
    pub parentesco: String,
    pub percentual: u8,
}

impl BeneficiaryPart {
    /// The stored form of what route 5 read.
    pub(crate) fn of(b: &domain::proposals::beneficiaries::Beneficiary) -> Self {
        Self {
            nome: b.name.as_str().to_owned(),
            cpf: b.cpf.as_ref().map(|c| c.as_str().to_owned()),
            data_nascimento: b.birth_date.map(|d| d.date()),
            parentesco: b.kinship.as_str().to_owned(),
            percentual: b.share,
        }
    }
}

impl TryFrom<BeneficiaryPart> for domain::proposals::beneficiaries::BeneficiaryView {
    type Error = StoredValueError;

    fn try_from(b: BeneficiaryPart) -> Result<Self, StoredValueError> {
        Ok(Self {
            name: b.nome,
            cpf: b.cpf,
            birth_date: b.data_nascimento,
            kinship: domain::values::Kinship::from_stored(&b.parentesco, "proposal_beneficiaries", "beneficiarios")?,
            share: b.percentual,
        })
    }
}

/// The proposal's latest subscription known to the payment platform.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Queryable)]
pub(crate) struct SubscriptionPart {
    pub platform_id: String,
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub latest_invoice_status: Option<String>,
    /// Its first item's price in cents, as the platform's object states it (absent from
    /// documents written before migration 000071).
    #[serde(default)]
    pub price: Option<i64>,
}

impl From<SubscriptionPart> for SubscriptionView {
    fn from(s: SubscriptionPart) -> Self {
        SubscriptionView {
            id: s.platform_id,
            status: s.status,
            current_period_end: s.current_period_end,
            latest_invoice_status: s.latest_invoice_status,
            price: s.price,
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct ProductPart {
    nome: String,
    codigo_produto: i32,
    /// The line for the IOF (migration 000070; absent from documents written before 000071,
    /// which marks them all to be written again).
    #[serde(default)]
    ramo_iof: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SignaturePart {
    pub id: i64,
    pub alterado_por: String,
    pub criado_em: DateTime<Utc>,
    pub alterado_em: DateTime<Utc>,
    pub parties: Vec<PartyPart>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
            stamp: ChangeStamp {
                changed_by: s.alterado_por,
                created_at: s.criado_em,
                updated_at: s.alterado_em,
            },
        })
    }
}

impl TryFrom<ProposalDocument> for ProposalDetail {
    type Error = StoredValueError;

    fn try_from(d: ProposalDocument) -> Result<Self, StoredValueError> {
        let (customer, address) = d.customer.into_views()?;
        Ok(ProposalDetail {
            proposal: d.proposal.try_into()?,
            product_name: d.product.nome,
            product_code: d.product.codigo_produto,
            motivation: d.motivation,
            representative: d.representative.map(Into::into),
            customer,
            address: Some(address),
            partner: d.partner.map(Into::into),
            signature: d.signature.map(SignatureView::try_from).transpose()?,
            payment: d.payment.map(PaymentView::try_from).transpose()?,
            subscription: d.subscription.map(Into::into),
            acceptance: d.acceptance.map(Into::into),
            refunds: d
                .refunds
                .into_iter()
                .map(domain::refunds::RefundRecord::try_from)
                .collect::<Result<_, _>>()?,
            billing: d.billing.map(domain::billing::Billing::try_from).transpose()?,
            charges: d
                .charges
                .into_iter()
                .map(domain::billing::Charge::try_from)
                .collect::<Result<_, _>>()?,
            pix_recurrence: d
                .pix_recurrence
                .map(domain::billing::pix::RecurrenceView::try_from)
                .transpose()?,
            averbacao: d
                .averbacao
                .map(domain::billing::averbacao::AverbacaoView::try_from)
                .transpose()?,
            term: d.term.map(domain::billing::term::ContractTerm::try_from).transpose()?,
            ledger: d.ledger.into(),
            beneficiaries: d
                .beneficiaries
                .unwrap_or_default()
                .into_iter()
                .map(domain::proposals::beneficiaries::BeneficiaryView::try_from)
                .collect::<Result<_, _>>()?,
            line: match d.product.ramo_iof {
                Some(line) => domain::contract::insurance::InsuranceLine::parse(&line)
                    .ok_or_else(|| StoredValueError::new("products", "ramo_iof", &line))?,
                None => Default::default(),
            },
            certificate: d.certificate.map(Into::into),
            kyc: d.kyc.map(domain::kyc::screening::KycView::try_from).transpose()?,
        })
    }
}

/// A signature's row with one of its parties (none when it has no party yet): the proposal, the
/// signature's id, who changed it and when, and the party's role, request key, status, latitude
/// and longitude.
type SignatureRow = (
    i64,
    i64,
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    Option<(String, String, String, Option<String>, Option<String>)>,
);

/// The signatures of the proposals `$ids`, each row with one party (`SignatureRow`).
macro_rules! signatures_of {
    ($ids:expr) => {
        signatures::table
            .left_join(signature_parties::table)
            .filter(signatures::proposal_id.eq_any($ids))
            .order((signatures::proposal_id, signature_parties::role.nullable()))
            .select((
                signatures::proposal_id,
                signatures::id,
                signatures::alterado_por,
                signatures::criado_em,
                signatures::alterado_em,
                (
                    signature_parties::role,
                    signature_parties::request_key,
                    signature_parties::status,
                    signature_parties::latitude,
                    signature_parties::longitude,
                )
                    .nullable(),
            ))
    };
}

/// The latest subscription known to the payment platform of each proposal of `$ids`.
macro_rules! subscriptions_of {
    ($ids:expr) => {
        subscriptions::table
            .filter(subscriptions::proposal_id.eq_any($ids))
            .filter(subscriptions::platform_id.is_not_null())
            .distinct_on(subscriptions::proposal_id)
            .order((subscriptions::proposal_id, subscriptions::id.desc()))
            .select((
                subscriptions::proposal_id,
                (
                    subscriptions::platform_id.assume_not_null(),
                    subscriptions::status,
                    subscriptions::current_period_end,
                    subscriptions::latest_invoice_status,
                    diesel::dsl::sql::<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>(
                        "(subscriptions.object #>> '{items,data,0,price,unit_amount}')::bigint",
                    ),
                ),
            ))
    };
}

/// The documents of `ids` as their parts make them now, by proposal id: the one definition of
/// the read model. A proposal without its copy of the customer (route 7 finds nothing without it)
/// has none. One statement per source, pipelined on one connection (inside the caller's
/// transaction when it has one): the parts a proposal has from its creation (the declaration's
/// [`BUILD`](declaration::BUILD)), its signature's parties, its latest subscription known to the
/// payment platform, and each later part's own.
pub(crate) async fn build_documents(
    conn: &mut AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<HashMap<i64, ProposalDocument>> {
    let shared: &AsyncPgConnection = conn;
    let (mut for_parts, mut for_signatures, mut for_subscriptions, mut for_acceptances, mut for_refunds) =
        (shared, shared, shared, shared, shared);
    let (mut for_billings, mut for_charges, mut for_recurrences, mut for_ledgers, mut for_averbacoes) =
        (shared, shared, shared, shared, shared);
    let (mut for_terms, mut for_certificates) = (shared, shared);
    let created =
        prepared(declaration::BUILD, |q| q.bind::<Array<Int8>, _>(ids)).load::<declaration::Built>(&mut for_parts);
    let signatures = signatures_of!(ids).load::<SignatureRow>(&mut for_signatures);
    let subscriptions = subscriptions_of!(ids).load::<(i64, SubscriptionPart)>(&mut for_subscriptions);
    let acceptances = acceptances_of(&mut for_acceptances, ids);
    let refunds = refunds_of(&mut for_refunds, ids);
    let billings = billings_of(&mut for_billings, ids);
    let charges = charges_of(&mut for_charges, ids);
    let recurrences = recurrences_of(&mut for_recurrences, ids);
    let ledgers = ledgers_of(&mut for_ledgers, ids);
    let averbacoes = averbacoes_of(&mut for_averbacoes, ids);
    let terms = terms_of(&mut for_terms, ids);
    let certificates = certificates_of(&mut for_certificates, ids);
    let (
        created,
        signature_rows,
        subscriptions,
        mut acceptances,
        mut refunds,
        mut billings,
        mut charges,
        mut recurrences,
        mut ledgers,
        mut averbacoes,
        mut terms,
        mut certificates,
    ) = futures_util::try_join!(
        created,
        signatures,
        subscriptions,
        acceptances,
        refunds,
        billings,
        charges,
        recurrences,
        ledgers,
        averbacoes,
        terms,
        certificates
    )?;

    let mut signatures: HashMap<i64, SignaturePart> = HashMap::new();
    for (proposal_id, id, changed_by, created_at, updated_at, party) in signature_rows {
        let signature = signatures.entry(proposal_id).or_insert_with(|| SignaturePart {
            id,
            alterado_por: changed_by,
            criado_em: created_at,
            alterado_em: updated_at,
            parties: Vec::new(),
        });
        if let Some((role, request_key, status, latitude, longitude)) = party {
            signature.parties.push(PartyPart {
                role,
                request_key,
                status,
                latitude,
                longitude,
            });
        }
    }
    let mut subscriptions: HashMap<i64, SubscriptionPart> = subscriptions.into_iter().collect();

    created
        .into_iter()
        .map(|row| {
            let id = row.id;
            // The created parts read as the document keeps them; the later ones are absent.
            let document: ProposalDocument = serde_json::from_str(&row.documento).map_err(|error| {
                tracing::error!(%error, "partes da proposta ilegíveis");
                diesel::result::Error::DeserializationError(Box::new(error))
            })?;
            Ok((
                id,
                ProposalDocument {
                    signature: signatures.remove(&id),
                    subscription: subscriptions.remove(&id),
                    acceptance: acceptances.remove(&id),
                    refunds: refunds.remove(&id).unwrap_or_default(),
                    billing: billings.remove(&id),
                    charges: charges.remove(&id).unwrap_or_default(),
                    pix_recurrence: recurrences.remove(&id),
                    averbacao: averbacoes.remove(&id),
                    term: terms.remove(&id),
                    certificate: certificates.remove(&id),
                    ledger: ledgers.remove(&id).unwrap_or_default(),
                    ..document
                },
            ))
        })
        .collect()
}

statement! {
    /// The proposals' row locks, shared, in id order (`$1` the ids).
    LOCK = "SELECT 1 FROM proposals WHERE id = ANY($1) ORDER BY id FOR SHARE";
}

statement! {
    /// The documents written, column by column, and the guard's marks of them removed (the table is
    /// nearly always empty: one index probe).
    UPSERT = "WITH unmarked AS (DELETE FROM proposal_read_model_stale WHERE id_proposta = ANY($1)) \
     INSERT INTO proposal_read_models (id_proposta, identificador, fluxo, id_parceiro, documento) \
     SELECT * FROM unnest($1::int8[], $2::text[], $3::text[], $4::int8[], $5::jsonb[]) \
     ON CONFLICT (id_proposta) DO UPDATE SET \
         identificador = EXCLUDED.identificador, fluxo = EXCLUDED.fluxo, \
         id_parceiro = EXCLUDED.id_parceiro, documento = EXCLUDED.documento";
}

/// Writes the documents of `ids` as their parts are now, inside the caller's transaction, and
/// removes those whose proposal (or its copy of the customer) is gone. Every write of a part calls
/// it before its commit. It takes the proposals' row locks first (shared, in id order), which
/// every status move and every claim holds until it commits, and then reads the parts: two
/// transactions writing one proposal's parts (a correction and a cancellation) never leave the
/// document of the one that read first.
pub(crate) async fn write_documents(
    conn: &mut AsyncPgConnection,
    ids: &[i64],
) -> QueryResult<Vec<(i64, ProposalDocument)>> {
    statement! {
        DELETE_PROPOSAL_READ_MODEL_STALE = "WITH unmarked AS (DELETE FROM proposal_read_model_stale WHERE id_proposta = ANY($1)) \
                 DELETE FROM proposal_read_models WHERE id_proposta = ANY($1)";
    }
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    prepared(LOCK, |q| q.bind::<Array<Int8>, _>(&ids)).execute(conn).await?;
    let mut documents = build_documents(conn, &ids).await?;
    let gone: Vec<i64> = ids.iter().copied().filter(|id| !documents.contains_key(id)).collect();
    let mut rows = Rows::default();
    let mut written = Vec::with_capacity(documents.len());
    for id in &ids {
        if let Some(document) = documents.remove(id) {
            rows.push(*id, &document)?;
            written.push((*id, document));
        }
    }
    if !rows.ids.is_empty() {
        prepared(UPSERT, |q| {
            q.bind::<Array<Int8>, _>(&rows.ids)
                .bind::<Array<Text>, _>(&rows.identifiers)
                .bind::<Array<Text>, _>(&rows.flows)
                .bind::<Array<Nullable<Int8>>, _>(&rows.partners)
                .bind::<Array<Jsonb>, _>(&rows.documents)
        })
        .execute(conn)
        .await?;
    }
    if !gone.is_empty() {
        prepared(DELETE_PROPOSAL_READ_MODEL_STALE, |q| q.bind::<Array<Int8>, _>(&gone))
            .execute(conn)
            .await?;
    }
    Ok(written)
}

/// A row other proposals show in their documents: an edit of it writes theirs again.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shown {
    /// A product's name, code and line for the IOF.
    Product(i64),
    /// A representative's video attendance token.
    Representative(i64),
}

/// Writes again, in batches inside the caller's transaction, the documents of every proposal
/// that shows `shown`.
pub(crate) async fn write_documents_showing(conn: &mut AsyncPgConnection, shown: Shown) -> QueryResult<()> {
    let ids: Vec<i64> = match shown {
        Shown::Product(id) => {
            proposals::table
                .filter(proposals::id_produto.eq(id))
                .select(proposals::id)
                .load(conn)
                .await?
        }
        Shown::Representative(id) => {
            proposals::table
                .filter(proposals::id_representante.eq(id))
                .select(proposals::id)
                .load(conn)
                .await?
        }
    };
    for batch in ids.chunks(CHECK_BATCH as usize) {
        write_documents(conn, batch).await?;
    }
    Ok(())
}

/// The stored rows of a batch of documents, column by column (one `unnest` writes them all).
#[derive(Default)]
struct Rows {
    ids: Vec<i64>,
    identifiers: Vec<String>,
    flows: Vec<String>,
    partners: Vec<Option<i64>>,
    documents: Vec<serde_json::Value>,
}

impl Rows {
    fn push(&mut self, id: i64, document: &ProposalDocument) -> QueryResult<()> {
        let json = serde_json::to_value(document)
            .map_err(|error| diesel::result::Error::SerializationError(Box::new(error)))?;
        self.ids.push(id);
        self.identifiers.push(document.proposal.identificador.clone());
        self.flows.push(document.proposal.fluxo.clone());
        self.partners.push(document.proposal.id_parceiro);
        self.documents.push(json);
        Ok(())
    }
}

/// A stored document with the keys its row repeats from the proposal.
#[derive(QueryableByName)]
struct StoredRow {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
    #[diesel(sql_type = Text)]
    identificador: String,
    #[diesel(sql_type = Text)]
    fluxo: String,
    #[diesel(sql_type = Nullable<Int8>)]
    id_parceiro: Option<i64>,
    #[diesel(sql_type = Text)]
    documento: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    stale: bool,
}

impl StoredRow {
    /// Whether this stored row says what `built` says: the same parts (read back as the same
    /// rows, so that a timestamp's spelling is not a difference) under the same keys, unmarked.
    fn matches(&self, built: &ProposalDocument) -> bool {
        let keys = (self.identificador.as_str(), self.fluxo.as_str(), self.id_parceiro);
        let built_keys = (
            built.proposal.identificador.as_str(),
            built.proposal.fluxo.as_str(),
            built.proposal.id_parceiro,
        );
        !self.stale
            && keys == built_keys
            && serde_json::from_str::<ProposalDocument>(&self.documento).is_ok_and(|stored| stored == *built)
    }
}

/// Writes again the documents the guard marked (writes that skipped the service: `migrate` calls
/// it after the migrations), in batches, each its own transaction; answers how many.
pub(crate) async fn write_marked(conn: &mut AsyncPgConnection) -> QueryResult<u64> {
    statement! {
        SELECT_PROPOSAL_READ_MODEL_STALE => Marked = "SELECT id_proposta FROM proposal_read_model_stale ORDER BY id_proposta LIMIT $1";
    }
    let mut written = 0;
    loop {
        let marked: Vec<i64> = prepared(SELECT_PROPOSAL_READ_MODEL_STALE, |q| q.bind::<Int8, _>(CHECK_BATCH))
            .load::<Marked>(conn)
            .await?
            .into_iter()
            .map(|m| m.id_proposta)
            .collect();
        if marked.is_empty() {
            return Ok(written);
        }
        // Each batch's marks go with its write, so that the next batch reads the next ones.
        conn.transaction(async |tx| write_documents(tx, &marked).await.map(drop))
            .await?;
        written += marked.len() as u64;
    }
}

#[derive(QueryableByName)]
struct Marked {
    #[diesel(sql_type = Int8)]
    id_proposta: i64,
}

/// The id of the proposal with this identifier, if there is one.
async fn id_of(conn: &mut AsyncPgConnection, identifier: &str) -> Result<Option<i64>, StoreError> {
    proposals::table
        .filter(proposals::identificador.eq(identifier))
        .select(proposals::id)
        .first(conn)
        .await
        .optional()
        .map_err(query_error)
}
